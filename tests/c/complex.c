/* Complex arrays from C: C99 `double _Complex` and `float _Complex` buffers pass to
 * sl_create and sl_read as they are; arithmetic, conj, abs, exp, a complex scalar and a
 * sum are checked against <complex.h> on random inputs. */
#include <complex.h>
#include <math.h>

#include "check.h"

#define N 3000

static int close_to(double complex got, double complex want, double tol) {
    return cabs(got - want) <= tol * (1.0 + cabs(want));
}

static void double_complex(void) {
    static double complex z[N], w[N], out[N];
    for (int i = 0; i < N; i++) {
        z[i] = uniform(-3, 3) + uniform(-3, 3) * I;
        w[i] = uniform(0.5, 2) + uniform(-2, 2) * I;
    }
    OK(sl_scope_begin());
    int64_t n = N;
    sl_array hz, hw, p, c, q, e, t, s, a;
    OK(sl_create(SL_C128, 1, &n, SL_COL_MAJOR, z, sizeof z, &hz));
    OK(sl_create(SL_C128, 1, &n, SL_COL_MAJOR, w, sizeof w, &hw));
    /* t = exp((z * w + conj(z)) / w * 0.1) * (1 - 2i) */
    OK(sl_mul(hz, hw, &p));
    OK(sl_conj(hz, &c));
    OK(sl_add(p, c, &s));
    OK(sl_div(s, hw, &q));
    OK(sl_mul_scalar(q, 0.1, &e));
    OK(sl_exp(e, &a));
    OK(sl_binary_scalar_c(SL_MUL, a, 1.0, -2.0, &t));
    OK(sl_read(t, SL_COL_MAJOR, out, sizeof out));
    double complex sum = 0;
    for (int i = 0; i < N; i++) {
        double complex want = cexp((z[i] * w[i] + conj(z[i])) / w[i] * 0.1) * (1.0 - 2.0 * I);
        EXPECT(close_to(out[i], want, 1e-13), "t[%d] = %g%+gi, want %g%+gi", i, creal(out[i]), cimag(out[i]),
               creal(want), cimag(want));
        sum += want;
    }
    sl_array total, modulus;
    OK(sl_sum(t, SL_ALL_DIMS, &total));
    double complex got_sum;
    OK(sl_read(total, SL_COL_MAJOR, &got_sum, sizeof got_sum));
    EXPECT(close_to(got_sum, sum, 1e-12), "sum %g%+gi, want %g%+gi", creal(got_sum), cimag(got_sum), creal(sum),
           cimag(sum));
    /* |z| is real, of the parts' type. */
    OK(sl_abs(hz, &modulus));
    sl_dtype dt;
    OK(sl_get_dtype(modulus, &dt));
    EXPECT(dt == SL_F64, "abs of c128 is f64, got %d", dt);
    static double m[N];
    OK(sl_read(modulus, SL_COL_MAJOR, m, sizeof m));
    for (int i = 0; i < N; i++) EXPECT(fabs(m[i] - cabs(z[i])) <= 1e-15 * cabs(z[i]), "|z[%d]|", i);
    /* Real to complex: a zero imaginary part. */
    double xs[3] = {1.5, -2, 0.25};
    double complex widened[3];
    sl_array hr = vector_f64(xs, 3), hc;
    OK(sl_cast(hr, SL_C128, &hc));
    OK(sl_read(hc, SL_COL_MAJOR, widened, sizeof widened));
    for (int i = 0; i < 3; i++) EXPECT(widened[i] == xs[i], "cast of %g to c128", xs[i]);
    /* Complex to real is refused: real or abs say which. */
    sl_array bad;
    FAILS(sl_cast(hz, SL_F64, &bad), SL_ERR_DTYPE_MISMATCH, "imaginary part");
    FAILS(sl_lt(hz, hw, &bad), SL_ERR_DTYPE_MISMATCH, "no order");
    OK(sl_scope_end());
}

static void float_complex_row_major(void) {
    enum { R = 7, C = 5 };
    static float complex a[R][C], back[R][C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) a[i][j] = (float)uniform(-1, 1) + (float)uniform(-1, 1) * I;
    OK(sl_scope_begin());
    int64_t dims[2] = {R, C};
    sl_array h, t, tt;
    OK(sl_create(SL_C64, 2, dims, SL_ROW_MAJOR, a, sizeof a, &h));
    OK(sl_transpose(h, &t));
    OK(sl_transpose(t, &tt));
    OK(sl_read(tt, SL_ROW_MAJOR, back, sizeof back));
    EXPECT(memcmp(a, back, sizeof a) == 0, "a row-major float complex matrix comes back as it went in");
    /* Element (i, j) of the transpose is a[j][i]. */
    float complex col[C];
    sl_array row;
    OK(sl_project(t, 1, 3, &row));
    OK(sl_read(row, SL_COL_MAJOR, col, sizeof col));
    for (int j = 0; j < C; j++) EXPECT(col[j] == a[3][j], "transpose element (%d, 3)", j);
    OK(sl_scope_end());
}

int main(void) {
    seed_rng("complex");
    double_complex();
    float_complex_row_major();
    sl_shutdown();
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
