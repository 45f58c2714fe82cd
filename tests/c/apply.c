/* Applying a function to pieces from C: sl_apply_elements, sl_apply_blocks (uneven
 * blocks with an explicit output size, overlap with clamping, sl_apply_block_length),
 * against values computed here in plain C; then every bad input, each with its status and
 * message, after which the runtime still works and nothing was cached. */
#include <math.h>

#include "check.h"

static sl_status fail_with(sl_status st) { return st; }
#define TRY(call)                         \
    do {                                  \
        sl_status t_ = (call);            \
        if (t_ != SL_OK) return fail_with(t_); \
    } while (0)

/* out = x * y + 1 (one value per element). */
static sl_status times_plus_one(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out, (void)user;
    sl_array t;
    TRY(sl_mul(p[0], p[1], &t));
    return sl_add_scalar(t, 1.0, &out[0]);
}

/* A 3 x 10 block: its column sums' first 8, repeated over 20 rows, plus the row index. */
static sl_status column_sums(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out, (void)user;
    sl_array s, t, u, rows;
    int64_t start[2] = {0, 0}, count[2] = {1, 8}, stride[2] = {1, 1}, dims[2] = {20, 8};
    TRY(sl_sum(p[0], 0, &s));
    TRY(sl_section(s, start, count, stride, &t));
    TRY(sl_broadcast_to(t, 2, dims, &u));
    TRY(sl_iota(SL_F64, 2, dims, 0, &rows));
    return sl_add(u, rows, &out[0]);
}

/* The mean of a window. */
static sl_status window_mean(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out, (void)user;
    return sl_mean(p[0], SL_ALL_DIMS, &out[0]);
}

/* How many of the block's elements are real. */
static sl_status real_length(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)p, (void)n_in, (void)n_out, (void)user;
    return sl_apply_block_length(&out[0]);
}

/* Misbehaving functions. */
static sl_status reads(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out, (void)user;
    double v;
    TRY(sl_read(p[0], SL_COL_MAJOR, &v, sizeof v));
    return sl_neg(p[0], &out[0]);
}
static sl_status uses_outside(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out;
    return sl_add(p[0], *(const sl_array *)user, &out[0]);
}
static sl_status gives_nothing(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)p, (void)n_in, (void)out, (void)n_out, (void)user;
    return SL_OK;
}
static sl_status refuses(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)p, (void)n_in, (void)out, (void)n_out, (void)user;
    return SL_ERR_NOT_SUPPORTED;
}
static sl_status draws(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out;
    sl_array r;
    int64_t none = 0;
    TRY(sl_random_uniform(*(const uint64_t *)user, SL_F64, 0, &none, &r));
    return sl_add(p[0], r, &out[0]);
}

static uint64_t macro_entries(void) {
    sl_cache_stats s;
    OK(sl_get_cache_stats(SL_CACHE_MACRO, &s));
    return s.entries;
}

int main(void) {
    seed_rng("apply");
    double a[10], b[10], m[100], v[20];
    for (int i = 0; i < 10; i++) a[i] = uniform(-1, 1), b[i] = uniform(-1, 1);
    for (int i = 0; i < 100; i++) m[i] = uniform(-1, 1);
    for (int i = 0; i < 20; i++) v[i] = uniform(-1, 1);
    int64_t col[2] = {10, 1}, row[2] = {1, 10}, sq[2] = {10, 10};
    sl_array ha, hb, hm, hv = vector_f64(v, 20);
    OK(sl_create(SL_F64, 2, col, SL_COL_MAJOR, a, sizeof a, &ha));
    OK(sl_create(SL_F64, 2, row, SL_COL_MAJOR, b, sizeof b, &hb));
    OK(sl_create(SL_F64, 2, sq, SL_COL_MAJOR, m, sizeof m, &hm));

    /* Elements: a 10 x 1 and a 1 x 10 expand to 10 x 10. */
    sl_array out, ins[2] = {ha, hb};
    double got[600];
    OK(sl_apply_elements(times_plus_one, NULL, ins, 2, NULL, 0, &out, 1));
    OK(sl_read(out, SL_COL_MAJOR, got, 100 * sizeof(double)));
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++)
            EXPECT(got[i + 10 * j] == a[i] * b[j] + 1, "(%d, %d): %g", i, j, got[i + 10 * j]);
    OK(sl_release(out));

    /* Blocks of 3 rows of a 10 x 10 (four blocks, the last padded with 0), each giving
     * 20 x 8, concatenated along the second dimension into 20 x 30. */
    sl_block_options o;
    OK(sl_block_options_default(&o));
    sl_block_output size = {SL_OUTPUT_SIZE, 2, {20, 30}};
    o.dim = 0, o.block_size = 3, o.outputs = &size, o.n_outputs = 1;
    OK(sl_apply_blocks(column_sums, NULL, &hm, 1, &o, &out, 1));
    OK(sl_read(out, SL_COL_MAJOR, got, 600 * sizeof(double)));
    for (int j = 0; j < 30; j++) {
        int k = j / 8, c = j % 8;
        double s = 0;
        for (int r = 3 * k; r < 3 * k + 3 && r < 10; r++) s += m[r + 10 * c];
        for (int i = 0; i < 20; i++)
            EXPECT(fabs(got[i + 20 * j] - (s + i)) <= 1e-12, "(%d, %d): %g, not %g", i, j, got[i + 20 * j], s + i);
    }
    OK(sl_release(out));

    /* A moving mean over 5 elements (block 1, overlap 2 each side), clamped at the ends,
     * one value per block. */
    OK(sl_block_options_default(&o));
    sl_block_output scalar = {SL_OUTPUT_SCALAR, 0, {0}};
    o.overlap_before = 2, o.overlap_after = 2, o.boundary = SL_BOUNDARY_CLAMP, o.outputs = &scalar, o.n_outputs = 1;
    OK(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &out, 1));
    OK(sl_read(out, SL_COL_MAJOR, got, 20 * sizeof(double)));
    for (int i = 0; i < 20; i++) {
        double s = 0;
        for (int d = -2; d <= 2; d++) s += v[i + d < 0 ? 0 : i + d > 19 ? 19 : i + d];
        EXPECT(fabs(got[i] - s / 5) <= 1e-12, "mean %d: %g, not %g", i, got[i], s / 5);
    }
    OK(sl_release(out));

    /* The real length of blocks of 3 of 10 elements: 3 3 3 1. */
    int64_t lengths[4];
    OK(sl_block_options_default(&o));
    o.block_size = 3, o.outputs = &scalar, o.n_outputs = 1;
    sl_array first10;
    int64_t s0 = 0, c10 = 10, one = 1;
    OK(sl_section(hv, &s0, &c10, &one, &first10));
    OK(sl_apply_blocks(real_length, NULL, &first10, 1, &o, &out, 1));
    OK(sl_read(out, SL_COL_MAJOR, lengths, sizeof lengths));
    EXPECT(lengths[0] == 3 && lengths[1] == 3 && lengths[2] == 3 && lengths[3] == 1, "%lld %lld %lld %lld",
           (long long)lengths[0], (long long)lengths[1], (long long)lengths[2], (long long)lengths[3]);
    OK(sl_release(out));

    /* Bad inputs: a status and a message naming the problem; nothing cached. */
    uint64_t entries = macro_entries();
    sl_array r = 7, bad[2] = {hm, hv};
    FAILS(sl_apply_elements(NULL, NULL, ins, 2, NULL, 0, &r, 1), SL_ERR_INVALID_ARGUMENT, "function is NULL");
    EXPECT(r == 0, "a failed call leaves the null handle");
    FAILS(sl_apply_elements(times_plus_one, NULL, ins, 2, NULL, 0, NULL, 1), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_apply_elements(times_plus_one, NULL, ins, 2, NULL, 0, &r, 0), SL_ERR_INVALID_ARGUMENT,
          "at least one output");
    FAILS(sl_apply_elements(times_plus_one, NULL, NULL, 2, NULL, 0, &r, 1), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_apply_elements(times_plus_one, NULL, bad, 2, NULL, 0, &r, 1), SL_ERR_SHAPE_MISMATCH,
          "input 1 has shape [20]");
    sl_array stale;
    OK(sl_neg(ha, &stale));
    OK(sl_release(stale));
    sl_array with_stale[2] = {ha, stale};
    FAILS(sl_apply_elements(times_plus_one, NULL, with_stale, 2, NULL, 0, &r, 1), SL_ERR_INVALID_HANDLE, "");
    FAILS(sl_apply_elements(reads, NULL, &ha, 1, NULL, 0, &r, 1), SL_ERR_INVALID_STATE, "the function failed");
    FAILS(sl_apply_elements(uses_outside, &hb, &ha, 1, NULL, 0, &r, 1), SL_ERR_INVALID_ARGUMENT,
          "neither one of its inputs");
    FAILS(sl_apply_elements(gives_nothing, NULL, &ha, 1, NULL, 0, &r, 1), SL_ERR_INVALID_HANDLE, "output 0");
    FAILS(sl_apply_elements(refuses, NULL, &ha, 1, NULL, 0, &r, 1), SL_ERR_NOT_SUPPORTED, "the function failed");
    uint64_t gen;
    OK(sl_rng_create(SL_RNG_PHILOX, 1, &gen));
    FAILS(sl_apply_elements(draws, &gen, &ha, 1, NULL, 0, &r, 1), SL_ERR_NOT_SUPPORTED, "random numbers");
    OK(sl_rng_destroy(gen));
    FAILS(sl_apply_block_length(&r), SL_ERR_INVALID_STATE, "sl_apply_blocks is recording");
    FAILS(sl_block_options_default(NULL), SL_ERR_INVALID_ARGUMENT, "options is NULL");

    OK(sl_block_options_default(&o));
    o.block_size = 0;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT, "block_size is 0");
    o.block_size = -2;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT, "block_size is -2");
    OK(sl_block_options_default(&o));
    o.overlap_after = 21;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT, "overlap_after is 21");
    OK(sl_block_options_default(&o));
    o.dim = 8;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT, "dim 8");
    OK(sl_block_options_default(&o));
    o.boundary = 5;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT, "boundary");
    OK(sl_block_options_default(&o));
    sl_block_output two[2] = {scalar, scalar};
    o.outputs = two, o.n_outputs = 2;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT,
          "2 output descriptors for 1 outputs");
    sl_block_output odd = {9, 0, {0}};
    o.outputs = &odd, o.n_outputs = 1;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT,
          "9 is not an sl_block_output_kind");
    sl_block_output big = {SL_OUTPUT_SIZE, 9, {0}};
    o.outputs = &big;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_INVALID_ARGUMENT, "rank 9");
    /* 20 x 40 cannot be made of four 20 x 8 results. */
    OK(sl_block_options_default(&o));
    sl_block_output wrong = {SL_OUTPUT_SIZE, 2, {20, 40}};
    o.dim = 0, o.block_size = 3, o.outputs = &wrong, o.n_outputs = 1;
    FAILS(sl_apply_blocks(column_sums, NULL, &hm, 1, &o, &r, 1), SL_ERR_SHAPE_MISMATCH, "output 0 of size [20, 40]");
    /* A window mean gives one value per block, not the aggregate size. */
    OK(sl_block_options_default(&o));
    o.block_size = 4;
    FAILS(sl_apply_blocks(window_mean, NULL, &hv, 1, &o, &r, 1), SL_ERR_SHAPE_MISMATCH, "aggregate size [20]");
    EXPECT(macro_entries() == entries, "a failed apply cached nothing (%llu entries, %llu before)",
           (unsigned long long)macro_entries(), (unsigned long long)entries);

    /* Still usable: the inputs read back, and an apply works. */
    double again[10];
    OK(sl_read(ha, SL_COL_MAJOR, again, sizeof again));
    for (int i = 0; i < 10; i++) EXPECT(again[i] == a[i], "input %d changed", i);
    OK(sl_apply_elements(times_plus_one, NULL, ins, 2, NULL, 0, &out, 1));
    OK(sl_read(out, SL_COL_MAJOR, got, 100 * sizeof(double)));
    EXPECT(got[3 + 10 * 7] == a[3] * b[7] + 1, "after the bad inputs: %g", got[37]);

    sl_release(out), sl_release(first10);
    sl_release(ha), sl_release(hb), sl_release(hm), sl_release(hv);
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures != 0;
}
