/* The special functions and the fused multiply-add from C, against the C library on random
 * inputs (f64 and f32): erfc into its tail, erfinv near ±1 (against a plain bisection on
 * erf/erfc, the C library having no erfinv), lgamma and tgamma across their poles and
 * zeros, fma where a * b + c would cancel; the special values C99 defines; bad arguments
 * (stale handle, null output, an integer array, mismatched shapes) refused with a message. */
#define _DEFAULT_SOURCE /* lgamma_r */
#include <math.h>
#include <stdint.h>

#include "check.h"

enum { N = 4000 };

/* erfinv by bisection to where erfc (for |x| >= 1/2, whose 1 - |x| is exact) or erf
 * crosses, then a Newton step. */
static double erfinv_reference(double x) {
    double a = fabs(x), lo = 0, hi = 6;
    if (a >= 1) return a == 1 ? copysign(INFINITY, x) : NAN; /* inputs within 2^-25 of ±1 are ±1 in f32 */
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        double g = a >= 0.5 ? erfc(mid) - (1 - a) : a - erf(mid);
        if (g > 0) lo = mid;
        else hi = mid;
    }
    double y = 0.5 * (lo + hi);
    double g = a >= 0.5 ? erfc(y) - (1 - a) : a - erf(y);
    return copysign(y + g / (1.1283791670955126 * exp(-y * y)), x);
}

/* Relative distance, with |want| below 1e-300 counted as 1e-300. */
static double rel(double got, double want) {
    if (isnan(want)) return isnan(got) ? 0 : INFINITY;
    if (isinf(want)) return got == want ? 0 : INFINITY;
    return fabs(got - want) / fmax(fabs(want), 1e-300);
}

typedef sl_status (*Fn)(sl_array, sl_array *);

/* fn of x (f64 and f32) against ref within tol64 and tol32 (relative). */
static void check(const char *name, Fn fn, double (*ref)(double), const double *x, double tol64, double tol32) {
    int64_t n = N;
    sl_array h64, h32, r64, r32;
    static double got64[N];
    static float x32[N], got32[N];
    for (int i = 0; i < N; i++) x32[i] = (float)x[i];
    h64 = vector_f64(x, N);
    OK(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, x32, sizeof x32, &h32));
    OK(fn(h64, &r64));
    OK(fn(h32, &r32));
    OK(sl_read(r64, SL_COL_MAJOR, got64, sizeof got64));
    OK(sl_read(r32, SL_COL_MAJOR, got32, sizeof got32));
    double worst64 = 0, worst32 = 0;
    for (int i = 0; i < N; i++) {
        double e64 = rel(got64[i], ref(x[i]));
        double want32 = ref((double)x32[i]);
        /* f32: relative to the f32-rounded result, or absolutely below f32's normal range. */
        double e32 = fabs(want32) < 1.2e-38 ? fabs(got32[i] - want32) / 1.2e-38 * tol32 : rel(got32[i], (float)want32);
        if (isinf((float)want32) || isnan(want32)) e32 = ((float)want32 == got32[i] || (isnan(want32) && isnan(got32[i]))) ? 0 : INFINITY;
        EXPECT(e64 <= tol64, "%s(%.17g) = %.17g, wanted %.17g", name, x[i], got64[i], ref(x[i]));
        EXPECT(e32 <= tol32, "%s(%.9g) f32 = %.9g, wanted %.9g", name, (double)x32[i], (double)got32[i], want32);
        if (e64 > worst64) worst64 = e64;
        if (e32 > worst32) worst32 = e32;
    }
    printf("%s: largest relative difference %.3g (f64), %.3g (f32)\n", name, worst64, worst32);
    OK(sl_release(h64));
    OK(sl_release(h32));
    OK(sl_release(r64));
    OK(sl_release(r32));
}

static double lgamma_reference(double x) {
    int sign;
    return lgamma_r(x, &sign);
}

int main(void) {
    seed_rng("special");
    static double x[N];

    /* erfc: both signs and the tail to underflow (f32 near 10.05, f64 near 27.2). */
    for (int i = 0; i < N; i++) x[i] = i % 4 == 0 ? uniform(-6, 6) : i % 4 == 1 ? uniform(0, 30) : uniform(-1, 1) * 3;
    check("erfc", sl_erfc, erfc, x, 2e-15, 3e-7);

    /* erfinv: the whole of (-1, 1), and within 1e-12 of ±1. */
    for (int i = 0; i < N; i++) x[i] = i % 2 ? uniform(-1, 1) : copysign(1 - pow(10, uniform(-15, -1)), uniform(-1, 1));
    check("erfinv", sl_erfinv, erfinv_reference, x, 3e-15, 3e-7);

    /* lgamma on (0, 200) (its zeros at 1 and 2 inside) and tgamma on (-20, 180) (poles, and
     * overflow past 171.6 in f64, 35.04 in f32). */
    for (int i = 0; i < N; i++) x[i] = i % 2 ? uniform(0, 200) : uniform(0.5, 3);
    check("lgamma", sl_lgamma, lgamma_reference, x, 3e-15, 3e-7);
    for (int i = 0; i < N; i++) x[i] = i % 2 ? uniform(-20, 40) : uniform(100, 180);
    check("tgamma", sl_tgamma, tgamma, x, 4e-15, 3e-7);

    /* Special values (C99 F.9.5). */
    double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -3.0, 1.0, 2.0, -1.0, 1.5};
    enum { S = sizeof sp / sizeof sp[0] };
    double out[S];
    sl_array hs = vector_f64(sp, S), r;
    OK(sl_lgamma(hs, &r));
    OK(sl_read(r, SL_COL_MAJOR, out, sizeof out));
    OK(sl_release(r));
    for (int i = 0; i < S; i++)
        EXPECT(rel(out[i], lgamma_reference(sp[i])) == 0 && signbit(out[i]) == signbit(lgamma_reference(sp[i])),
               "lgamma(%g) = %g", sp[i], out[i]);
    OK(sl_tgamma(hs, &r));
    OK(sl_read(r, SL_COL_MAJOR, out, sizeof out));
    OK(sl_release(r));
    for (int i = 0; i < S; i++)
        EXPECT(rel(out[i], tgamma(sp[i])) == 0 && (isnan(out[i]) || signbit(out[i]) == signbit(tgamma(sp[i]))),
               "tgamma(%g) = %g", sp[i], out[i]);
    OK(sl_erfinv(hs, &r));
    OK(sl_read(r, SL_COL_MAJOR, out, sizeof out));
    OK(sl_release(r));
    EXPECT(out[0] == 0 && !signbit(out[0]) && out[1] == 0 && signbit(out[1]), "erfinv(±0) = ±0");
    EXPECT(isnan(out[2]) && isnan(out[5]) && out[6] == INFINITY && out[8] == -INFINITY, "erfinv outside [-1, 1] and at ±1");

    /* fma(a, b, -round(a b)): the product's rounding error, which a * b + c loses. */
    static double a[N], b[N], c[N], f[N];
    for (int i = 0; i < N; i++) {
        a[i] = uniform(-10, 10), b[i] = uniform(-10, 10);
        c[i] = i % 2 ? -(a[i] * b[i]) : uniform(-100, 100);
    }
    sl_array ha = vector_f64(a, N), hb = vector_f64(b, N), hc = vector_f64(c, N), hf;
    OK(sl_fma(ha, hb, hc, &hf));
    OK(sl_read(hf, SL_COL_MAJOR, f, sizeof f));
    int exact = 0;
    for (int i = 0; i < N; i++) {
        EXPECT(f[i] == fma(a[i], b[i], c[i]), "fma(%.17g, %.17g, %.17g) = %.17g", a[i], b[i], c[i], f[i]);
        exact += i % 2 && f[i] != 0;
    }
    printf("fma: %d of %d products' rounding errors recovered\n", exact, N / 2);

    /* Bad arguments. */
    sl_array bad = 7, stale;
    OK(sl_erfc(hs, &stale));
    OK(sl_release(stale));
    FAILS(sl_lgamma(stale, &bad), SL_ERR_INVALID_HANDLE, "");
    FAILS(sl_tgamma(hs, NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    int64_t three = 3;
    int32_t ints[3] = {1, 2, 3};
    sl_array hi;
    OK(sl_create(SL_I32, 1, &three, SL_COL_MAJOR, ints, sizeof ints, &hi));
    FAILS(sl_erfinv(hi, &bad), SL_ERR_DTYPE_MISMATCH, "erfinv");
    FAILS(sl_fma(hi, hi, hi, &bad), SL_ERR_DTYPE_MISMATCH, "fma is defined for f32 and f64");
    FAILS(sl_fma(ha, hb, hs, &bad), SL_ERR_SHAPE_MISMATCH, "fma");
    FAILS(sl_fma(ha, stale, hc, &bad), SL_ERR_INVALID_HANDLE, "");
    EXPECT(bad == 0, "a failed call leaves the null handle");

    sl_array all[] = {hs, ha, hb, hc, hf, hi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
