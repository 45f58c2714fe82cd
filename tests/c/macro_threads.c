/* Macros and threads from C: threads that begin the same section at once each get its
 * results (the SL_MACRO body runs whenever the section is not replayed); a stray
 * sl_scope_end inside a recording is refused and the recording still ends; a section that
 * cannot begin (inside itself) still runs its body. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>

#include "check.h"

enum { N = 512, THREADS = 8, ROUNDS = 20 };

static double shared_values[N];
static sl_array shared;
static pthread_barrier_t start;

/* out = x * 0.5 + shared, as a section named `name`. */
static sl_array step(const char *name, sl_array x, int *recorded) {
    sl_array in[2] = {x, shared}, out[1] = {0};
    SL_MACRO(name, in, 2, NULL, 0, out, 1) {
        sl_array half;
        OK(sl_mul_scalar(in[0], 0.5, &half));
        OK(sl_add(half, in[1], &out[0]));
        (*recorded)++;
    }
    return out[0];
}

/* Each round every thread waits for the others, then begins the same new section. */
static void *worker(void *arg) {
    unsigned seed = *(unsigned *)arg;
    static double x[THREADS][N], got[THREADS][N];
    double *mine = x[seed % THREADS], *g = got[seed % THREADS];
    int recorded = 0;
    for (int round = 0; round < ROUNDS; round++) {
        char name[32];
        snprintf(name, sizeof name, "c_threads_%d", round);
        for (int i = 0; i < N; i++) mine[i] = (double)rand_r(&seed) / RAND_MAX * 4.0 - 2.0;
        sl_array hx = vector_f64(mine, N);
        pthread_barrier_wait(&start);
        sl_array out = step(name, hx, &recorded);
        EXPECT(out != 0, "round %d: the section has an output", round);
        if (out != 0) {
            OK(sl_read(out, SL_COL_MAJOR, g, N * sizeof(double)));
            for (int i = 0; i < N; i++) {
                double want = mine[i] * 0.5 + shared_values[i];
                if (g[i] != want) {
                    EXPECT(g[i] == want, "round %d [%d]: %.17g vs %.17g", round, i, g[i], want);
                    break;
                }
            }
            OK(sl_release(out));
        }
        OK(sl_release(hx));
    }
    printf("a thread recorded %d of %d sections\n", recorded, ROUNDS);
    return NULL;
}

int main(void) {
    unsigned seed = seed_rng("macro_threads");
    for (int i = 0; i < N; i++) shared_values[i] = uniform(-1.0, 1.0);
    shared = vector_f64(shared_values, N);

    /* Sections begun by all threads at once. */
    pthread_t threads[THREADS];
    unsigned seeds[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) {
        seeds[t] = seed * THREADS + (unsigned)t;
        pthread_create(&threads[t], NULL, worker, &seeds[t]);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    pthread_barrier_destroy(&start);

    /* A stray sl_scope_end inside a recording: refused; the section still ends, and
     * replays next time. */
    sl_array x = vector_f64(shared_values, N), in[1] = {x}, out[1];
    int64_t live_before;
    OK(sl_live_handles(&live_before));
    OK(sl_scope_begin());
    for (int k = 0; k < 2; k++) {
        int ran = 0;
        SL_MACRO("c_stray_scope_end", in, 1, NULL, 0, out, 1) {
            ran = 1;
            FAILS(sl_scope_end(), SL_ERR_INVALID_STATE, "inside the macro section being recorded");
            OK(sl_neg(in[0], &out[0]));
        }
        EXPECT(ran == (k == 0), "the body runs once (run %d: %d)", k, ran);
        double got[N];
        OK(sl_read(out[0], SL_COL_MAJOR, got, sizeof got));
        EXPECT(got[7] == -shared_values[7], "negated: %g", got[7]);
    }
    OK(sl_scope_end());
    int64_t live_after;
    OK(sl_live_handles(&live_after));
    EXPECT(live_after == live_before, "the scope released the outputs: %lld vs %lld", (long long)live_after,
           (long long)live_before);

    /* A section inside itself cannot begin: its body runs as plain calls, recorded as
     * part of the outer section. */
    int inner_ran = 0;
    SL_MACRO("c_self", in, 1, NULL, 0, out, 1) {
        sl_array inner_out[1] = {0};
        SL_MACRO("c_self", in, 1, NULL, 0, inner_out, 1) {
            inner_ran = 1;
            OK(sl_mul_scalar(in[0], 3.0, &inner_out[0]));
        }
        OK(sl_add_scalar(inner_out[0], 1.0, &out[0]));
    }
    EXPECT(inner_ran, "the body of a section that could not begin ran");
    double got[N];
    OK(sl_read(out[0], SL_COL_MAJOR, got, sizeof got));
    EXPECT(fabs(got[3] - (shared_values[3] * 3.0 + 1.0)) <= 1e-15, "3x + 1: %g", got[3]);
    OK(sl_release(out[0]));
    OK(sl_release(x));
    OK(sl_release(shared));
    OK(sl_shutdown());
    if (failures) {
        printf("FAIL (%d)\n", failures);
        return 1;
    }
    printf("OK\n");
    return 0;
}
