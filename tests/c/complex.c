/* Complex arrays from C: C99 `double _Complex` and `float _Complex` buffers pass to
 * sl_create and sl_read as they are; arithmetic, conj, abs, exp, a complex scalar and a
 * sum are checked against <complex.h> on random inputs; sin ... tanh and pow against its
 * long double functions, with a complex constant, scatter adding and complex normals. */
#include <complex.h>
#include <float.h>
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

typedef sl_status (*unary_fn)(sl_array, sl_array *);

/* |got - want| <= units sqrt(2) eps |want| (README's bounds are per part, relative to
 * the part: 8 eps for sin, cos, sinh, cosh, 25 for tan, tanh). */
static int within(double complex got, long double complex want, double units) {
    return cabsl(got - want) <= units * sqrtl(2) * DBL_EPSILON * cabsl(want);
}

/* The bound on x^y in eps of |x^y| (tests/complex.rs derives it). */
static double pow_units(double complex x, double complex y) {
    double l = fabs(log(cabs(x))), t = fabs(carg(x)), p = fabs(creal(y)), q = fabs(cimag(y));
    return 4 * (p * l + q * t + p * t + q * l) + 3 * (p + q) + 5.5;
}

static void functions(void) {
    static double complex z[N], w[N], out[N];
    for (int i = 0; i < N; i++) {
        z[i] = uniform(-6, 6) + uniform(-6, 6) * I;
        w[i] = uniform(-2, 2) + uniform(-2, 2) * I;
    }
    OK(sl_scope_begin());
    int64_t n = N;
    sl_array hz, hw, r;
    OK(sl_create(SL_C128, 1, &n, SL_COL_MAJOR, z, sizeof z, &hz));
    OK(sl_create(SL_C128, 1, &n, SL_COL_MAJOR, w, sizeof w, &hw));
    struct {
        const char *name;
        unary_fn f;
        long double complex (*ref)(long double complex);
        double units;
    } cases[] = {{"sin", sl_sin, csinl, 8},    {"cos", sl_cos, ccosl, 8},    {"tan", sl_tan, ctanl, 25},
                 {"sinh", sl_sinh, csinhl, 8}, {"cosh", sl_cosh, ccoshl, 8}, {"tanh", sl_tanh, ctanhl, 25}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        OK(cases[k].f(hz, &r));
        OK(sl_read(r, SL_COL_MAJOR, out, sizeof out));
        for (int i = 0; i < N; i++) {
            long double complex want = cases[k].ref(z[i]);
            EXPECT(within(out[i], want, cases[k].units), "%s(%g%+gi) = %g%+gi, want %Lg%+Lgi", cases[k].name,
                   creal(z[i]), cimag(z[i]), creal(out[i]), cimag(out[i]), creall(want), cimagl(want));
        }
    }
    /* Powers: arrays, a complex scalar exponent, a complex scalar base. */
    const double complex s = 0.75 - 1.25 * I;
    for (int form = 0; form < 3; form++) {
        if (form == 0) OK(sl_pow(hz, hw, &r));
        if (form == 1) OK(sl_binary_scalar_c(SL_POW, hz, creal(s), cimag(s), &r));
        if (form == 2) OK(sl_scalar_binary_c(SL_POW, creal(s), cimag(s), hw, &r));
        OK(sl_read(r, SL_COL_MAJOR, out, sizeof out));
        for (int i = 0; i < N; i++) {
            double complex x = form == 2 ? s : z[i], y = form == 1 ? s : w[i];
            long double complex want = cpowl(x, y);
            EXPECT(within(out[i], want, pow_units(x, y)), "pow form %d: (%g%+gi)^(%g%+gi) = %g%+gi, want %Lg%+Lgi", form,
                   creal(x), cimag(x), creal(y), cimag(y), creal(out[i]), cimag(out[i]), creall(want), cimagl(want));
        }
    }
    /* Scatter adding w into a complex constant: repeated indices add up. */
    enum { M = 50 };
    int64_t m = M, idx[N];
    double complex acc[M], got[M];
    double size[M];
    for (int j = 0; j < M; j++) acc[j] = s, size[j] = cabs(s);
    for (int i = 0; i < N; i++) {
        idx[i] = (int64_t)uniform(0, M - 0.5);
        acc[idx[i]] += w[i];
        size[idx[i]] += cabs(w[i]);
    }
    sl_array base, hi, added, bad;
    OK(sl_constant_c(SL_C128, 1, &m, creal(s), cimag(s), &base));
    OK(sl_create(SL_I64, 1, &n, SL_COL_MAJOR, idx, sizeof idx, &hi));
    OK(sl_scatter(base, &hi, 1, hw, SL_SCATTER_ADD, &added));
    OK(sl_read(added, SL_COL_MAJOR, got, sizeof got));
    /* One rounding per addition, in any order. */
    for (int j = 0; j < M; j++)
        EXPECT(cabs(got[j] - acc[j]) <= 2 * DBL_EPSILON * (N + 1) * size[j], "scatter add at %d", j);
    FAILS(sl_scatter(base, &hi, 1, hw, SL_SCATTER_MIN, &bad), SL_ERR_DTYPE_MISMATCH, "no order");
    /* Complex normals: E|z|^2 = 1 within six standard errors (|z|^2 is exponential). */
    sl_rng g;
    OK(sl_rng_create(SL_RNG_PHILOX, (uint64_t)uniform(0, 1e9), &g));
    OK(sl_random_normal(g, SL_C128, 1, &n, &r));
    OK(sl_read(r, SL_COL_MAJOR, out, sizeof out));
    double power = 0;
    for (int i = 0; i < N; i++) power += creal(out[i] * conj(out[i]));
    EXPECT(fabs(power / N - 1) < 6 / sqrt(N), "complex normal E|z|^2 = %g", power / N);
    OK(sl_rng_destroy(g));
    OK(sl_scope_end());
}

int main(void) {
    seed_rng("complex");
    double_complex();
    functions();
    float_complex_row_major();
    sl_shutdown();
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
