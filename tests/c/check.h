/* Helpers shared by the C tests. */
#ifndef SLUICE_TEST_CHECK_H
#define SLUICE_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sluice.h"

static int failures = 0;

static const char *last_message(void) {
    sl_error_info info;
    sl_last_error(&info);
    return info.message ? info.message : "";
}

/* A call that must succeed. */
#define OK(call)                                                                         \
    do {                                                                                 \
        sl_status st_ = (call);                                                          \
        if (st_ != SL_OK) {                                                              \
            fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #call,    \
                    st_, last_message());                                                \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* A call that must fail with `want`, with a message containing `needle`. */
#define FAILS(call, want, needle)                                                        \
    do {                                                                                 \
        sl_status st_ = (call);                                                          \
        const char *m_ = last_message();                                                 \
        if (st_ != (want) || strstr(m_, (needle)) == NULL) {                             \
            fprintf(stderr, "%s:%d: %s returned %d (wanted %d), message \"%s\"\n",       \
                    __FILE__, __LINE__, #call, st_, (want), m_);                         \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond);          \
            fprintf(stderr, __VA_ARGS__);                                                \
            fprintf(stderr, "\n");                                                       \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

/* Fresh random inputs each run; SLUICE_TEST_SEED replays one. */
static unsigned seed_rng(const char *test) {
    const char *s = getenv("SLUICE_TEST_SEED");
    unsigned seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)clock();
    printf("%s: SLUICE_TEST_SEED=%u\n", test, seed);
    srand(seed);
    return seed;
}

static double uniform(double lo, double hi) {
    return lo + (hi - lo) * ((double)rand() / (double)RAND_MAX);
}

static sl_array vector_f64(const double *v, int64_t n) {
    sl_array h;
    OK(sl_create(SL_F64, 1, &n, SL_COL_MAJOR, v, (size_t)n * sizeof(double), &h));
    return h;
}

#endif
