/* A fixed amount of random-number work, for measuring CPU time per value (`perf stat -e
 * task-clock` adds the worker threads' time, which a shared machine's other tenants do
 * not inflate the way they inflate wall-clock time): `random_calls REPS DIST TYPE GEN`
 * draws REPS arrays of 2^24 values and computes each (stored, not read back), with
 *   DIST 0: uniform, 1: normal;  TYPE 0: f32, 1: f64;  GEN 0: Philox, 1: the fast hash.
 * Build against a libsluice (see BENCHMARKS.md, "Random numbers"). */
#include <stdio.h>
#include <stdlib.h>
#include "sluice.h"
#define CHECK(c) do { if ((c) != SL_OK) { fprintf(stderr, "failed: %s\n", #c); exit(1); } } while (0)
int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s REPS DIST TYPE GEN\n", argv[0]);
        return 2;
    }
    int reps = atoi(argv[1]), normal = atoi(argv[2]), wide = atoi(argv[3]), fast = atoi(argv[4]);
    sl_rng rng;
    CHECK(sl_rng_create(fast ? SL_RNG_FAST : SL_RNG_PHILOX, 1, &rng));
    int64_t n = (int64_t)1 << 24;
    sl_dtype t = wide ? SL_F64 : SL_F32;
    for (int i = 0; i < reps; i++) {
        sl_array a;
        CHECK(normal ? sl_random_normal(rng, t, 1, &n, &a) : sl_random_uniform(rng, t, 1, &n, &a));
        CHECK(sl_eval(&a, 1));
        CHECK(sl_sync());
        CHECK(sl_release(a));
    }
    CHECK(sl_rng_destroy(rng));
    CHECK(sl_shutdown());
    return 0;
}
