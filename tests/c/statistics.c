/* Statistics and scans from C: the sample variance of data with a large mean and a tiny
 * spread (where E[x^2] - E[x]^2 fails) against a two-pass loop, the Frobenius norm of a
 * matrix whose squares overflow in f32, a running maximum with ties and an exclusive
 * cumulative sum against plain loops, on random inputs; a complex running maximum is
 * refused. */
#include <float.h>
#include <math.h>

#include "check.h"

enum { N = 1000, R = 20, C = 7 };

int main(void) {
    seed_rng("statistics");

    /* Sample variance (ddof 1) of mean 1e9, spread 1e-3. */
    /* The mean in long double (x87: 64-bit significand), so its rounding error, squared,
     * is far below the bound. */
    double x[N], ss = 0;
    long double total = 0;
    for (int i = 0; i < N; i++) x[i] = 1e9 + uniform(-1e-3, 1e-3);
    for (int i = 0; i < N; i++) total += x[i];
    double mean = (double)(total / N);
    for (int i = 0; i < N; i++) ss += (x[i] - mean) * (x[i] - mean);
    double want_var = ss / (N - 1), got_var;
    sl_array hx = vector_f64(x, N), hv, hs;
    OK(sl_var(hx, SL_ALL_DIMS, 1, &hv));
    OK(sl_read(hv, SL_COL_MAJOR, &got_var, sizeof got_var));
    EXPECT(fabs(got_var - want_var) <= 1e-6 * want_var, "var %.17g, want %.17g", got_var, want_var);
    double got_std;
    OK(sl_std(hx, SL_ALL_DIMS, 1, &hs));
    OK(sl_read(hs, SL_COL_MAJOR, &got_std, sizeof got_std));
    EXPECT(fabs(got_std - sqrt(want_var)) <= 1e-6 * sqrt(want_var), "std %.17g", got_std);

    /* Frobenius norm of an f32 matrix of values near 1e30 (their squares overflow f32). */
    float m[R * C];
    double fro = 0;
    for (int i = 0; i < R * C; i++) {
        m[i] = (float)(uniform(0.5, 2.0) * 1e30);
        fro += ((double)m[i] / 1e30) * ((double)m[i] / 1e30);
    }
    fro = sqrt(fro) * 1e30;
    int64_t dims[2] = {R, C};
    sl_array hm, hn;
    OK(sl_create(SL_F32, 2, dims, SL_COL_MAJOR, m, sizeof m, &hm));
    OK(sl_reduce_dims(SL_NORM2, hm, 0x3, &hn));
    float got_fro;
    OK(sl_read(hn, SL_COL_MAJOR, &got_fro, sizeof got_fro));
    EXPECT(isfinite(got_fro) && fabs(got_fro - fro) <= 1e-5 * fro, "Frobenius %g, want %g", got_fro, fro);

    /* Running maximum with ties, and an exclusive running sum, along dimension 1 of an
     * integer matrix. */
    int32_t k[R * C];
    for (int i = 0; i < R * C; i++) k[i] = (int32_t)uniform(-3, 3);
    sl_array hk, hmax, hsum;
    OK(sl_create(SL_I32, 2, dims, SL_COL_MAJOR, k, sizeof k, &hk));
    OK(sl_cummax(hk, 1, &hmax));
    OK(sl_scan(SL_SCAN_SUM, hk, 1, 1, &hsum));
    int32_t got_max[R * C];
    int64_t got_sum[R * C];
    OK(sl_read(hmax, SL_COL_MAJOR, got_max, sizeof got_max));
    OK(sl_read(hsum, SL_COL_MAJOR, got_sum, sizeof got_sum));
    for (int i = 0; i < R; i++) {
        int32_t best = INT32_MIN;
        int64_t before = 0;
        for (int j = 0; j < C; j++) {
            EXPECT(got_sum[i + R * j] == before, "exclusive cumsum (%d, %d)", i, j);
            before += k[i + R * j];
            if (k[i + R * j] > best) best = k[i + R * j];
            EXPECT(got_max[i + R * j] == best, "cummax (%d, %d)", i, j);
        }
    }

    sl_array hz, bad = 7;
    OK(sl_complex(hx, hx, &hz));
    FAILS(sl_cummax(hz, 0, &bad), SL_ERR_DTYPE_MISMATCH, "no order");
    EXPECT(bad == 0, "a failed call leaves the null handle");

    sl_array all[] = {hx, hv, hs, hm, hn, hk, hmax, hsum, hz};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
