/* Monte Carlo price of a European call option, checked against Black-Scholes.
 *
 * The paths' normal draws come from the host; Sluice computes the terminal prices,
 * payoffs, their mean and variance in one fused pass each. */
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

/* xorshift64* and Box-Muller: a fixed seed makes the example reproducible. */
static uint64_t state = 0x9E3779B97F4A7C15ull;
static double next_uniform(void) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return ((state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

int main(void) {
    const double s0 = 100.0, strike = 105.0, rate = 0.05, sigma = 0.2, years = 1.0;
    const int64_t paths = (int64_t)1 << 22;

    double *z = malloc(sizeof(double) * (size_t)paths);
    if (!z) return 1;
    for (int64_t i = 0; i < paths; i += 2) {
        double u1 = next_uniform(), u2 = next_uniform();
        double r = sqrt(-2.0 * log(u1 > 0 ? u1 : 1e-300)), t = 2.0 * M_PI * u2;
        z[i] = r * cos(t);
        if (i + 1 < paths) z[i + 1] = r * sin(t);
    }

    CHECK(sl_scope_begin());
    sl_array draws, scaled, drift, st, gain, payoff, mean, squares, mean_sq;
    CHECK(sl_create(SL_F64, 1, &paths, SL_COL_MAJOR, z, sizeof(double) * (size_t)paths, &draws));
    free(z);
    /* S_T = S0 * exp((r - sigma^2/2) T + sigma sqrt(T) Z) */
    CHECK(sl_mul_scalar(draws, sigma * sqrt(years), &scaled));
    CHECK(sl_add_scalar(scaled, (rate - 0.5 * sigma * sigma) * years, &drift));
    CHECK(sl_exp(drift, &st));
    CHECK(sl_mul_scalar(st, s0, &st));
    /* payoff = max(S_T - K, 0) */
    CHECK(sl_sub_scalar(st, strike, &gain));
    CHECK(sl_max_scalar(gain, 0.0, &payoff));
    CHECK(sl_mean(payoff, SL_ALL_DIMS, &mean));
    CHECK(sl_mul(payoff, payoff, &squares));
    CHECK(sl_mean(squares, SL_ALL_DIMS, &mean_sq));
    double m, m2;
    CHECK(sl_read(mean, SL_COL_MAJOR, &m, sizeof m));
    CHECK(sl_read(mean_sq, SL_COL_MAJOR, &m2, sizeof m2));
    CHECK(sl_scope_end());

    double discount = exp(-rate * years);
    double price = discount * m;
    double stderr_ = discount * sqrt((m2 - m * m) / (double)paths);
    double d1 = (log(s0 / strike) + (rate + 0.5 * sigma * sigma) * years) / (sigma * sqrt(years));
    double d2 = d1 - sigma * sqrt(years);
    double exact = s0 * normal_cdf(d1) - strike * discount * normal_cdf(d2);

    printf("European call, S0=%.0f K=%.0f r=%.2f sigma=%.2f T=%.0f, %lld paths\n", s0, strike, rate, sigma, years, (long long)paths);
    printf("  Monte Carlo (Sluice): %.6f +- %.6f\n", price, stderr_);
    printf("  Black-Scholes:        %.6f\n", exact);
    double sigmas = fabs(price - exact) / stderr_;
    printf("  difference:           %.2f standard errors\n", sigmas);
    CHECK(sl_shutdown());
    if (sigmas > 4.0) {
        printf("FAIL: the Monte Carlo price is not within 4 standard errors of Black-Scholes\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
