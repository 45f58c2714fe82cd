/* Macros and random numbers from C: a random walk written with the SL_MACRO helper is
 * recorded once and replayed, each replay drawing new numbers exactly as running the
 * body again would; misuse inside a section is refused and leaves the runtime usable. */
#include <math.h>

#include "check.h"

#define N 4096
#define STEPS 20

static int body_runs = 0;

/* One step of the walk: x * exp(0.01 * z), z standard normal. */
static sl_array step_body(sl_array x, sl_rng rng) {
    int64_t n = N;
    sl_array z, dz, e, out;
    OK(sl_random_normal(rng, SL_F64, 1, &n, &z));
    OK(sl_mul_scalar(z, 0.01, &dz));
    OK(sl_exp(dz, &e));
    OK(sl_mul(x, e, &out));
    return out;
}

static sl_array walk(sl_array start, sl_rng rng, int use_macro) {
    sl_array x;
    OK(sl_retain(start, &x));
    for (int k = 0; k < STEPS; k++) {
        sl_array in[1] = {x}, out[1];
        if (use_macro) {
            SL_MACRO("walk_step", in, 1, NULL, 0, out, 1) {
                body_runs++;
                out[0] = step_body(in[0], rng);
            }
        } else {
            OK(sl_scope_begin());
            out[0] = step_body(x, rng);
            OK(sl_keep(out[0]));
            OK(sl_scope_end());
        }
        EXPECT(out[0] != 0, "step %d produced a result: %s", k, last_message());
        OK(sl_release(x));
        x = out[0];
    }
    return x;
}

int main(void) {
    unsigned seed = seed_rng("macro_rng");
    static double start[N], a[N], b[N];
    for (int i = 0; i < N; i++) start[i] = uniform(0.5, 2.0);
    sl_array hs = vector_f64(start, N);
    sl_rng rng;
    OK(sl_rng_create(SL_RNG_PHILOX, seed, &rng));

    sl_array with = walk(hs, rng, 1);
    OK(sl_read(with, SL_COL_MAJOR, a, sizeof a));
    EXPECT(body_runs == 1, "the section body ran %d times (recorded once)", body_runs);
    sl_cache_stats st;
    OK(sl_get_cache_stats(SL_CACHE_MACRO, &st));
    EXPECT(st.hits == STEPS - 1 && st.misses == 1, "hits %llu misses %llu", (unsigned long long)st.hits,
           (unsigned long long)st.misses);
    /* Compiled programs (Vulkan pipelines; none on the CPU): every one kept or evicted was a miss. */
    OK(sl_get_cache_stats(SL_CACHE_PROGRAM, &st));
    EXPECT(st.lookups == st.hits + st.misses && st.entries + st.evictions <= st.misses,
           "program cache: lookups %llu hits %llu misses %llu entries %llu evictions %llu",
           (unsigned long long)st.lookups, (unsigned long long)st.hits, (unsigned long long)st.misses,
           (unsigned long long)st.entries, (unsigned long long)st.evictions);
    uint64_t s, draw;
    OK(sl_rng_get_state(rng, &s, &draw));
    EXPECT(s == seed && draw == STEPS, "state (%llu, %llu)", (unsigned long long)s, (unsigned long long)draw);

    /* The same walk without the macro, from the same generator state: identical. */
    OK(sl_rng_set_state(rng, seed, 0));
    sl_array without = walk(hs, rng, 0);
    OK(sl_read(without, SL_COL_MAJOR, b, sizeof b));
    int differ = 0;
    double prod = 1.0;
    for (int i = 0; i < N; i++) {
        differ += a[i] != b[i];
        prod *= a[i] / start[i] > 0 ? 1.0 : 0.0;
    }
    EXPECT(differ == 0, "%d elements differ between replayed and plain runs", differ);
    EXPECT(prod == 1.0, "a multiplicative walk stays positive");

    /* Misuse inside a section: refused, and the section can be cancelled. */
    sl_array in[1] = {hs}, out[1];
    sl_macro_mode mode;
    OK(sl_macro_begin("misuse", in, 1, NULL, 0, out, 1, &mode));
    EXPECT(mode == SL_MACRO_RECORD, "first begin records");
    FAILS(sl_read(hs, SL_COL_MAJOR, a, sizeof a), SL_ERR_INVALID_STATE, "is recording");
    OK(sl_neg(in[0], &out[0]));
    FAILS(sl_macro_end(out, 0), SL_ERR_INVALID_ARGUMENT, "begun with 1 outputs but ended with 0");
    FAILS(sl_macro_cancel(), SL_ERR_INVALID_STATE, "without an open sl_macro_begin");
    /* The section closed: what it made and did not declare was released with it. */
    FAILS(sl_release(out[0]), SL_ERR_INVALID_HANDLE, "stale");
    OK(sl_read(with, SL_COL_MAJOR, b, sizeof b));

    OK(sl_release(with));
    OK(sl_release(without));
    OK(sl_release(hs));
    OK(sl_rng_destroy(rng));
    int64_t live;
    OK(sl_live_handles(&live));
    EXPECT(live == 0, "%lld handles leaked", (long long)live);
    OK(sl_shutdown());
    return failures ? 1 : 0;
}
