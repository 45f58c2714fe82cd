/* Bad input from C: stale and forged handles (also of a runtime that was shut down),
 * null pointers, wrong shapes and types, sizes that overflow, out-of-range dimensions,
 * unbalanced scopes, and reading a poisoned array. Each gets its status and a message,
 * leaves the null handle, and the runtime keeps working afterwards. */
#include <math.h>

#include "check.h"

static int handler_calls = 0;
static sl_status handler_status = SL_OK;

static int on_error(sl_status status, const sl_error_info *info, void *user) {
    (void)info;
    (void)user;
    handler_calls++;
    handler_status = status;
    return 0;
}

/* A computation that must still give the right answer. */
static void still_works(void) {
    double v[4] = {1, 2, 3, 4}, out[4];
    OK(sl_scope_begin());
    sl_array h = vector_f64(v, 4), d;
    OK(sl_mul_scalar(h, 10, &d));
    OK(sl_read(d, SL_COL_MAJOR, out, sizeof out));
    for (int i = 0; i < 4; i++) EXPECT(out[i] == 10 * v[i], "still works: %g", out[i]);
    OK(sl_scope_end());
}

/* Sizes, offsets and strides that would overflow 64 bits are refused, and every failed
 * call leaves the null handle, whichever argument is wrong. */
static void refused_sizes_leave_the_null_handle(void) {
    double v[7];
    for (int i = 0; i < 7; i++) v[i] = uniform(-1, 1);
    sl_array a = vector_f64(v, 7), out;
    /* (count - 1) * stride wraps around 2^64 to an offset inside the array */
    int64_t starts[3] = {1, 0, 6}, counts[3] = {((int64_t)1 << 62) + 1, 3, 2}, strides[3] = {4, INT64_MIN + 1, INT64_MAX};
    for (int i = 0; i < 3; i++) {
        out = 99;
        FAILS(sl_section(a, &starts[i], &counts[i], &strides[i], &out), SL_ERR_INVALID_ARGUMENT, "leaves the array");
        EXPECT(out == 0, "section %d left %llu", i, (unsigned long long)out);
    }
    /* [1, 2^32] + [2^32] would be [2^32, 2^32]: more than SL_MAX_ELEMENTS */
    int64_t row_dims[2] = {1, (int64_t)1 << 32}, col_dims[1] = {(int64_t)1 << 32};
    sl_array row, col;
    OK(sl_constant(SL_F32, 2, row_dims, 1, &row));
    OK(sl_constant(SL_F32, 1, col_dims, 1, &col));
    out = 99;
    FAILS(sl_add(row, col, &out), SL_ERR_INVALID_ARGUMENT, "too large");
    EXPECT(out == 0, "broadcast left %llu", (unsigned long long)out);
    /* an empty array cannot carry a size beyond the limit either */
    int64_t empty_dims[2] = {0, 2}, reps[2] = {1, (int64_t)1 << 62}, too_many[2] = {0, SL_MAX_ELEMENTS + 1};
    sl_array empty;
    OK(sl_constant(SL_F32, 2, empty_dims, 0, &empty));
    out = 99;
    FAILS(sl_tile(empty, reps, 2, &out), SL_ERR_INVALID_ARGUMENT, "too large");
    EXPECT(out == 0, "tile left %llu", (unsigned long long)out);
    out = 99;
    FAILS(sl_constant(SL_F32, 2, too_many, 0, &out), SL_ERR_INVALID_ARGUMENT, "too large");
    EXPECT(out == 0, "constant left %llu", (unsigned long long)out);
    /* bad codes and arguments checked after the out-handle is cleared */
    int64_t negative = -1;
    out = 99;
    FAILS(sl_scalar_binary(99, 1.0, a, &out), SL_ERR_INVALID_ARGUMENT, "not an sl_binary_op");
    EXPECT(out == 0, "sl_scalar_binary left %llu", (unsigned long long)out);
    out = 99;
    FAILS(sl_reduce(99, a, 0, &out), SL_ERR_INVALID_ARGUMENT, "not an sl_reduce_op");
    EXPECT(out == 0, "sl_reduce left %llu", (unsigned long long)out);
    out = 99;
    FAILS(sl_unary(-1, a, &out), SL_ERR_INVALID_ARGUMENT, "not an sl_unary_op");
    EXPECT(out == 0, "sl_unary left %llu", (unsigned long long)out);
    out = 99;
    FAILS(sl_shift(a, 0, 1, 99, 0.0, &out), SL_ERR_INVALID_ARGUMENT, "not an sl_boundary");
    EXPECT(out == 0, "sl_shift left %llu", (unsigned long long)out);
    out = 99;
    FAILS(sl_reshape(a, 1, &negative, &out), SL_ERR_INVALID_ARGUMENT, "negative dimension");
    EXPECT(out == 0, "sl_reshape left %llu", (unsigned long long)out);
    sl_rng rng = 99;
    FAILS(sl_rng_create(9, 1, &rng), SL_ERR_INVALID_ARGUMENT, "not an sl_rng_kind");
    EXPECT(rng == 0, "sl_rng_create left %llu", (unsigned long long)rng);
    OK(sl_release(a));
    OK(sl_release(row));
    OK(sl_release(col));
    OK(sl_release(empty));
}

/* A runtime started after sl_shutdown hands out none of the old generator ids or array
 * handles, and refuses the old ones: a stale id never reaches (or destroys) a new one. */
static void handles_across_shutdown(void) {
    double v[2] = {uniform(0, 1), uniform(0, 1)};
    sl_rng old_rng, new_rng;
    OK(sl_rng_create(SL_RNG_PHILOX, 5, &old_rng));
    sl_array old_a = vector_f64(v, 2), out;
    OK(sl_shutdown());
    OK(sl_rng_create(SL_RNG_PHILOX, 6, &new_rng));
    sl_array new_a = vector_f64(v, 2);
    EXPECT(new_rng != old_rng, "generator id %llx handed out again", (unsigned long long)new_rng);
    EXPECT(new_a != old_a, "array handle %llx handed out again", (unsigned long long)new_a);
    FAILS(sl_rng_destroy(old_rng), SL_ERR_INVALID_HANDLE, "before sl_shutdown");
    FAILS(sl_exp(old_a, &out), SL_ERR_INVALID_HANDLE, "before sl_shutdown");
    uint64_t seed = 0, draw = 1;
    OK(sl_rng_get_state(new_rng, &seed, &draw));
    EXPECT(seed == 6 && draw == 0, "the new generator is untouched: seed %llu draw %llu", (unsigned long long)seed,
           (unsigned long long)draw);
    OK(sl_rng_destroy(new_rng));
    OK(sl_release(new_a));
    OK(sl_shutdown());
}

int main(void) {
    seed_rng("bad_input");
    /* A memory limit, so one computation can fail when it runs. */
    sl_config cfg;
    OK(sl_config_default(&cfg));
    cfg.memory_limit = 32u << 20;
    OK(sl_init(&cfg));

    double v[3] = {uniform(0, 1), uniform(0, 1), uniform(0, 1)};
    sl_array a = vector_f64(v, 3), out = 12345;

    /* stale, forged and null handles */
    sl_array stale;
    OK(sl_neg(a, &stale));
    OK(sl_release(stale));
    FAILS(sl_exp(stale, &out), SL_ERR_INVALID_HANDLE, "stale");
    EXPECT(out == 0, "failed call leaves the null handle in out");
    FAILS(sl_release(stale), SL_ERR_INVALID_HANDLE, "stale");
    FAILS(sl_exp((sl_array)42, &out), SL_ERR_INVALID_HANDLE, "invalid handle");
    FAILS(sl_exp(0, &out), SL_ERR_INVALID_HANDLE, "null handle");
    still_works();

    /* null pointers */
    FAILS(sl_exp(a, NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    int64_t n3 = 3;
    FAILS(sl_create(SL_F64, 1, &n3, SL_COL_MAJOR, NULL, 24, &out), SL_ERR_INVALID_ARGUMENT, "data is NULL");
    FAILS(sl_read(a, SL_COL_MAJOR, NULL, 24), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_last_error(NULL), SL_ERR_INVALID_ARGUMENT, "");
    still_works();

    /* wrong shapes and element types */
    double w[4] = {0};
    sl_array b = vector_f64(w, 4), i32;
    FAILS(sl_add(a, b, &out), SL_ERR_SHAPE_MISMATCH, "do not broadcast");
    OK(sl_cast(a, SL_I32, &i32));
    /* f64 with i32 promotes to f64 (README "Type promotion"), which has no bitwise and */
    FAILS(sl_and(a, i32, &out), SL_ERR_DTYPE_MISMATCH, "and is not defined for f64");
    FAILS(sl_sqrt(i32, &out), SL_ERR_DTYPE_MISMATCH, "not defined for i32");
    double small[2];
    FAILS(sl_read(a, SL_COL_MAJOR, small, sizeof small), SL_ERR_INVALID_ARGUMENT, "needs 24");
    still_works();

    /* out-of-range dimensions and bad codes */
    FAILS(sl_sum(a, 3, &out), SL_ERR_INVALID_ARGUMENT, "out of range");
    FAILS(sl_project(a, 0, 7, &out), SL_ERR_INVALID_ARGUMENT, "out of range");
    int64_t dims9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    FAILS(sl_constant(SL_F32, 9, dims9, 0, &out), SL_ERR_INVALID_ARGUMENT, "rank 9");
    FAILS(sl_constant(77, 1, &n3, 0, &out), SL_ERR_INVALID_ARGUMENT, "not an sl_dtype");
    still_works();

    /* unbalanced scopes */
    FAILS(sl_scope_end(), SL_ERR_INVALID_STATE, "without a matching");
    FAILS(sl_keep(a), SL_ERR_INVALID_STATE, "outside any scope");
    FAILS(sl_unscope(stale), SL_ERR_INVALID_HANDLE, "stale");
    FAILS(sl_unscope(0), SL_ERR_INVALID_HANDLE, "");
    /* sl_unscope takes a handle out of every scope: two scopes end, it stays. */
    int64_t live_before, live_after;
    sl_array held, temp;
    OK(sl_live_handles(&live_before));
    OK(sl_scope_begin());
    OK(sl_scope_begin());
    OK(sl_mul_scalar(a, 2, &held));
    OK(sl_mul_scalar(a, 3, &temp));
    OK(sl_unscope(held));
    OK(sl_unscope(held)); /* in no scope any more: nothing to do */
    OK(sl_scope_end());
    OK(sl_scope_end());
    OK(sl_live_handles(&live_after));
    EXPECT(live_after == live_before + 1, "only the unscoped handle outlives the scopes (%lld)",
           (long long)(live_after - live_before));
    FAILS(sl_release(temp), SL_ERR_INVALID_HANDLE, "");
    double twice[3];
    OK(sl_read(held, SL_COL_MAJOR, twice, sizeof twice));
    OK(sl_release(held));
    still_works();

    /* random number generators, caches and macros */
    sl_rng rng;
    OK(sl_rng_create(SL_RNG_FAST, 7, &rng));
    FAILS(sl_random_uniform(rng, SL_I32, 1, &n3, &out), SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    FAILS(sl_random_normal(a, SL_F64, 1, &n3, &out), SL_ERR_INVALID_HANDLE, "random number generator");
    sl_rng bad_rng;
    FAILS(sl_rng_create(9, 7, &bad_rng), SL_ERR_INVALID_ARGUMENT, "not an sl_rng_kind");
    OK(sl_rng_destroy(rng));
    FAILS(sl_rng_set_state(rng, 1, 2), SL_ERR_INVALID_HANDLE, "not a live");
    sl_cache_stats cs;
    FAILS(sl_get_cache_stats(5, &cs), SL_ERR_INVALID_ARGUMENT, "not a cache");
    FAILS(sl_get_cache_stats(SL_CACHE_MACRO, NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    sl_macro_mode mode;
    FAILS(sl_macro_begin(NULL, &a, 1, NULL, 0, &out, 1, &mode), SL_ERR_INVALID_ARGUMENT, "name is NULL");
    FAILS(sl_macro_begin("m", &stale, 1, NULL, 0, &out, 1, &mode), SL_ERR_INVALID_HANDLE, "stale");
    FAILS(sl_macro_end(&a, 1), SL_ERR_INVALID_STATE, "without an open sl_macro_begin");
    still_works();

    /* debugging: result comparison, references, peeks */
    sl_compare_settings bad_mode = {7, SL_COMPARE_ERROR, -1.0, -1.0};
    FAILS(sl_set_compare(&bad_mode), SL_ERR_INVALID_ARGUMENT, "not a comparison mode");
    FAILS(sl_set_compare(NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_get_compare(NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_get_compare_stats(NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_reference(stale, &out), SL_ERR_INVALID_HANDLE, "stale");
    sl_array doubled;
    OK(sl_add(a, a, &doubled));
    FAILS(sl_reference(doubled, &out), SL_ERR_INVALID_STATE, "no reference");
    double peek3[3];
    FAILS(sl_debug_peek(stale, SL_COL_MAJOR, peek3, sizeof peek3), SL_ERR_INVALID_HANDLE, "stale");
    FAILS(sl_debug_peek(doubled, SL_COL_MAJOR, NULL, sizeof peek3), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_debug_peek(doubled, SL_COL_MAJOR, peek3, 8), SL_ERR_INVALID_ARGUMENT, "needs");
    OK(sl_release(doubled));
    still_works();

    refused_sizes_leave_the_null_handle();
    still_works();

    /* an error handler sees each failure */
    OK(sl_push_error_handler(on_error, NULL));
    FAILS(sl_exp(0, &out), SL_ERR_INVALID_HANDLE, "null handle");
    EXPECT(handler_calls == 1 && handler_status == SL_ERR_INVALID_HANDLE, "handler called %d times", handler_calls);
    OK(sl_pop_error_handler());
    FAILS(sl_pop_error_handler(), SL_ERR_INVALID_STATE, "no error handler");

    /* a poisoned array: 2^24 doubles (128 MiB) exceed the 32 MiB limit when computed */
    int64_t big_n = (int64_t)1 << 24;
    sl_array big, big2, total, after;
    OK(sl_constant(SL_F64, 1, &big_n, 1.0, &big));
    OK(sl_add_scalar(big, 1.0, &big2));
    OK(sl_eval(&big2, 1));
    OK(sl_sum(big2, SL_ALL_DIMS, &total));
    double t;
    FAILS(sl_read(total, SL_COL_MAJOR, &t, sizeof t), SL_ERR_POISONED, "out of memory");
    sl_error_info info;
    OK(sl_last_error(&info));
    EXPECT(info.origin_function && strcmp(info.origin_function, "sl_add_scalar") == 0, "origin %s", info.origin_function ? info.origin_function : "(null)");
    EXPECT(info.origin_file && strstr(info.origin_file, "bad_input.c"), "origin file %s (built with -g)", info.origin_file ? info.origin_file : "(null)");
    OK(sl_add_scalar(total, 1, &after));
    FAILS(sl_read(after, SL_COL_MAJOR, &t, sizeof t), SL_ERR_POISONED, "out of memory");
    /* what was computed before is still there */
    double back[3];
    OK(sl_read(a, SL_COL_MAJOR, back, sizeof back));
    EXPECT(memcmp(back, v, sizeof v) == 0, "earlier array intact");
    still_works();

    OK(sl_shutdown());
    handles_across_shutdown();
    if (failures) {
        fprintf(stderr, "bad_input: %d failures\n", failures);
        return 1;
    }
    printf("bad_input: all checks passed\n");
    return 0;
}
