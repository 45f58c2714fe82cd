/* Result comparison from C, built with -g: a planted wrong op (SLUICE_TEST_PERTURB, set
 * before the runtime starts) is caught in compute mode, and the deferred error names the
 * op and this file's line; a peek at an intermediate gives its (wrong) value and leaves
 * the chain pending. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>

#include "check.h"

#define N 2000

int main(void) {
    setenv("SLUICE_TEST_PERTURB", "exp", 1);
    seed_rng("compare");
    double x[N];
    for (int i = 0; i < N; i++) x[i] = uniform(-2.0, 2.0);
    sl_array half, e, y, total;
    sl_array a = vector_f64(x, N);
    OK(sl_mul_scalar(a, 0.5, &half));
    OK(sl_exp(half, &e)); const int exp_line = __LINE__;
    OK(sl_add(e, a, &y));
    OK(sl_sum(y, SL_ALL_DIMS, &total));

    /* A peek at the (wrong) intermediate: the perturbed exp, 1/256 too large. */
    double peeked[N];
    OK(sl_debug_peek(e, SL_COL_MAJOR, peeked, sizeof peeked));
    for (int i = 0; i < N; i++) {
        const double want = exp(0.5 * x[i]) * (1.0 + 1.0 / 256.0);
        EXPECT(fabs(peeked[i] - want) <= 1e-12 * want, "peek %d: %g vs %g", i, peeked[i], want);
    }

    /* Comparison from here on: the chain, still pending after the peek, is checked when it runs. */
    sl_compare_settings settings = {SL_COMPARE_COMPUTE, SL_COMPARE_ERROR, -1.0, -1.0};
    OK(sl_set_compare(&settings));
    double sum = 0;
    char where[64];
    snprintf(where, sizeof where, "compare.c:%d", exp_line);
    FAILS(sl_read(total, SL_COL_MAJOR, &sum, sizeof sum), SL_ERR_POISONED, "result comparison (compute): exp made by sl_exp");
    FAILS(sl_read(total, SL_COL_MAJOR, &sum, sizeof sum), SL_ERR_POISONED, where);
    sl_compare_stats stats;
    OK(sl_get_compare_stats(&stats));
    EXPECT(stats.mismatches >= 1, "%llu mismatches", (unsigned long long)stats.mismatches);

    sl_array handles[5] = {a, half, e, y, total};
    for (int i = 0; i < 5; i++) OK(sl_release(handles[i]));
    OK(sl_shutdown());
    if (failures) return 1;
    printf("compare: all checks passed\n");
    return 0;
}
