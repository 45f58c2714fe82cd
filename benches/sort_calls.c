/* The loop a user writes to sort: `sort_calls LOG REPS WHAT` makes 2^LOG uniform f32
 * values in [0, 1) (a fixed hash of the index, so every radix digit varies), then times
 * REPS rounds of sl_sort (WHAT 0) or sl_argsort (WHAT 1) followed by sl_read of the
 * result and sl_release, after one untimed round, and prints the median and the
 * fastest round in nanoseconds ("median_ns min_ns"). scripts/bench_sort.py --driver runs
 * it alternately with numpy's np.sort. Build against a libsluice:
 *   cc -O2 -Ibuild/install/include benches/sort_calls.c -o build/sort_calls \
 *      -Lbuild/install/lib -lsluice -Wl,-rpath,$PWD/build/install/lib */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sluice.h"
#define CHECK(c) do { if ((c) != SL_OK) { fprintf(stderr, "failed: %s\n", #c); exit(1); } } while (0)
static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
static int by_value(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}
int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s LOG REPS WHAT (0: sort, 1: argsort)\n", argv[0]);
        return 2;
    }
    int log = atoi(argv[1]), reps = atoi(argv[2]), arg = atoi(argv[3]);
    if (log < 1 || log > 30 || reps < 1) {
        fprintf(stderr, "LOG in 1..30, REPS at least 1\n");
        return 2;
    }
    int64_t n = (int64_t)1 << log;
    float *x = malloc(n * sizeof(float));
    size_t out_bytes = n * (arg ? sizeof(int64_t) : sizeof(float));
    void *out = malloc(out_bytes);
    int64_t *times = malloc(reps * sizeof(int64_t));
    if (!x || !out || !times) return 1;
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = (uint64_t)i * 0x9e3779b97f4a7c15u;
        h = ((h << 17) | (h >> 47)) * 0xbf58476d1ce4e5b9u;
        x[i] = (float)(h >> 40) / (float)(1 << 24);
    }
    sl_array a;
    CHECK(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, x, n * sizeof(float), &a));
    for (int r = -1; r < reps; r++) {
        int64_t t = now_ns();
        sl_array s;
        CHECK(arg ? sl_argsort(a, 0, SL_ASCENDING, &s) : sl_sort(a, 0, SL_ASCENDING, &s));
        CHECK(sl_read(s, SL_COL_MAJOR, out, out_bytes));
        CHECK(sl_release(s));
        if (r >= 0) times[r] = now_ns() - t;
    }
    for (int64_t i = 1; i < n; i++) {
        int ok = arg ? x[((int64_t *)out)[i - 1]] <= x[((int64_t *)out)[i]]
                     : ((float *)out)[i - 1] <= ((float *)out)[i];
        if (!ok) {
            fprintf(stderr, "not sorted at %lld\n", (long long)i);
            return 1;
        }
    }
    qsort(times, reps, sizeof(int64_t), by_value);
    printf("%lld %lld\n", (long long)times[reps / 2], (long long)times[0]);
    CHECK(sl_release(a));
    CHECK(sl_shutdown());
    free(x);
    free(out);
    free(times);
    return 0;
}
