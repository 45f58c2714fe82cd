/* Type promotion from C (README "Type promotion"): mixed operands, the weak scalar forms,
 * a select with a scalar, and the Monte Carlo estimate of pi, each checked against plain C
 * on random inputs. */
#include <math.h>
#include <stdint.h>

#include "check.h"

#define N 4096

static sl_dtype dtype(sl_array a) {
    sl_dtype t;
    OK(sl_get_dtype(a, &t));
    return t;
}

/* An i32 array times an f32 array is f32; plus a double scalar stays f32; plus an integer
 * scalar (sl_binary_scalar_i) on the i32 array stays i32. */
static void mixed_operands(void) {
    static int32_t k[N];
    static float x[N], got[N];
    static int32_t got_i[N];
    for (int i = 0; i < N; i++) {
        k[i] = (int32_t)uniform(-1000, 1000);
        x[i] = (float)uniform(-4, 4);
    }
    int64_t n = N;
    sl_array hk, hx, p, q, r;
    OK(sl_create(SL_I32, 1, &n, SL_COL_MAJOR, k, sizeof k, &hk));
    OK(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, x, sizeof x, &hx));
    OK(sl_mul(hk, hx, &p));
    OK(sl_add_scalar(p, 0.25, &q));
    EXPECT(dtype(q) == SL_F32, "i32 * f32 + 0.25 is f32, got type %d", dtype(q));
    OK(sl_read(q, SL_COL_MAJOR, got, sizeof got));
    for (int i = 0; i < N; i++) {
        float want = (float)k[i] * x[i] + 0.25f;
        EXPECT(got[i] == want, "element %d: %.9g, want %.9g", i, got[i], want);
    }
    OK(sl_binary_scalar_i(SL_MUL, hk, 3, &r));
    EXPECT(dtype(r) == SL_I32, "i32 * 3 is i32, got type %d", dtype(r));
    OK(sl_read(r, SL_COL_MAJOR, got_i, sizeof got_i));
    for (int i = 0; i < N; i++) EXPECT(got_i[i] == 3 * k[i], "element %d: %d, want %d", i, got_i[i], 3 * k[i]);
    FAILS(sl_binary_scalar_i(SL_ADD, hk, INT64_C(1) << 40, &r), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
    sl_array all[] = {hk, hx, p, q};
    for (int i = 0; i < 4; i++) OK(sl_release(all[i]));
}

/* 4.0 * count(inside) / n is the f64 estimate, not an integer. */
static void monte_carlo_pi(void) {
    static double x[N], y[N];
    int inside = 0;
    for (int i = 0; i < N; i++) {
        x[i] = uniform(0, 1);
        y[i] = uniform(0, 1);
        inside += x[i] * x[i] + y[i] * y[i] <= 1.0;
    }
    OK(sl_scope_begin());
    sl_array hx = vector_f64(x, N), hy = vector_f64(y, N), xx, yy, r2, in, c, four_c, pi;
    OK(sl_mul(hx, hx, &xx));
    OK(sl_mul(hy, hy, &yy));
    OK(sl_add(xx, yy, &r2));
    OK(sl_binary_scalar(SL_LE, r2, 1.0, &in));
    OK(sl_count(in, SL_ALL_DIMS, &c));
    OK(sl_scalar_binary(SL_MUL, 4.0, c, &four_c));
    OK(sl_div_scalar(four_c, (double)N, &pi));
    EXPECT(dtype(pi) == SL_F64, "the estimate is f64, got type %d", dtype(pi));
    double got;
    OK(sl_read(pi, SL_COL_MAJOR, &got, sizeof got));
    EXPECT(got == 4.0 * inside / N, "pi estimate %.17g, want %.17g", got, 4.0 * inside / N);
    OK(sl_scope_end());
}

/* cond ? a : 0 and cond ? -1.5 : a (PeakStream's cond(p, a, 0.0f)); the f32 array keeps
 * its type. */
static void select_with_scalars(void) {
    static float x[N], got[N];
    for (int i = 0; i < N; i++) x[i] = (float)uniform(-2, 2);
    OK(sl_scope_begin());
    int64_t n = N;
    sl_array hx, positive, kept, other;
    OK(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, x, sizeof x, &hx));
    OK(sl_binary_scalar(SL_GT, hx, 0.0, &positive));
    OK(sl_select_scalar(positive, hx, 0.0, &kept));
    EXPECT(dtype(kept) == SL_F32, "select of f32 with a scalar is f32, got type %d", dtype(kept));
    OK(sl_read(kept, SL_COL_MAJOR, got, sizeof got));
    for (int i = 0; i < N; i++) {
        float want = x[i] > 0 ? x[i] : 0.0f;
        EXPECT(got[i] == want, "cond(p, a, 0) element %d: %.9g, want %.9g", i, got[i], want);
    }
    OK(sl_scalar_select(positive, -1.5, hx, &other));
    OK(sl_read(other, SL_COL_MAJOR, got, sizeof got));
    for (int i = 0; i < N; i++) {
        float want = x[i] > 0 ? -1.5f : x[i];
        EXPECT(got[i] == want, "cond(p, -1.5, a) element %d: %.9g, want %.9g", i, got[i], want);
    }
    OK(sl_scope_end());
}

int main(void) {
    seed_rng("promotion");
    mixed_operands();
    monte_carlo_pi();
    select_with_scalars();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("promotion: ok\n");
    return 0;
}
