/* Monte Carlo price of a European call option, checked against Black-Scholes.
 *
 * The paths come in batches: one batch (normal draws from Sluice's Philox generator, the
 * terminal prices, the payoffs and their sums) is a code reuse section, recorded the
 * first time and replayed for every further batch, each replay drawing new numbers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sluice.h"

#define CHECK(call)                                                                  \
    do {                                                                             \
        if ((call) != SL_OK) {                                                       \
            sl_error_info e_;                                                        \
            sl_last_error(&e_);                                                      \
            fprintf(stderr, "%s failed: %s\n", #call, e_.message);                   \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

int main(void) {
    const double s0 = 100.0, strike = 105.0, rate = 0.05, sigma = 0.2, years = 1.0;
    const int64_t batch = (int64_t)1 << 18;
    const int batches = 16;
    const int64_t paths = batch * batches;

    sl_rng rng;
    CHECK(sl_rng_create(SL_RNG_PHILOX, 20261122, &rng));
    double m = 0.0, m2 = 0.0;
    int recorded = 0;
    for (int b = 0; b < batches; b++) {
        CHECK(sl_scope_begin()); /* this batch's handles are released at its end */
        sl_array sums[2];        /* sum of payoffs, sum of their squares */
        SL_MACRO("mc_batch", NULL, 0, NULL, 0, sums, 2) {
            recorded++;
            sl_array z, scaled, drift, growth, st, gain, payoff, squares;
            CHECK(sl_random_normal(rng, SL_F64, 1, &batch, &z));
            /* S_T = S0 * exp((r - sigma^2/2) T + sigma sqrt(T) Z) */
            CHECK(sl_mul_scalar(z, sigma * sqrt(years), &scaled));
            CHECK(sl_add_scalar(scaled, (rate - 0.5 * sigma * sigma) * years, &drift));
            CHECK(sl_exp(drift, &growth));
            CHECK(sl_mul_scalar(growth, s0, &st));
            /* payoff = max(S_T - K, 0) */
            CHECK(sl_sub_scalar(st, strike, &gain));
            CHECK(sl_max_scalar(gain, 0.0, &payoff));
            CHECK(sl_mul(payoff, payoff, &squares));
            CHECK(sl_sum(payoff, SL_ALL_DIMS, &sums[0]));
            CHECK(sl_sum(squares, SL_ALL_DIMS, &sums[1]));
        }
        double s, sq;
        CHECK(sl_read(sums[0], SL_COL_MAJOR, &s, sizeof s));
        CHECK(sl_read(sums[1], SL_COL_MAJOR, &sq, sizeof sq));
        CHECK(sl_scope_end());
        m += s / (double)paths;
        m2 += sq / (double)paths;
    }
    CHECK(sl_rng_destroy(rng));

    double discount = exp(-rate * years);
    double price = discount * m;
    double stderr_ = discount * sqrt((m2 - m * m) / (double)paths);
    double d1 = (log(s0 / strike) + (rate + 0.5 * sigma * sigma) * years) / (sigma * sqrt(years));
    double d2 = d1 - sigma * sqrt(years);
    double exact = s0 * normal_cdf(d1) - strike * discount * normal_cdf(d2);

    printf("European call, S0=%.0f K=%.0f r=%.2f sigma=%.2f T=%.0f, %lld paths in %d batches (%d recorded)\n", s0,
           strike, rate, sigma, years, (long long)paths, batches, recorded);
    printf("  Monte Carlo (Sluice): %.6f +- %.6f\n", price, stderr_);
    printf("  Black-Scholes:        %.6f\n", exact);
    double sigmas = fabs(price - exact) / stderr_;
    printf("  difference:           %.2f standard errors\n", sigmas);
    CHECK(sl_shutdown());
    if (recorded != 1) {
        printf("FAIL: the batch section was recorded %d times, not once\n", recorded);
        return 1;
    }
    if (sigmas > 4.0) {
        printf("FAIL: the Monte Carlo price is not within 4 standard errors of Black-Scholes\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
