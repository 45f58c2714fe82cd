/* One fuzzer per API call: each draws its arguments (mostly sensible, sometimes bad),
 * works out what the call must do (the status it must return, or the shape, type and
 * values of its result), makes the call and checks it. The x_* executors take explicit
 * arguments so that macro templates can use them too. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define COUNT(a) (int)(sizeof(a) / sizeof *(a))
#define BAD_ARG SL_ERR_INVALID_ARGUMENT
#define BAD_HANDLE SL_ERR_INVALID_HANDLE
#define BAD_SHAPE SL_ERR_SHAPE_MISMATCH
#define BAD_DTYPE SL_ERR_DTYPE_MISMATCH

typedef sl_status (*Fn1)(sl_array, sl_array *);
typedef sl_status (*Fn2)(sl_array, sl_array, sl_array *);
typedef sl_status (*FnS)(sl_array, double, sl_array *);
typedef sl_status (*FnR)(sl_array, int32_t, sl_array *);

static const struct {
    const char *name;
    Fn1 fn;
} unary_fns[] = {
    {"sl_neg", sl_neg},     {"sl_abs", sl_abs},       {"sl_sign", sl_sign},   {"sl_sqrt", sl_sqrt},   {"sl_rsqrt", sl_rsqrt},
    {"sl_cbrt", sl_cbrt},   {"sl_rcp", sl_rcp},       {"sl_exp", sl_exp},     {"sl_exp2", sl_exp2},   {"sl_expm1", sl_expm1},
    {"sl_log", sl_log},     {"sl_log2", sl_log2},     {"sl_log10", sl_log10}, {"sl_log1p", sl_log1p}, {"sl_sin", sl_sin},
    {"sl_cos", sl_cos},     {"sl_tan", sl_tan},       {"sl_asin", sl_asin},   {"sl_acos", sl_acos},   {"sl_atan", sl_atan},
    {"sl_sinh", sl_sinh},   {"sl_cosh", sl_cosh},     {"sl_tanh", sl_tanh},   {"sl_asinh", sl_asinh}, {"sl_acosh", sl_acosh},
    {"sl_atanh", sl_atanh}, {"sl_erf", sl_erf},       {"sl_floor", sl_floor}, {"sl_ceil", sl_ceil},   {"sl_round", sl_round},
    {"sl_trunc", sl_trunc}, {"sl_isnan", sl_isnan},   {"sl_isinf", sl_isinf}, {"sl_not", sl_not},
};

/* The special functions, SL_ERFC .. SL_TGAMMA. */
static const struct {
    const char *name;
    Fn1 fn;
} special_fns[] = {
    {"sl_erfc", sl_erfc}, {"sl_erfinv", sl_erfinv}, {"sl_lgamma", sl_lgamma}, {"sl_tgamma", sl_tgamma},
};

static const struct {
    const char *name;
    Fn2 fn;
} binary_fns[] = {
    {"sl_add", sl_add}, {"sl_sub", sl_sub}, {"sl_mul", sl_mul},     {"sl_div", sl_div},     {"sl_rem", sl_rem},
    {"sl_pow", sl_pow}, {"sl_atan2", sl_atan2}, {"sl_hypot", sl_hypot}, {"sl_min", sl_min}, {"sl_max", sl_max},
    {"sl_eq", sl_eq},   {"sl_ne", sl_ne},   {"sl_lt", sl_lt},       {"sl_le", sl_le},       {"sl_gt", sl_gt},
    {"sl_ge", sl_ge},   {"sl_and", sl_and}, {"sl_or", sl_or},       {"sl_xor", sl_xor},
};

static const struct {
    const char *name;
    FnS fn;
    int op, scalar_first;
} scalar_fns[] = {
    {"sl_add_scalar", sl_add_scalar, SL_ADD, 0},   {"sl_sub_scalar", sl_sub_scalar, SL_SUB, 0},
    {"sl_rsub_scalar", sl_rsub_scalar, SL_SUB, 1}, {"sl_mul_scalar", sl_mul_scalar, SL_MUL, 0},
    {"sl_div_scalar", sl_div_scalar, SL_DIV, 0},   {"sl_rdiv_scalar", sl_rdiv_scalar, SL_DIV, 1},
    {"sl_pow_scalar", sl_pow_scalar, SL_POW, 0},   {"sl_min_scalar", sl_min_scalar, SL_MIN, 0},
    {"sl_max_scalar", sl_max_scalar, SL_MAX, 0},
};

static const struct {
    const char *name;
    FnR fn;
} reduce_fns[] = {
    {"sl_sum", sl_sum}, {"sl_prod", sl_prod}, {"sl_minval", sl_minval}, {"sl_maxval", sl_maxval}, {"sl_mean", sl_mean},
    {"sl_any", sl_any}, {"sl_all", sl_all},   {"sl_count", sl_count},   {"sl_argmin", sl_argmin}, {"sl_argmax", sl_argmax},
};

/* ---- helpers ---- */

static const char *L(Fuzzer *f, sl_array h, int k) {
    static _Thread_local char b[8][40];
    return handle_label(f, h, b[k & 7], sizeof b[0]);
}

static const char *S(int rank, const int64_t *dims, int k) {
    static _Thread_local char b[4][200];
    if (!dims) return "NULL";
    if (rank < 0 || rank > SL_MAX_RANK) snprintf(b[k & 3], sizeof b[0], "(rank %d)", rank);
    else shape_str(b[k & 3], sizeof b[0], rank, dims);
    return b[k & 3];
}

/* The out-pointer of a call: sometimes NULL (a bad argument). */
static sl_array *out_ptr(Fuzzer *f, sl_array *o, Expect *e) {
    *o = OUT_SENTINEL;
    if (rand_pct(&f->r, 1)) {
        ex_bad(e, BAD_ARG);
        return NULL;
    }
    return o;
}

static int tainted(Fuzzer *f, int slot) { return slot >= 0 && f->pool[slot].outside; }

/* Checks a call with one array result and keeps the result. */
static int finish(Fuzzer *f, const char *fn, sl_status st, const Expect *ex, sl_array *op, Shadow *pred, int source, int taint) {
    int slot = -1;
    sl_array out = op ? *op : 0;
    Expect e = *ex;
    /* A result beyond the memory limit may be refused at once (SLUICE_SYNC computes it). */
    uint64_t limit = f->shared->memory_limit;
    if (limit && st == SL_ERR_OUT_OF_MEMORY && pred->numel > 0 && (unsigned __int128)pred->numel * dt_size(pred->dtype) > limit) e.maybe = 1;
    if (check_call(f, fn, st, &e, op ? op : &out, op ? 1 : 0)) {
        if (check_output(f, fn, out, pred)) {
            slot = pool_add(f, out, pred, source);
            if (slot >= 0) f->pool[slot].outside = taint;
        } else {
            sl_release(out);
        }
    }
    sh_free(pred);
    log_end(f);
    return slot;
}

/* Whether the nonzero sizes multiply to at most SL_MAX_ELEMENTS (the library's one rule
 * for every shape, empty ones included). */
static int within_max_elements(int rank, const uint64_t *dims) {
    unsigned __int128 n = 1;
    for (int d = 0; d < rank; d++)
        if (dims[d] != 0 && n <= SL_MAX_ELEMENTS) n *= dims[d];
    return n <= SL_MAX_ELEMENTS;
}

/* A result shape the library computes from application sizes, as unsigned 64-bit
 * dimensions: refused when a dimension does not fit an int64_t or the shape is too large. */
static int sized_result(Expect *e, int rank, const uint64_t *dims, int64_t *out) {
    int ok = within_max_elements(rank, dims);
    for (int d = 0; d < rank; d++) {
        if (dims[d] > (uint64_t)INT64_MAX) ok = 0;
        out[d] = (int64_t)dims[d];
    }
    if (!ok) ex_bad(e, BAD_ARG);
    return ok;
}

/* A broadcast result: refused when it is too large. */
static int countable(Expect *e, int rank, const int64_t *dims) {
    if (within_max_elements(rank, (const uint64_t *)dims)) return 1;
    ex_bad(e, BAD_ARG);
    return 0;
}

/* Checks of an application shape (`parse_shape`): returns 1 when it is well-formed. */
static int app_shape(Expect *e, int rank, const int64_t *dims) {
    if (rank < 0 || rank > SL_MAX_RANK) {
        ex_bad(e, BAD_ARG);
        return 0;
    }
    if (rank > 0 && !dims) {
        ex_bad(e, BAD_ARG);
        return 0;
    }
    for (int d = 0; d < rank; d++)
        if (dims[d] < 0) {
            ex_bad(e, BAD_ARG);
            return 0;
        }
    if (!within_max_elements(rank, (const uint64_t *)dims)) {
        ex_bad(e, BAD_ARG);
        return 0;
    }
    return 1;
}

/* An application shape: usually small and valid, sometimes extreme or malformed. */
static int gen_app_shape(Fuzzer *f, int64_t *dims, int64_t max_numel) {
    int rank = rand_pct(&f->r, 97) ? gen_rank(f) : (rand_pct(&f->r, 50) ? -1 : 9);
    int rk = rank < 0 ? 0 : rank > SL_MAX_RANK ? SL_MAX_RANK : rank;
    gen_dims(f, rk, dims, max_numel);
    if (rand_pct(&f->r, 6) && rk > 0) dims[rand_below(&f->r, (uint64_t)rk)] = gen_extreme(f);
    return rank;
}

static int pick_dim(Fuzzer *f, int rank) {
    uint64_t k = rand_below(&f->r, 100);
    if (k < 85 && rank > 0) return (int)rand_below(&f->r, (uint64_t)rank);
    if (k < 92) return rank;
    static const int bad[] = {-1, -2, 8, 9, INT32_MIN, INT32_MAX, 7};
    return bad[rand_below(&f->r, COUNT(bad))];
}

/* A pool array of type `dt` whose shape broadcasts with `s` (or any array), else -1. */
static int pick_partner(Fuzzer *f, const Shadow *s, int same_dtype, int same_shape) {
    int cand[POOL_MAX], n = 0;
    for (int i = 0; i < POOL_MAX; i++) {
        if (!f->pool[i].h) continue;
        const Shadow *t = &f->pool[i].s;
        if (same_dtype && t->dtype != s->dtype) continue;
        int r;
        int64_t d[SL_MAX_RANK];
        if (same_shape ? !sh_same_shape(s, t) : !broadcast_shapes(s->rank, s->dims, t->rank, t->dims, &r, d)) continue;
        cand[n++] = i;
    }
    return n ? cand[rand_below(&f->r, (uint64_t)n)] : -1;
}

/* ---- creation ---- */

static void c_create(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    sl_array out, *op = out_ptr(f, &out, &e);
    if (f->recording) ex_bad(&e, SL_ERR_INVALID_STATE);
    int dt = gen_dtype(f);
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    int64_t dims[SL_MAX_RANK];
    int rank = gen_app_shape(f, dims, 512);
    const int64_t *dp = rand_pct(&f->r, 2) ? NULL : dims;
    int shape_ok = app_shape(&e, rank, dp);
    int layout = rand_pct(&f->r, 97) ? (rand_pct(&f->r, 30) ? SL_ROW_MAJOR : SL_COL_MAJOR) : (rand_pct(&f->r, 50) ? 2 : -1);
    if (layout != SL_ROW_MAJOR && layout != SL_COL_MAJOR) ex_bad(&e, BAD_ARG);
    int vdt = dt_valid(dt) ? dt : SL_U8;
    Shadow pred = {0};
    int64_t numel = 0;
    int small = shape_ok && !numel_of(rank, dims, &numel) && numel <= 512;
    sh_init(&pred, vdt, small ? rank : 0, dims, 1);
    if (small) gen_values(f, &pred);
    size_t need = small ? (size_t)numel * dt_size(vdt) : (size_t)-1;
    size_t cap = small ? need + 16 : 64;
    unsigned char *buf = calloc(1, cap);
    if (small && layout == SL_ROW_MAJOR) {
        int64_t c[SL_MAX_RANK];
        for (int64_t i = 0; i < numel; i++) {
            unravel(rank, dims, i, c);
            int64_t k = 0;
            for (int d = 0; d < rank; d++) k = k * dims[d] + c[d];
            memcpy(buf + k * (int64_t)dt_size(vdt), pred.vals + i * (int64_t)dt_size(vdt), dt_size(vdt));
        }
    } else if (small && need) {
        memcpy(buf, pred.vals, need);
    }
    size_t bytes = small ? need : 64;
    uint64_t k = rand_below(&f->r, 100);
    if (k < 8 && bytes > 0) bytes -= 1 + rand_below(&f->r, bytes);
    else if (k < 16) bytes += rand_below(&f->r, 17);
    if (bytes > cap) bytes = cap;
    const void *data = rand_pct(&f->r, 2) && bytes > 0 ? NULL : buf;
    if (bytes > 0 && !data) ex_bad(&e, BAD_ARG);
    else if (shape_ok && dt_valid(dt)) {
        uint64_t n = 0, sz = dt_size(dt);
        int big = 0;
        unsigned __int128 total = 1;
        for (int d = 0; d < rank; d++) total *= (uint64_t)dims[d];
        if (total * sz > bytes) big = 1;
        n = (uint64_t)total;
        if (big) ex_bad(&e, BAD_ARG);
        else if (dt == SL_BOOL && n > 0 && rand_pct(&f->r, 4)) {
            buf[rand_below(&f->r, n)] = (unsigned char)(2 + rand_below(&f->r, 254));
            ex_bad(&e, BAD_ARG);
        }
    }
    log_begin(f, "sl_create(%s, %s, %s, %zu bytes%s)", dt_name(dt), S(rank, dp, 0), layout == SL_ROW_MAJOR ? "row" : layout == SL_COL_MAJOR ? "col" : "bad-layout",
              bytes, data ? "" : ", NULL data");
    if (small && numel > 0 && numel <= 16) { /* small data goes in the log, to rebuild a call sequence from it */
        log_more(f, " {");
        for (int64_t i = 0; i < numel; i++) {
            Val v = sh_get(&pred, i);
            if (dt_float(vdt)) log_more(f, i ? ", %.17g" : "%.17g", v.f);
            else log_more(f, i ? ", %lld" : "%lld", (long long)v.i);
        }
        log_more(f, "}");
    }
    sl_status st = sl_create(dt, rank, dp, layout, data, bytes, op);
    finish(f, "sl_create", st, &e, op, &pred, 1, 0);
    free(buf);
}

/* sl_constant, sl_scalar. */
static void c_constant(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int scalar = rand_pct(&f->r, 30);
    sl_array out, *op = out_ptr(f, &out, &e);
    int dt = gen_dtype(f);
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    int64_t dims[SL_MAX_RANK];
    int rank = scalar ? 0 : gen_app_shape(f, dims, 256);
    const int64_t *dp = !scalar && rand_pct(&f->r, 2) ? NULL : dims;
    int shape_ok = scalar || app_shape(&e, rank, dp);
    double v = gen_scalar(f, dt);
    int fits = dt_valid(dt) && scalar_fits(dt, v);
    if (dt_valid(dt) && !fits) ex_bad(&e, BAD_DTYPE);
    Shadow pred = {0};
    if (shape_ok && dt_valid(dt)) {
        sh_init(&pred, dt, rank, dims, 1);
        if (fits) sv_fill(&pred, scalar_val(dt, v));
    }
    sl_status st;
    if (scalar) {
        log_begin(f, "sl_scalar(%s, %.17g)", dt_name(dt), v);
        st = sl_scalar(dt, v, op);
    } else {
        log_begin(f, "sl_constant(%s, %s, %.17g)", dt_name(dt), S(rank, dp, 0), v);
        st = sl_constant(dt, rank, dp, v, op);
    }
    int slot = finish(f, scalar ? "sl_scalar" : "sl_constant", st, &e, op, &pred, 0, 0);
    if (slot >= 0) {
        f->pool[slot].fill = 1;
        f->pool[slot].fill_value = v;
    }
}

static void c_iota(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    sl_array out, *op = out_ptr(f, &out, &e);
    int dt = gen_dtype(f);
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    int64_t dims[SL_MAX_RANK];
    int rank = gen_app_shape(f, dims, 256);
    int shape_ok = app_shape(&e, rank, dims);
    int dim = pick_dim(f, rank < 0 ? 0 : rank);
    if (dim < 0 || dim >= SL_MAX_RANK) ex_bad(&e, BAD_ARG);
    else if (shape_ok && dim >= rank) ex_bad(&e, BAD_ARG);
    if (dt == SL_BOOL) ex_bad(&e, BAD_DTYPE);
    Shadow pred = {0};
    if (shape_ok && dt_valid(dt) && dim >= 0 && dim < rank) {
        sh_init(&pred, dt, rank, dims, 1);
        sv_iota(dim, &pred);
    }
    log_begin(f, "sl_iota(%s, %s, dim %d)", dt_name(dt), S(rank, dims, 0), dim);
    finish(f, "sl_iota", sl_iota(dt, rank, dims, dim, op), &e, op, &pred, 0, 0);
}

static void c_identity(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    sl_array out, *op = out_ptr(f, &out, &e);
    int dt = gen_dtype(f);
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    int64_t dims[2] = {(int64_t)rand_below(&f->r, 9), (int64_t)rand_below(&f->r, 9)};
    if (rand_pct(&f->r, 8)) dims[rand_below(&f->r, 2)] = gen_extreme(f);
    int shape_ok = app_shape(&e, 2, dims);
    Shadow pred = {0};
    if (shape_ok && dt_valid(dt)) {
        sh_init(&pred, dt, 2, dims, 1);
        sv_identity(&pred);
    }
    log_begin(f, "sl_identity(%s, %lld, %lld)", dt_name(dt), (long long)dims[0], (long long)dims[1]);
    finish(f, "sl_identity", sl_identity(dt, dims[0], dims[1], op), &e, op, &pred, 0, 0);
}

/* How the log names a generator argument that is not live. */
static const char *rng_label(Fuzzer *f, sl_rng id) {
    static _Thread_local char b[64];
    const char *kind = id == 0 ? "null" : pool_find(f, id) >= 0 ? "array handle" : "forged";
    for (int i = 0; i < f->n_old_rngs; i++)
        if (f->old_rngs[i] == id) kind = "generator of an earlier runtime";
    for (int i = 0; i < f->n_dead_rngs; i++)
        if (f->dead_rngs[i] == id) kind = "destroyed generator";
    snprintf(b, sizeof b, "%#llx (%s)", (unsigned long long)id, kind);
    return b;
}

/* A generator argument: mostly live, sometimes destroyed, forged, an array handle or one
 * of an earlier runtime. Returns the slot or -1. */
static sl_rng pick_rng(Fuzzer *f, int *slot) {
    *slot = -1;
    if (rand_pct(&f->r, 90)) {
        int k = (int)rand_below(&f->r, RNG_MAX);
        for (int i = 0; i < RNG_MAX; i++) {
            int j = (k + i) % RNG_MAX;
            if (f->rngs[j].id) {
                *slot = j;
                return f->rngs[j].id;
            }
        }
    }
    switch (rand_below(&f->r, 5)) {
    case 0:
        return 0;
    case 1:
        if (f->n_old_rngs && !(f->shared->tolerate & TOL_D)) return f->old_rngs[rand_below(&f->r, (uint64_t)f->n_old_rngs)];
        return 0;
    case 2: {
        int s = pool_pick(f);
        return s >= 0 ? f->pool[s].h : 0;
    }
    case 3:
        if (f->n_dead_rngs) return f->dead_rngs[rand_below(&f->r, (uint64_t)f->n_dead_rngs)];
        return 0;
    default:
        return rand_u64(&f->r) | ((uint64_t)1 << 63);
    }
}

int x_random(Fuzzer *f, int rs, sl_rng id, int normal, int dt, int rank, const int64_t *dims) {
    Expect e;
    ex_init(&e);
    sl_array out, *op = out_ptr(f, &out, &e);
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    int shape_ok = app_shape(&e, rank, dims);
    if (rs < 0) ex_bad(&e, BAD_HANDLE);
    if (dt_valid(dt) && !dt_float(dt)) ex_bad(&e, BAD_DTYPE);
    Shadow pred = {0};
    if (shape_ok && dt_float(dt)) {
        sh_init(&pred, dt, rank, dims, 0);
        pred.bounded = 1;
        pred.lo = normal ? -9 : 0;
        pred.hi = normal ? 9 : 1;
    }
    const char *fn = normal ? "sl_random_normal" : "sl_random_uniform";
    if (rs >= 0) log_begin(f, "%s(r%d, %s, %s)", fn, f->rngs[rs].label, dt_name(dt), S(rank, dims, 0));
    else log_begin(f, "%s(%s, %s, %s)", fn, rng_label(f, id), dt_name(dt), S(rank, dims, 0));
    sl_status st = normal ? sl_random_normal(id, dt, rank, dims, op) : sl_random_uniform(id, dt, rank, dims, op);
    if (st == SL_OK && rs >= 0) f->rngs[rs].draw++;
    /* Computed at once (SLUICE_SYNC) and refused, the draw is taken all the same. */
    if (st == SL_ERR_OUT_OF_MEMORY && rs >= 0) sl_rng_get_state(id, NULL, &f->rngs[rs].draw);
    return finish(f, fn, st, &e, op, &pred, 0, 0);
}

static void c_random(Fuzzer *f) {
    int rs;
    sl_rng id = pick_rng(f, &rs);
    int64_t dims[SL_MAX_RANK];
    int rank = gen_app_shape(f, dims, 256);
    x_random(f, rs, id, rand_pct(&f->r, 40), rand_pct(&f->r, 85) ? (rand_pct(&f->r, 50) ? SL_F32 : SL_F64) : gen_dtype(f), rank, dims);
}

/* ---- the other random laws and Sobol' points ---- */

/* `x` rounded to `dt` (f32 or f64); out-of-range values round to an infinity. */
static double in_type(int dt, double x) {
    if (dt != SL_F32 || isnan(x)) return x;
    if (fabs(x) >= 0x1.ffffffp127) return copysign(INFINITY, x);
    return (double)(float)x;
}

/* A parameter: mostly an ordinary value in [lo, hi), sometimes 0, negative, huge, tiny,
 * infinite or NaN. */
static double gen_param(Fuzzer *f, double lo, double hi) {
    static const double odd[] = {0.0, -1.0, -0.0, 1e-300, 1e-40, 1e300, 3e38, 1e16, 2e9, INFINITY, -INFINITY, NAN, 1.0};
    if (rand_pct(&f->r, 85)) return lo + (hi - lo) * rand_unit(&f->r);
    return odd[rand_below(&f->r, sizeof odd / sizeof *odd)];
}

/* Whether a gamma shape `k` of type `dt` is accepted (front::random::standard_gamma). */
static int gamma_shape_ok(int dt, double k) {
    if (!(k > 0)) return 0;
    double kt = in_type(dt, k), inv = in_type(dt, 1.0 / k);
    if (!isfinite(kt) || kt < (dt == SL_F32 ? FLT_MIN : DBL_MIN) || !isfinite(inv) || inv < (dt == SL_F32 ? FLT_MIN : DBL_MIN))
        return 0;
    double d = (k < 1 ? k + 1 : k) - 1.0 / 3.0;
    return isfinite(in_type(dt, 9.0 * d));
}

static void c_random_law(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    sl_array out, *op = out_ptr(f, &out, &e);
    int rs;
    sl_rng id = pick_rng(f, &rs);
    int64_t dims[SL_MAX_RANK];
    int rank = gen_app_shape(f, dims, 256);
    int shape_ok = app_shape(&e, rank, dims);
    int law = (int)rand_below(&f->r, 8);
    /* Integer ranges take every integer type (of the model's: i32, i64, u8); Poisson
     * values are i32 or i64. */
    static const int float_types[] = {SL_F32, SL_F64}, int_types[] = {SL_I32, SL_I64, SL_U8};
    int dt = rand_pct(&f->r, 90) ? law == 1 ? int_types[rand_below(&f->r, 3)]
                                 : (law == 4 ? int_types : float_types)[rand_below(&f->r, 2)]
                                 : gen_dtype(f);
    if (law == 3) dt = SL_BOOL;
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    if (rs < 0) ex_bad(&e, BAD_HANDLE);
    int floats = dt == SL_F32 || dt == SL_F64, ints = dt == SL_I32 || dt == SL_I64, integers = ints || dt == SL_U8;
    if (dt_valid(dt) && (law == 1 ? !integers : law == 4 ? !ints : law != 3 && !floats)) ex_bad(&e, BAD_DTYPE);
    double a = 0, b = 0, lo = 0, hi = 0;
    int bounded = 1, draws = 1, own_blocks = 0;
    int64_t ilo = 0, ihi = 0;
    const char *fn = "";
    sl_status st;
    char r[80];
    if (rs >= 0) snprintf(r, sizeof r, "r%d", f->rngs[rs].label);
    else snprintf(r, sizeof r, "%s", rng_label(f, id));
    switch (law) {
    case 0:
        fn = "sl_random_uniform_range";
        a = gen_param(f, -100, 100);
        b = rand_pct(&f->r, 85) ? a + gen_param(f, 0, 50) : gen_param(f, -100, 100);
        if (floats && (!isfinite(in_type(dt, a)) || !isfinite(in_type(dt, b)) || !(in_type(dt, b) > in_type(dt, a)))) ex_bad(&e, BAD_ARG);
        lo = in_type(dt, a), hi = in_type(dt, b);
        log_begin(f, "%s(%s, %g, %g, %s, %s)", fn, r, a, b, dt_name(dt), S(rank, dims, 0));
        st = sl_random_uniform_range(id, a, b, dt, rank, dims, op);
        break;
    case 1:
        fn = "sl_random_integers";
        own_blocks = 1;
        ilo = rand_pct(&f->r, 80) ? (int64_t)rand_below(&f->r, 200) - 100 : gen_extreme(f);
        ihi = rand_pct(&f->r, 80) && ilo <= INT64_MAX - 1000 ? ilo + (int64_t)rand_below(&f->r, 1000) : gen_extreme(f);
        if (integers && (ihi <= ilo || (dt == SL_I32 && (ilo < INT32_MIN || ihi > (int64_t)1 << 31)) ||
                         (dt == SL_U8 && (ilo < 0 || ihi > 256))))
            ex_bad(&e, BAD_ARG);
        /* The bounds are compared as doubles: exact only up to 2^53 in magnitude. */
        bounded = ilo >= -((int64_t)1 << 53) && ihi <= (int64_t)1 << 53;
        lo = (double)ilo, hi = (double)ihi;
        log_begin(f, "%s(%s, %lld, %lld, %s, %s)", fn, r, (long long)ilo, (long long)ihi, dt_name(dt), S(rank, dims, 0));
        st = sl_random_integers(id, ilo, ihi, dt, rank, dims, op);
        break;
    case 2:
        fn = "sl_random_exponential";
        a = gen_param(f, 0.01, 10);
        if (floats && !(isfinite(in_type(dt, a)) && in_type(dt, a) > 0)) ex_bad(&e, BAD_ARG);
        /* -ln(1 - u) is below 16.7 for f32 and 36.8 for f64; a bound past the type's
         * range (scale 3e38 in f32) leaves overflow to inf unchecked. */
        lo = 0, hi = in_type(dt, 40 * in_type(dt, a));
        bounded = isfinite(hi);
        log_begin(f, "%s(%s, %g, %s, %s)", fn, r, a, dt_name(dt), S(rank, dims, 0));
        st = sl_random_exponential(id, a, dt, rank, dims, op);
        break;
    case 3:
        fn = "sl_random_bernoulli";
        a = gen_param(f, 0, 1);
        if (!(a >= 0 && a <= 1)) ex_bad(&e, BAD_ARG);
        lo = 0, hi = 2;
        log_begin(f, "%s(%s, %g, %s)", fn, r, a, S(rank, dims, 0));
        st = sl_random_bernoulli(id, a, rank, dims, op);
        break;
    case 4:
        fn = "sl_random_poisson";
        own_blocks = 1;
        a = rand_pct(&f->r, 50) ? gen_param(f, 0, 12) : gen_param(f, 0, 1e5);
        if (ints && !(a >= 0 && a <= (dt == SL_I32 ? 0x1p30 : 0x1p50))) ex_bad(&e, BAD_ARG);
        /* Beyond 30 standard deviations: never in a lifetime of runs. */
        lo = 0, hi = a + 30 * sqrt(a) + 30;
        log_begin(f, "%s(%s, %g, %s, %s)", fn, r, a, dt_name(dt), S(rank, dims, 0));
        st = sl_random_poisson(id, a, dt, rank, dims, op);
        break;
    case 5:
    case 6:
        fn = law == 5 ? "sl_random_gamma" : "sl_random_chisquare";
        own_blocks = 1;
        a = gen_param(f, 0.05, 20);
        b = law == 5 ? gen_param(f, 0.1, 5) : 2.0;
        if (floats) {
            int theta_ok = isfinite(in_type(dt, b)) && in_type(dt, b) > 0;
            int k_ok = law == 5 ? gamma_shape_ok(dt, a) : a > 0 && gamma_shape_ok(dt, a / 2);
            if (!theta_ok || !k_ok) ex_bad(&e, BAD_ARG);
        } else if (law == 6 && !(a > 0)) {
            ex_bad(&e, BAD_ARG);
        }
        double k = law == 5 ? a : a / 2;
        /* The margin is the generator's rounding: at k = 5e299 the spread is far below an ulp. */
        lo = 0, hi = in_type(dt, (k + 60 * sqrt(k) + 60) * b * (1 + 0x1p-16));
        bounded = isfinite(hi);
        if (law == 5) {
            log_begin(f, "%s(%s, %g, %g, %s, %s)", fn, r, a, b, dt_name(dt), S(rank, dims, 0));
            st = sl_random_gamma(id, a, b, dt, rank, dims, op);
        } else {
            log_begin(f, "%s(%s, %g, %s, %s)", fn, r, a, dt_name(dt), S(rank, dims, 0));
            st = sl_random_chisquare(id, a, dt, rank, dims, op);
        }
        break;
    default:
        fn = "sl_random_beta";
        own_blocks = 1;
        draws = 2;
        a = gen_param(f, 0.05, 10);
        b = gen_param(f, 0.05, 10);
        if (floats && !(isfinite(a) && isfinite(b) && gamma_shape_ok(dt, a) && gamma_shape_ok(dt, b))) ex_bad(&e, BAD_ARG);
        lo = 0, hi = nextafter(1.0, 2.0);
        log_begin(f, "%s(%s, %g, %g, %s, %s)", fn, r, a, b, dt_name(dt), S(rank, dims, 0));
        st = sl_random_beta(id, a, b, dt, rank, dims, op);
        break;
    }
    Shadow pred = {0};
    if (shape_ok && e.problems == 0) {
        sh_init(&pred, dt, rank, dims, 0);
        if (own_blocks && pred.numel > ((int64_t)1 << 48)) ex_bad(&e, BAD_ARG);
        pred.bounded = bounded;
        pred.lo = lo;
        pred.hi = hi;
    }
    if (st == SL_OK && rs >= 0) f->rngs[rs].draw += (uint64_t)draws;
    /* Computed at once (SLUICE_SYNC) and refused, the draws are taken all the same. */
    if (st == SL_ERR_OUT_OF_MEMORY && rs >= 0) sl_rng_get_state(id, NULL, &f->rngs[rs].draw);
    finish(f, fn, st, &e, op, &pred, 0, 0);
}

static void c_sobol(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    sl_array out, *op = out_ptr(f, &out, &e);
    int64_t dims = rand_pct(&f->r, 90) ? 1 + (int64_t)rand_below(&f->r, 40) : gen_extreme(f);
    int64_t first = rand_pct(&f->r, 85) ? (int64_t)rand_below(&f->r, 100000) : gen_extreme(f);
    int64_t count = rand_pct(&f->r, 90) ? (int64_t)rand_below(&f->r, 64) : gen_extreme(f);
    int scramble = rand_pct(&f->r, 95) ? (int)rand_below(&f->r, 3) : (rand_pct(&f->r, 50) ? 3 : -1);
    int dt = rand_pct(&f->r, 90) ? (rand_pct(&f->r, 50) ? SL_F32 : SL_F64) : gen_dtype(f);
    uint64_t seed = rand_u64(&f->r);
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    if (dt_valid(dt) && dt != SL_F32 && dt != SL_F64) ex_bad(&e, BAD_DTYPE);
    if (scramble < 0 || scramble > 2) ex_bad(&e, BAD_ARG);
    int ok = dims >= 1 && dims <= SL_SOBOL_MAX_DIMS;
    if (!ok) ex_bad(&e, BAD_ARG);
    if (first < 0 || count < 0 || first > ((int64_t)1 << 32) - count) {
        ex_bad(&e, BAD_ARG);
        ok = 0;
    }
    Shadow pred = {0};
    int64_t shape[2] = {count, dims};
    if (ok && dt_valid(dt) && (dt == SL_F32 || dt == SL_F64) && (unsigned __int128)count * (uint64_t)dims <= SL_MAX_ELEMENTS) {
        sh_init(&pred, dt, 2, shape, 0);
        pred.bounded = 1;
        pred.lo = 0;
        pred.hi = 1;
    }
    log_begin(f, "sl_random_sobol(%lld, %lld, %lld, %d, %llu, %s)", (long long)dims, (long long)first, (long long)count, scramble,
              (unsigned long long)seed, dt_name(dt));
    finish(f, "sl_random_sobol", sl_random_sobol(dims, first, count, scramble, seed, dt, op), &e, op, &pred, 0, 0);
}

/* ---- generators ---- */

static void c_rng(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    uint64_t k = rand_below(&f->r, 100);
    if (k < 30) { /* create */
        int kind = rand_pct(&f->r, 95) ? (int)rand_below(&f->r, 3) : (rand_pct(&f->r, 50) ? 3 : -1);
        if (kind != SL_RNG_PHILOX && kind != SL_RNG_FAST && kind != SL_RNG_THREEFRY) ex_bad(&e, BAD_ARG);
        int null_out = rand_pct(&f->r, 2);
        if (null_out) ex_bad(&e, BAD_ARG);
        uint64_t seed = rand_pct(&f->r, 20) ? (uint64_t)gen_extreme(f) : rand_below(&f->r, 1000);
        sl_rng id = OUT_SENTINEL;
        log_begin(f, "sl_rng_create(%d, %llu)", kind, (unsigned long long)seed);
        sl_status st = sl_rng_create(kind, seed, null_out ? NULL : &id);
        if (check_call(f, "sl_rng_create", st, &e, null_out ? NULL : &id, null_out ? 0 : 1)) {
            int slot = -1;
            for (int i = 0; i < RNG_MAX; i++)
                if (!f->rngs[i].id) slot = i;
            for (int i = 0; i < RNG_MAX; i++)
                if (f->rngs[i].id == id) broken(f, "sl_rng_create gave the id of a live generator, %#llx", (unsigned long long)id);
            for (int i = 0; i < f->n_dead_rngs; i++)
                if (f->dead_rngs[i] == id) broken(f, "sl_rng_create gave the id of a destroyed generator, %#llx", (unsigned long long)id);
            for (int i = 0; i < f->n_old_rngs && !(f->shared->tolerate & TOL_D); i++)
                if (f->old_rngs[i] == id) broken(f, "sl_rng_create gave %#llx, the id of a generator of an earlier runtime", (unsigned long long)id);
            if (slot < 0) {
                slot = (int)rand_below(&f->r, RNG_MAX);
                sl_rng_destroy(f->rngs[slot].id);
                f->dead_rngs[f->n_dead_rngs++ % STALE_MAX] = f->rngs[slot].id;
                if (f->n_dead_rngs > STALE_MAX) f->n_dead_rngs = STALE_MAX;
            }
            RngSlot *r = &f->rngs[slot];
            r->id = id;
            r->label = f->next_label++;
            r->kind = kind;
            r->seed = seed;
            r->draw = 0;
            log_more(f, " => r%d", r->label);
        }
        log_end(f);
        return;
    }
    int rs;
    sl_rng id = pick_rng(f, &rs);
    if (rs < 0) ex_bad(&e, BAD_HANDLE);
    if (k < 40) {
        log_begin(f, "sl_rng_destroy(%s)", rs >= 0 ? "live" : rng_label(f, id));
        if (check_call(f, "sl_rng_destroy", sl_rng_destroy(id), &e, NULL, 0) && rs >= 0) {
            if (f->n_dead_rngs < STALE_MAX) f->dead_rngs[f->n_dead_rngs++] = id;
            f->rngs[rs].id = 0;
        }
    } else if (k < 75) {
        uint64_t seed = 0xFEED, draw = 0xFEED;
        int ns = rand_pct(&f->r, 10), nd = rand_pct(&f->r, 10);
        log_begin(f, "sl_rng_get_state(%s%s%s)", rs >= 0 ? "live" : rng_label(f, id), ns ? ", NULL seed" : "", nd ? ", NULL draw" : "");
        if (check_call(f, "sl_rng_get_state", sl_rng_get_state(id, ns ? NULL : &seed, nd ? NULL : &draw), &e, NULL, 0) && rs >= 0) {
            RngSlot *r = &f->rngs[rs];
            if ((!ns && seed != r->seed) || (!nd && draw != r->draw))
                broken(f, "generator r%d is at seed %llu draw %llu; the model says seed %llu draw %llu", r->label, (unsigned long long)seed,
                       (unsigned long long)draw, (unsigned long long)r->seed, (unsigned long long)r->draw);
        }
    } else {
        uint64_t seed = rand_below(&f->r, 100), draw = rand_pct(&f->r, 10) ? (uint64_t)gen_extreme(f) : rand_below(&f->r, 50);
        log_begin(f, "sl_rng_set_state(%s, %llu, %llu)", rs >= 0 ? "live" : rng_label(f, id), (unsigned long long)seed, (unsigned long long)draw);
        if (check_call(f, "sl_rng_set_state", sl_rng_set_state(id, seed, draw), &e, NULL, 0) && rs >= 0) {
            f->rngs[rs].seed = seed;
            f->rngs[rs].draw = draw;
        }
    }
    log_end(f);
}

/* ---- handles ---- */

static void c_query(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int slot;
    sl_array h = pick_handle(f, &slot, 85);
    if (slot < 0) ex_bad(&e, BAD_HANDLE);
    const Shadow *s = slot >= 0 ? &f->pool[slot].s : NULL;
    int null = rand_pct(&f->r, 4);
    uint64_t k = rand_below(&f->r, 4);
    sl_status st;
    const char *fn;
    int32_t rank = -7;
    int64_t numel = -7, dims[SL_MAX_RANK + 2];
    sl_dtype dt = -7;
    int32_t cap = SL_MAX_RANK;
    if (null && k != 1) ex_bad(&e, BAD_ARG);
    switch (k) {
    case 0:
        fn = "sl_rank";
        log_begin(f, "sl_rank(%s%s)", L(f, h, 0), null ? ", NULL" : "");
        st = sl_rank(h, null ? NULL : &rank);
        break;
    case 1: {
        fn = "sl_shape";
        uint64_t c = rand_below(&f->r, 10);
        cap = c < 6 ? (s ? s->rank : 0) : c < 8 ? SL_MAX_RANK : c < 9 ? (s ? s->rank - 1 : -1) : -5;
        if (s && cap < s->rank) ex_bad(&e, BAD_ARG);
        else if (s && null && s->rank > 0) ex_bad(&e, BAD_ARG);
        for (int d = 0; d < SL_MAX_RANK + 2; d++) dims[d] = -7;
        log_begin(f, "sl_shape(%s, %s, %d)", L(f, h, 0), null ? "NULL" : "dims", cap);
        st = sl_shape(h, null ? NULL : dims, cap);
        break;
    }
    case 2:
        fn = "sl_numel";
        log_begin(f, "sl_numel(%s%s)", L(f, h, 0), null ? ", NULL" : "");
        st = sl_numel(h, null ? NULL : &numel);
        break;
    default:
        fn = "sl_get_dtype";
        log_begin(f, "sl_get_dtype(%s%s)", L(f, h, 0), null ? ", NULL" : "");
        st = sl_get_dtype(h, null ? NULL : &dt);
        break;
    }
    if (check_call(f, fn, st, &e, NULL, 0) && s && !null) {
        if (k == 0 && rank != s->rank) broken(f, "sl_rank says %d, the model %d", rank, s->rank);
        if (k == 1) {
            for (int d = 0; d < s->rank; d++)
                if (dims[d] != s->dims[d]) broken(f, "sl_shape says %s, the model %s", S(s->rank, dims, 0), S(s->rank, s->dims, 1));
            for (int d = s->rank; d < SL_MAX_RANK + 2; d++)
                if (dims[d] != -7) broken(f, "sl_shape of a rank-%d array wrote dims[%d]", s->rank, d);
        }
        if (k == 2 && numel != s->numel) broken(f, "sl_numel says %lld, the model %lld", (long long)numel, (long long)s->numel);
        if (k == 3 && dt != s->dtype) broken(f, "sl_get_dtype says %d, the model %d", dt, s->dtype);
    }
    log_end(f);
}

int x_retain(Fuzzer *f, int as, sl_array a) {
    Expect e;
    ex_init(&e);
    sl_array out, *op = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0) sh_copy(&pred, &f->pool[as].s);
    log_begin(f, "sl_retain(%s)", L(f, a, 0));
    int fill = as >= 0 && f->pool[as].fill;
    double value = as >= 0 ? f->pool[as].fill_value : 0;
    int slot = finish(f, "sl_retain", sl_retain(a, op), &e, op, &pred, as >= 0 && f->pool[as].source, tainted(f, as));
    if (slot >= 0) {
        f->pool[slot].fill = fill;
        f->pool[slot].fill_value = value;
    }
    return slot;
}

static void c_retain(Fuzzer *f) {
    int as;
    sl_array a = pick_handle(f, &as, 90);
    x_retain(f, as, a);
}

static void c_release(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int slot;
    sl_array h = pick_handle(f, &slot, 85);
    if (slot >= 0 && f->pool[slot].shared) return; /* other threads hold it too */
    if (slot < 0) ex_bad(&e, BAD_HANDLE);
    log_begin(f, "sl_release(%s)", L(f, h, 0));
    if (check_call(f, "sl_release", sl_release(h), &e, NULL, 0) && slot >= 0) pool_forget(f, slot);
    log_end(f);
}

/* ---- element-wise ---- */

int x_unary(Fuzzer *f, int op, int as, sl_array a, int form) {
    Expect e;
    ex_init(&e);
    int special = op >= SL_ERFC && op <= SL_TGAMMA;
    int valid_op = (op >= 0 && op <= SL_NOT) || special, named = form == 0 && valid_op;
    const char *fn = !named ? "sl_unary" : special ? special_fns[op - SL_ERFC].name : unary_fns[op].name;
    if (!valid_op) ex_bad(&e, BAD_ARG);
    sl_array out, *o = out_ptr(f, &out, &e);
    Shadow pred = {0};
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    else if (valid_op) {
        const Shadow *sa = &f->pool[as].s;
        int rt = unary_result(op, sa->dtype);
        if (rt < 0) ex_bad(&e, BAD_DTYPE);
        else {
            sh_init(&pred, rt, sa->rank, sa->dims, sa->known);
            sv_unary(op, sa, &pred);
        }
    }
    if (named) log_begin(f, "%s(%s)", fn, L(f, a, 0));
    else log_begin(f, "sl_unary(%d, %s)", op, L(f, a, 0));
    sl_status st = !named ? sl_unary(op, a, o) : special ? special_fns[op - SL_ERFC].fn(a, o) : unary_fns[op].fn(a, o);
    return finish(f, fn, st, &e, o, &pred, 0, tainted(f, as));
}

static void c_unary(Fuzzer *f) {
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int op = (int)rand_below(&f->r, SL_NOT + 1);
    for (int tries = 0; tries < 4 && as >= 0 && unary_result(op, f->pool[as].s.dtype) < 0; tries++) op = (int)rand_below(&f->r, SL_NOT + 1);
    if (rand_pct(&f->r, 10)) op = SL_ERFC + (int)rand_below(&f->r, SL_TGAMMA - SL_ERFC + 1);
    if (rand_pct(&f->r, 2)) op = rand_pct(&f->r, 50) ? -1 : SL_TGAMMA + 1 + (int)rand_below(&f->r, 100);
    x_unary(f, op, as, a, rand_pct(&f->r, 70) ? 0 : 1);
}

/* Known defect (f): pow of a rank-0 base by a constant array of 2 or -1 (tolerated). */
static int pow_shape_defect(Fuzzer *f, int op, int base_rank0, int exp_slot) {
    /* Constants fold through casts, views and element-wise ops: any exponent may be one. */
    return (f->shared->tolerate & TOL_F) && op == SL_POW && base_rank0 && exp_slot >= 0 && f->pool[exp_slot].s.rank > 0;
}

int x_binary(Fuzzer *f, int op, int as, sl_array a, int bs, sl_array b, int form) {
    Expect e;
    ex_init(&e);
    int valid_op = op >= 0 && op <= SL_XOR, named = form == 0 && valid_op;
    const char *fn = named ? binary_fns[op].name : "sl_binary";
    if (!valid_op) ex_bad(&e, BAD_ARG);
    Shadow pred = {0};
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    if (bs < 0) ex_bad(&e, BAD_HANDLE);
    if (as >= 0 && bs >= 0 && valid_op) {
        const Shadow *sa = &f->pool[as].s, *sb = &f->pool[bs].s;
        int t = promote_types(sa->dtype, sb->dtype);
        int rank, rt = binary_result(op, t);
        int64_t dims[SL_MAX_RANK];
        if (rt < 0) ex_bad(&e, BAD_DTYPE);
        else if (!broadcast_shapes(sa->rank, sa->dims, sb->rank, sb->dims, &rank, dims)) ex_bad(&e, BAD_SHAPE);
        else if (countable(&e, rank, dims) && !e.maybe) {
            if (pow_shape_defect(f, op, sa->rank == 0, bs)) return -1;
            sh_init(&pred, rt, rank, dims, sa->known && sb->known);
            sv_binary_as(op, sa, sb, t, &pred);
        } else if (f->shared->tolerate & TOL_A) {
            return -1;
        }
    }
    sl_array out, *o = out_ptr(f, &out, &e);
    if (named) log_begin(f, "%s(%s, %s)", fn, L(f, a, 0), L(f, b, 1));
    else log_begin(f, "sl_binary(%d, %s, %s)", op, L(f, a, 0), L(f, b, 1));
    sl_status st = named ? binary_fns[op].fn(a, b, o) : sl_binary(op, a, b, o);
    if (e.maybe && st == SL_OK) {
        sh_free(&pred);
        e.maybe = 0;
        int rank;
        int64_t dims[SL_MAX_RANK];
        broadcast_shapes(f->pool[as].s.rank, f->pool[as].s.dims, f->pool[bs].s.rank, f->pool[bs].s.dims, &rank, dims);
        sh_init(&pred, binary_result(op, promote_types(f->pool[as].s.dtype, f->pool[bs].s.dtype)), rank, dims, 0);
    }
    return finish(f, fn, st, &e, o, &pred, 0, tainted(f, as) || tainted(f, bs));
}

static int pick_binary_op(Fuzzer *f, int dt) {
    int op = (int)rand_below(&f->r, SL_XOR + 1);
    for (int tries = 0; tries < 4 && binary_result(op, dt) < 0; tries++) op = (int)rand_below(&f->r, SL_XOR + 1);
    return op;
}

static void c_binary(Fuzzer *f) {
    int as, bs;
    sl_array a = pick_handle(f, &as, 96), b;
    if (as >= 0 && rand_pct(&f->r, 85) && (bs = pick_partner(f, &f->pool[as].s, 1, 0)) >= 0) b = f->pool[bs].h;
    else b = pick_handle(f, &bs, 95);
    int op = pick_binary_op(f, as >= 0 ? f->pool[as].s.dtype : SL_F32);
    if (rand_pct(&f->r, 2)) op = rand_pct(&f->r, 50) ? -1 : SL_NEXTAFTER + 1 + (int)rand_below(&f->r, 10);
    x_binary(f, op, as, a, bs, b, rand_pct(&f->r, 70) ? 0 : 1);
}

int x_scalar_op(Fuzzer *f, int op, int as, sl_array a, double s, int first, int form) {
    Expect e;
    ex_init(&e);
    int valid_op = op >= 0 && op <= SL_XOR, k = -1;
    for (int i = 0; i < COUNT(scalar_fns) && form == 0; i++)
        if (scalar_fns[i].op == op && scalar_fns[i].scalar_first == first) k = i;
    /* Form 2: the int64_t scalar forms, with `s` an integer. */
    int integer = form == 2;
    const char *fn = k >= 0 ? scalar_fns[k].name
                     : integer ? (first ? "sl_scalar_binary_i" : "sl_binary_scalar_i")
                     : first   ? "sl_scalar_binary"
                               : "sl_binary_scalar";
    if (!valid_op) ex_bad(&e, BAD_ARG);
    Shadow pred = {0};
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    else if (valid_op) {
        const Shadow *sa = &f->pool[as].s;
        /* The scalar is weak: a double makes an integer or bool array's result f64, an
         * integer keeps the array's type (i64 for bool) and must fit an integer one. */
        int t = integer ? weak_int_type(sa->dtype) : weak_float_type(sa->dtype), rt = binary_result(op, t);
        if (integer && !scalar_fits(t, s)) ex_bad(&e, BAD_DTYPE);
        else if (rt < 0) ex_bad(&e, BAD_DTYPE);
        else {
            if (first && pow_shape_defect(f, op, 1, as)) return -1;
            Shadow c;
            int64_t none[1] = {0};
            sh_init(&c, t, 0, none, 1);
            sh_put(&c, 0, scalar_val(t, s));
            sh_init(&pred, rt, sa->rank, sa->dims, sa->known);
            sv_binary_as(op, first ? &c : sa, first ? sa : &c, t, &pred);
            sh_free(&c);
        }
    }
    sl_array out, *o = out_ptr(f, &out, &e);
    if (k >= 0) log_begin(f, "%s(%s %s, %.17g)", fn, as >= 0 ? dt_name(f->pool[as].s.dtype) : "", L(f, a, 0), s);
    else if (first) log_begin(f, "%s(%d, %.17g, %s)", fn, op, s, L(f, a, 0));
    else log_begin(f, "%s(%d, %s, %.17g)", fn, op, L(f, a, 0), s);
    sl_status st = k >= 0    ? scalar_fns[k].fn(a, s, o)
                   : integer ? (first ? sl_scalar_binary_i(op, (int64_t)s, a, o) : sl_binary_scalar_i(op, a, (int64_t)s, o))
                   : first   ? sl_scalar_binary(op, s, a, o)
                             : sl_binary_scalar(op, a, s, o);
    return finish(f, fn, st, &e, o, &pred, 0, tainted(f, as));
}

static void c_scalar_op(Fuzzer *f) {
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int dt = as >= 0 ? f->pool[as].s.dtype : SL_F64;
    int op = pick_binary_op(f, dt);
    if (rand_pct(&f->r, 2)) op = rand_pct(&f->r, 50) ? -1 : 99;
    int form = rand_pct(&f->r, 60) ? 0 : rand_pct(&f->r, 50) ? 1 : 2;
    double s = gen_scalar(f, dt);
    /* An integer for the int64_t forms (one beyond int64_t is not representable there), as
     * the call receives it: an integer zero has no sign, so -0.3 becomes +0, not trunc's -0. */
    if (form == 2) s = fabs(s) < 9.2e18 ? (double)(int64_t)s : 0;
    x_scalar_op(f, op, as, a, s, rand_pct(&f->r, 30), form);
}

static void c_select(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int cs = -1, as, bs;
    sl_array c = 0, a = pick_handle(f, &as, 96), b;
    for (int tries = 0; tries < 6; tries++) {
        int k = pool_pick(f);
        if (k >= 0 && f->pool[k].s.dtype == SL_BOOL) cs = k;
    }
    if (cs >= 0 && rand_pct(&f->r, 95)) c = f->pool[cs].h;
    else c = pick_handle(f, &cs, 80);
    if (as >= 0 && rand_pct(&f->r, 85) && (bs = pick_partner(f, &f->pool[as].s, 1, 0)) >= 0) b = f->pool[bs].h;
    else b = pick_handle(f, &bs, 95);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (cs < 0) ex_bad(&e, BAD_HANDLE);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    if (bs < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (cs >= 0 && as >= 0 && bs >= 0) {
        const Shadow *sc = &f->pool[cs].s, *sa = &f->pool[as].s, *sb = &f->pool[bs].s;
        int rank;
        int64_t dims[SL_MAX_RANK];
        if (sc->dtype != SL_BOOL) ex_bad(&e, BAD_DTYPE);
        else if (!broadcast_shapes(sc->rank, sc->dims, sa->rank, sa->dims, &rank, dims) ||
                 !broadcast_shapes(rank, dims, sb->rank, sb->dims, &rank, dims))
            ex_bad(&e, BAD_SHAPE);
        else if (countable(&e, rank, dims)) {
            sh_init(&pred, promote_types(sa->dtype, sb->dtype), rank, dims, sc->known && sa->known && sb->known);
            sv_select_as(sc, sa, sb, &pred);
        }
    }
    log_begin(f, "sl_select(%s, %s, %s)", L(f, c, 0), L(f, a, 1), L(f, b, 2));
    finish(f, "sl_select", sl_select(c, a, b, o), &e, o, &pred, 0, tainted(f, cs) || tainted(f, as) || tainted(f, bs));
}

static void c_fma(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as, bs, cs;
    sl_array a = pick_handle(f, &as, 96), b, c;
    if (as >= 0 && rand_pct(&f->r, 85) && (bs = pick_partner(f, &f->pool[as].s, 1, 0)) >= 0) b = f->pool[bs].h;
    else b = pick_handle(f, &bs, 95);
    if (as >= 0 && rand_pct(&f->r, 85) && (cs = pick_partner(f, &f->pool[as].s, 1, 0)) >= 0) c = f->pool[cs].h;
    else c = pick_handle(f, &cs, 95);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0 || bs < 0 || cs < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && bs >= 0 && cs >= 0) {
        const Shadow *sa = &f->pool[as].s, *sb = &f->pool[bs].s, *sc = &f->pool[cs].s;
        int t = promote_types(promote_types(sa->dtype, sb->dtype), sc->dtype), rank;
        int64_t dims[SL_MAX_RANK];
        if (!dt_float(t)) ex_bad(&e, BAD_DTYPE);
        else if (!broadcast_shapes(sa->rank, sa->dims, sb->rank, sb->dims, &rank, dims) ||
                 !broadcast_shapes(rank, dims, sc->rank, sc->dims, &rank, dims))
            ex_bad(&e, BAD_SHAPE);
        else if (countable(&e, rank, dims)) {
            sh_init(&pred, t, rank, dims, sa->known && sb->known && sc->known);
            sv_fma_as(sa, sb, sc, &pred);
        }
    }
    log_begin(f, "sl_fma(%s, %s, %s)", L(f, a, 0), L(f, b, 1), L(f, c, 2));
    finish(f, "sl_fma", sl_fma(a, b, c, o), &e, o, &pred, 0, tainted(f, as) || tainted(f, bs) || tainted(f, cs));
}

int x_cast(Fuzzer *f, int as, sl_array a, int dt) {
    Expect e;
    ex_init(&e);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (!dt_valid(dt)) ex_bad(&e, BAD_ARG);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && dt_valid(dt)) {
        const Shadow *sa = &f->pool[as].s;
        sh_init(&pred, dt, sa->rank, sa->dims, sa->known);
        sv_cast(sa, &pred);
    }
    log_begin(f, "sl_cast(%s, %s)", L(f, a, 0), dt_name(dt));
    int same = as >= 0 && f->pool[as].s.dtype == dt;
    return finish(f, "sl_cast", sl_cast(a, dt, o), &e, o, &pred, same && f->pool[as].source, tainted(f, as));
}

static void c_cast(Fuzzer *f) {
    int as;
    sl_array a = pick_handle(f, &as, 96);
    x_cast(f, as, a, gen_dtype(f));
}

/* ---- reductions ---- */

int x_reduce(Fuzzer *f, int op, int as, sl_array a, int dim, int form) {
    Expect e;
    ex_init(&e);
    int valid_op = op >= 0 && op <= SL_ARGMAX, named = form == 0 && valid_op;
    const char *fn = named ? reduce_fns[op].name : "sl_reduce";
    if (!valid_op) ex_bad(&e, BAD_ARG);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    int dim_ok = dim == SL_ALL_DIMS || (dim >= 0 && dim < SL_MAX_RANK);
    if (!dim_ok) ex_bad(&e, BAD_ARG);
    Shadow pred = {0};
    if (as >= 0 && valid_op) {
        const Shadow *sa = &f->pool[as].s;
        int rt = reduce_result(op, sa->dtype);
        if (rt < 0) ex_bad(&e, BAD_DTYPE);
        if (dim_ok && dim >= sa->rank) ex_bad(&e, BAD_ARG);
        if (rt >= 0 && dim_ok && dim < sa->rank) {
            int64_t dims[SL_MAX_RANK];
            memcpy(dims, sa->dims, sizeof dims);
            if (dim >= 0) dims[dim] = 1;
            /* Reducing a zero-length dimension of an empty array may leave a huge one. */
            if (!countable(&e, dim < 0 ? 0 : sa->rank, dims) && (f->shared->tolerate & TOL_A)) return -1;
            sh_init(&pred, rt, dim < 0 ? 0 : sa->rank, dims, sa->known);
            sv_reduce(op, sa, dim, &pred);
        }
    }
    if (named) log_begin(f, "%s(%s, %d)", fn, L(f, a, 0), dim);
    else log_begin(f, "sl_reduce(%d, %s, %d)", op, L(f, a, 0), dim);
    sl_status st = named ? reduce_fns[op].fn(a, dim, o) : sl_reduce(op, a, dim, o);
    return finish(f, fn, st, &e, o, &pred, 0, tainted(f, as));
}

static int pick_axis(Fuzzer *f, int as, int all_percent) {
    if (rand_pct(&f->r, all_percent)) return SL_ALL_DIMS;
    return pick_dim(f, as >= 0 ? f->pool[as].s.rank : 1);
}

static void c_reduce(Fuzzer *f) {
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int op = (int)rand_below(&f->r, SL_ARGMAX + 1);
    if (rand_pct(&f->r, 2)) op = rand_pct(&f->r, 50) ? -1 : SL_NORMINF + 1 + (int)rand_below(&f->r, 5);
    x_reduce(f, op, as, a, pick_axis(f, as, 40), rand_pct(&f->r, 70) ? 0 : 1);
}

static void c_scan(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as, prod = rand_pct(&f->r, 40);
    sl_array a = pick_handle(f, &as, 96);
    int dim = pick_axis(f, as, 5);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    if (!(dim >= 0 && dim < SL_MAX_RANK)) ex_bad(&e, BAD_ARG);
    Shadow pred = {0};
    if (as >= 0) {
        const Shadow *sa = &f->pool[as].s;
        int rt = scan_result(sa->dtype);
        if (rt < 0) ex_bad(&e, BAD_DTYPE);
        if (dim >= 0 && dim < SL_MAX_RANK && dim >= sa->rank) ex_bad(&e, BAD_ARG);
        if (rt >= 0 && dim >= 0 && dim < sa->rank) {
            sh_init(&pred, rt, sa->rank, sa->dims, sa->known);
            sv_scan(prod, sa, dim, &pred);
        }
    }
    const char *fn = prod ? "sl_cumprod" : "sl_cumsum";
    log_begin(f, "%s(%s, %d)", fn, L(f, a, 0), dim);
    finish(f, fn, prod ? sl_cumprod(a, dim, o) : sl_cumsum(a, dim, o), &e, o, &pred, 0, tainted(f, as));
}

/* The result type of the composed reductions (sl_reduce codes SL_NANSUM..SL_NORMINF), of
 * sl_var/sl_std (op -1) and of scans (sl_scan_op, `scan` set); -1 where refused. */
static int stats_result(int scan, int op, int dt) {
    int cplx = dt == SL_C64 || dt == SL_C128, real = dt == SL_C64 ? SL_F32 : dt == SL_C128 ? SL_F64 : dt;
    if (!dt_valid(dt)) return -1;
    if (scan) {
        if (op == SL_SCAN_SUM || op == SL_SCAN_PROD) return scan_result(dt);
        if (cplx || op < 0 || op > SL_SCAN_OR) return -1;
        return op == SL_SCAN_AND || op == SL_SCAN_OR ? SL_BOOL : dt;
    }
    switch (op) {
    case SL_NANSUM:
        return reduce_result(SL_SUM, dt);
    case SL_NANMEAN:
        return cplx ? dt : reduce_result(SL_MEAN, dt);
    case SL_NANMIN:
    case SL_NANMAX:
        return cplx ? -1 : dt;
    case -1:
    case SL_NORM1:
    case SL_NORM2:
    case SL_NORMINF:
        return dt == SL_BOOL ? -1 : cplx ? real : dt == SL_F32 ? SL_F32 : SL_F64;
    default:
        return cplx && op >= 0 && op <= SL_ARGMAX && op != SL_SUM && op != SL_PROD && op != SL_MEAN ? -1
               : reduce_result(op, dt);
    }
}

/* The reductions and scans composed in front/stats.rs: a set of dimensions or one, NaN-
 * ignoring ops, norms, variance, every scan op inclusive or exclusive. The model predicts
 * status, type and shape; values are left unknown. */
static void c_stats(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int form = (int)rand_below(&f->r, 6), rank = as >= 0 ? f->pool[as].s.rank : 1;
    int scan = form >= 4, dims_form = form == 1 || form == 3 || form == 5;
    int op = scan ? (int)rand_below(&f->r, SL_SCAN_OR + 1)
             : form == 0 ? SL_NANSUM + (int)rand_below(&f->r, SL_NORMINF - SL_NANSUM + 1)
             : form == 1 ? (int)rand_below(&f->r, SL_NORMINF + 1) : -1;
    if (rand_pct(&f->r, 2) && form != 2 && form != 3) op = scan ? 7 : 40;
    int dim = pick_axis(f, as, scan ? 5 : 30);
    uint32_t mask = (uint32_t)rand_below(&f->r, 1u << (rank < 4 ? rank + 1 : 4));
    int64_t ddof = rand_pct(&f->r, 3) ? -1 : (int64_t)rand_below(&f->r, 3);
    int exclusive = rand_pct(&f->r, 50), std = rand_pct(&f->r, 50);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    int op_ok = scan ? op >= 0 && op <= SL_SCAN_OR : op >= -1 && op <= SL_NORMINF;
    if (!op_ok) ex_bad(&e, BAD_ARG);
    if (form == 2 || form == 3) {
        if (ddof < 0) ex_bad(&e, BAD_ARG);
    }
    int dim_ok = dims_form ? 1 : scan ? dim >= 0 && dim < SL_MAX_RANK : dim == SL_ALL_DIMS || (dim >= 0 && dim < SL_MAX_RANK);
    if (!dim_ok) ex_bad(&e, BAD_ARG);
    Shadow pred = {0};
    if (as >= 0) {
        const Shadow *sa = &f->pool[as].s;
        int64_t dims[SL_MAX_RANK];
        memcpy(dims, sa->dims, sizeof dims);
        int out_rank = sa->rank, in_range = 1;
        if (dims_form) {
            in_range = mask != 0 && (mask >> sa->rank) == 0;
            if (!scan)
                for (int d = 0; d < sa->rank; d++)
                    if (mask & (1u << d)) dims[d] = 1;
            int several = mask & (mask - 1);
            if (!scan && several && (op == SL_ARGMIN || op == SL_ARGMAX)) ex_bad(&e, BAD_ARG);
        } else if (dim_ok) {
            in_range = dim < sa->rank;
            if (dim == SL_ALL_DIMS) out_rank = scan ? sa->rank : 0;
            else if (!scan && in_range) dims[dim] = 1;
        }
        if (!in_range) ex_bad(&e, BAD_ARG);
        int rt = op_ok ? stats_result(scan, op, sa->dtype) : 0;
        if (rt < 0) ex_bad(&e, BAD_DTYPE);
        if (op_ok && rt >= 0 && dim_ok && in_range) {
            if (!countable(&e, out_rank, dims) && (f->shared->tolerate & TOL_A)) return;
            sh_init(&pred, rt, out_rank, dims, 0);
        }
    }
    sl_status st;
    const char *fn;
    switch (form) {
    case 0:
        fn = "sl_reduce";
        log_begin(f, "sl_reduce(%d, %s, %d)", op, L(f, a, 0), dim);
        st = sl_reduce(op, a, dim, o);
        break;
    case 1:
        fn = "sl_reduce_dims";
        log_begin(f, "sl_reduce_dims(%d, %s, %#x)", op, L(f, a, 0), mask);
        st = sl_reduce_dims(op, a, mask, o);
        break;
    case 2:
        fn = std ? "sl_std" : "sl_var";
        log_begin(f, "%s(%s, %d, %lld)", fn, L(f, a, 0), dim, (long long)ddof);
        st = std ? sl_std(a, dim, ddof, o) : sl_var(a, dim, ddof, o);
        break;
    case 3:
        fn = std ? "sl_std_dims" : "sl_var_dims";
        log_begin(f, "%s(%s, %#x, %lld)", fn, L(f, a, 0), mask, (long long)ddof);
        st = std ? sl_std_dims(a, mask, ddof, o) : sl_var_dims(a, mask, ddof, o);
        break;
    case 4:
        fn = "sl_scan";
        log_begin(f, "sl_scan(%d, %s, %d, %d)", op, L(f, a, 0), dim, exclusive);
        st = sl_scan(op, a, dim, exclusive, o);
        break;
    default:
        fn = "sl_scan_dims";
        log_begin(f, "sl_scan_dims(%d, %s, %#x, %d)", op, L(f, a, 0), mask, exclusive);
        st = sl_scan_dims(op, a, mask, exclusive, o);
        break;
    }
    finish(f, fn, st, &e, o, &pred, 0, tainted(f, as));
}

/* A matrix or vector times a matrix or vector, not two vectors: [m, k] x [k, n] is [m, n],
 * [m, k] x [k] is [m] and [k] x [k, n] is [n]. Dimensions after the first two are a batch
 * that broadcasts as element-wise operands do: [m, k, p] x [k, n] is [m, n, p],
 * [m, k, 1, q] x [k, n, p] is [m, n, p, q]; a vector multiplies every matrix. */
static void c_matmul(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as = -1, bs = -1;
    for (int tries = 0; tries < 8 && as < 0; tries++) {
        int k = pool_pick(f);
        if (k >= 0 && f->pool[k].s.rank >= 1 && f->pool[k].s.rank <= 4 && dt_float(f->pool[k].s.dtype)) as = k;
    }
    sl_array a = as >= 0 && rand_pct(&f->r, 95) ? f->pool[as].h : pick_handle(f, &as, 90), b = 0;
    if (as >= 0 && f->pool[as].s.rank >= 1) {
        const Shadow *sa = &f->pool[as].s;
        int64_t k = sa->dims[sa->rank == 1 ? 0 : 1];
        for (int i = 0; i < POOL_MAX && bs < 0; i++) {
            const Shadow *t = &f->pool[i].s;
            if (f->pool[i].h && (t->rank >= 2 || (t->rank == 1 && sa->rank >= 2)) && t->dims[0] == k &&
                t->dtype == sa->dtype && rand_pct(&f->r, 50))
                bs = i;
        }
    }
    if (bs >= 0) b = f->pool[bs].h;
    else b = pick_handle(f, &bs, 95);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    if (bs < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && bs >= 0) {
        const Shadow *sa = &f->pool[as].s, *sb = &f->pool[bs].s;
        int batch = (sa->rank > sb->rank ? sa->rank : sb->rank) - 2, broadcasts = 1;
        int64_t dims[SL_MAX_RANK];
        int rank = 0;
        if (sa->rank >= 2) dims[rank++] = sa->dims[0];
        if (sb->rank >= 2) dims[rank++] = sb->dims[1];
        for (int d = 0; d < batch; d++) {
            int64_t x = d + 2 < sa->rank ? sa->dims[d + 2] : 1, y = d + 2 < sb->rank ? sb->dims[d + 2] : 1;
            if (x != y && x != 1 && y != 1) broadcasts = 0;
            dims[rank++] = x == 1 ? y : x;
        }
        if (!dt_float(sa->dtype) || sa->dtype != sb->dtype) ex_bad(&e, BAD_DTYPE);
        else if (sa->rank < 1 || sb->rank < 1 || sa->rank + sb->rank == 2) ex_bad(&e, BAD_SHAPE);
        else if (sb->dims[0] != sa->dims[sa->rank == 1 ? 0 : 1] || !broadcasts) ex_bad(&e, BAD_SHAPE);
        else {
            /* With an empty inner dimension the result may still be too large (refused);
             * the vector's unit dimension counts as the product node's. */
            int64_t node[SL_MAX_RANK] = {sa->rank >= 2 ? sa->dims[0] : 1, sb->rank >= 2 ? sb->dims[1] : 1};
            for (int d = 0; d < batch; d++) node[2 + d] = dims[rank - batch + d];
            if (countable(&e, 2 + (batch > 0 ? batch : 0), node)) {
                sh_init(&pred, sa->dtype, rank, dims, sa->known && sb->known);
                sv_matmul(sa, sb, &pred);
            }
        }
    }
    log_begin(f, "sl_matmul(%s, %s)", L(f, a, 0), L(f, b, 1));
    finish(f, "sl_matmul", sl_matmul(a, b, o), &e, o, &pred, 0, tainted(f, as) || tainted(f, bs));
}

static void c_dot(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as, bs;
    sl_array a = pick_handle(f, &as, 96), b;
    if (as >= 0 && rand_pct(&f->r, 85) && (bs = pick_partner(f, &f->pool[as].s, rand_pct(&f->r, 90), 1)) >= 0) b = f->pool[bs].h;
    else b = pick_handle(f, &bs, 95);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    if (bs < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && bs >= 0) {
        const Shadow *sa = &f->pool[as].s, *sb = &f->pool[bs].s;
        if (!sh_same_shape(sa, sb)) ex_bad(&e, BAD_SHAPE);
        else if (binary_result(SL_MUL, promote_types(sa->dtype, sb->dtype)) < 0) ex_bad(&e, BAD_DTYPE);
        else {
            Shadow p;
            int64_t none[1] = {0};
            int t = promote_types(sa->dtype, sb->dtype);
            sh_init(&p, t, sa->rank, sa->dims, sa->known && sb->known);
            sv_binary_as(SL_MUL, sa, sb, t, &p);
            sh_init(&pred, reduce_result(SL_SUM, t), 0, none, p.known);
            sv_reduce(SL_SUM, &p, -1, &pred);
            sh_free(&p);
        }
    }
    log_begin(f, "sl_dot(%s, %s)", L(f, a, 0), L(f, b, 1));
    finish(f, "sl_dot", sl_dot(a, b, o), &e, o, &pred, 0, tainted(f, as) || tainted(f, bs));
}

/* ---- movement ---- */

static void c_reshape(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int64_t dims[SL_MAX_RANK];
    int rank;
    if (as >= 0 && rand_pct(&f->r, 80)) { /* the same number of elements in other dimensions */
        int64_t n = f->pool[as].s.numel;
        rank = n == 0 ? 1 + (int)rand_below(&f->r, 3) : (int)rand_below(&f->r, 4);
        for (int d = 0; d < SL_MAX_RANK; d++) dims[d] = 1;
        if (n == 0) dims[rand_below(&f->r, (uint64_t)rank)] = 0;
        else if (rank == 0 && n != 1) rank = 1;
        for (int64_t m = n, p = 2; rank > 0 && m > 1;) {
            if (m % p == 0) {
                dims[rand_below(&f->r, (uint64_t)rank)] *= p;
                m /= p;
            } else p++;
        }
        if (n == 0 && rand_pct(&f->r, 20)) dims[rand_below(&f->r, (uint64_t)rank)] = gen_extreme(f);
    } else {
        rank = gen_app_shape(f, dims, 256);
    }
    int shape_ok = app_shape(&e, rank, dims);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && shape_ok) {
        const Shadow *sa = &f->pool[as].s;
        int64_t n;
        int big = numel_of(rank, dims, &n);
        unsigned __int128 total = 1;
        for (int d = 0; d < rank; d++) total *= (uint64_t)dims[d];
        if (big || total != (unsigned __int128)sa->numel) ex_bad(&e, BAD_SHAPE);
        else {
            sh_init(&pred, sa->dtype, rank, dims, sa->known);
            sv_reshape(sa, &pred);
        }
    }
    log_begin(f, "sl_reshape(%s, %s)", L(f, a, 0), S(rank, dims, 0));
    int same = as >= 0 && pred.rank == f->pool[as].s.rank && sh_same_shape(&pred, &f->pool[as].s);
    finish(f, "sl_reshape", sl_reshape(a, rank, dims, o), &e, o, &pred, same && f->pool[as].source, tainted(f, as));
}

static void c_permute(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int r = as >= 0 ? f->pool[as].s.rank : (int)rand_below(&f->r, 4);
    int perm[SL_MAX_RANK + 2], n = r;
    for (int d = 0; d < r; d++) perm[d] = d;
    for (int d = r - 1; d > 0; d--) {
        int k = (int)rand_below(&f->r, (uint64_t)d + 1), t = perm[d];
        perm[d] = perm[k];
        perm[k] = t;
    }
    if (rand_pct(&f->r, 10)) {
        uint64_t k = rand_below(&f->r, 4);
        if (k == 0 && r > 0) perm[rand_below(&f->r, (uint64_t)r)] = perm[(rand_below(&f->r, (uint64_t)r))];
        else if (k == 1 && r > 0) perm[rand_below(&f->r, (uint64_t)r)] = rand_pct(&f->r, 50) ? -1 : r + (int)rand_below(&f->r, 5);
        else if (k == 2) n = r + 1, perm[r] = r;
        else n = rand_pct(&f->r, 50) ? -1 : (r > 0 ? r - 1 : 0);
    }
    const int *pp = rand_pct(&f->r, 2) && n > 0 ? NULL : perm;
    sl_array out, *o = out_ptr(f, &out, &e);
    int args_ok = 1;
    if (n < 0 || (n > 0 && !pp)) ex_bad(&e, BAD_ARG), args_ok = 0;
    else
        for (int d = 0; d < n; d++)
            if (perm[d] < 0) {
                ex_bad(&e, BAD_ARG);
                args_ok = 0;
                break;
            }
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && args_ok) {
        const Shadow *sa = &f->pool[as].s;
        int seen[SL_MAX_RANK + 8] = {0}, ok = n == sa->rank;
        for (int d = 0; d < n && ok; d++) ok = perm[d] < sa->rank && !seen[perm[d]]++;
        if (!ok) ex_bad(&e, BAD_ARG);
        else {
            int64_t dims[SL_MAX_RANK];
            for (int d = 0; d < n; d++) dims[d] = sa->dims[perm[d]];
            sh_init(&pred, sa->dtype, n, dims, sa->known);
            sv_permute(sa, perm, &pred);
        }
    }
    log_begin(f, "sl_permute(%s, [", L(f, a, 0));
    for (int d = 0; d < n && pp; d++) log_more(f, d ? ",%d" : "%d", perm[d]);
    log_more(f, "], %d)", n);
    finish(f, "sl_permute", sl_permute(a, pp, n, o), &e, o, &pred, 0, tainted(f, as));
}

static void c_transpose(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0) {
        const Shadow *sa = &f->pool[as].s;
        int64_t dims[SL_MAX_RANK];
        memcpy(dims, sa->dims, sizeof dims);
        if (sa->rank == 0) sh_copy(&pred, sa);
        else if (sa->rank == 1) {
            int64_t d2[2] = {1, sa->dims[0]};
            sh_init(&pred, sa->dtype, 2, d2, sa->known);
            sv_reshape(sa, &pred);
        } else {
            int perm[SL_MAX_RANK];
            for (int d = 0; d < sa->rank; d++) perm[d] = d;
            perm[0] = 1;
            perm[1] = 0;
            dims[0] = sa->dims[1];
            dims[1] = sa->dims[0];
            sh_init(&pred, sa->dtype, sa->rank, dims, sa->known);
            sv_permute(sa, perm, &pred);
        }
    }
    log_begin(f, "sl_transpose(%s)", L(f, a, 0));
    finish(f, "sl_transpose", sl_transpose(a, o), &e, o, &pred, 0, tainted(f, as));
}

/* Known defect (a): whether `start + (count - 1) * stride` wraps around in 64 bits. */
static int section_wraps(int64_t start, int64_t count, int64_t stride) {
    int64_t t, last;
    return count > 0 && (__builtin_mul_overflow(count - 1, stride, &t) || __builtin_add_overflow(start, t, &last));
}

static void c_section(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int r = as >= 0 ? f->pool[as].s.rank : 2;
    int64_t start[SL_MAX_RANK], count[SL_MAX_RANK], stride[SL_MAX_RANK];
    for (int d = 0; d < r; d++) {
        int64_t n = as >= 0 ? f->pool[as].s.dims[d] : 4;
        if (rand_pct(&f->r, 85)) {
            static const int64_t steps[] = {1, 1, 1, 2, -1, -2, 3};
            stride[d] = steps[rand_below(&f->r, COUNT(steps))];
            start[d] = n ? (int64_t)rand_below(&f->r, (uint64_t)n) : 0;
            int64_t room = stride[d] > 0 ? (n - 1 - start[d]) / stride[d] + 1 : start[d] / -stride[d] + 1;
            count[d] = n ? (int64_t)rand_below(&f->r, (uint64_t)room + 1) : 0;
            if (rand_pct(&f->r, 3)) count[d]++;
        } else {
            start[d] = gen_offset(f, n);
            count[d] = rand_pct(&f->r, 50) ? gen_extreme(f) : (int64_t)rand_below(&f->r, 4);
            stride[d] = rand_pct(&f->r, 50) ? gen_extreme(f) : (int64_t)rand_below(&f->r, 5) - 2;
        }
        if ((f->shared->tolerate & TOL_A) && section_wraps(start[d], count[d], stride[d])) count[d] = 1;
    }
    int which_null = rand_pct(&f->r, 3) && r > 0 ? (int)rand_below(&f->r, 3) : -1;
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0) {
        const Shadow *sa = &f->pool[as].s;
        int ok = 1;
        if (which_null >= 0) ok = 0, ex_bad(&e, BAD_ARG);
        for (int d = 0; d < r && ok; d++) {
            __int128 last = (__int128)start[d] + (__int128)(count[d] - 1) * stride[d];
            int64_t n = sa->dims[d];
            if (stride[d] == 0 || count[d] < 0) ok = 0;
            else if (count[d] > 0 && (start[d] < 0 || start[d] >= n || last < 0 || last >= n)) ok = 0;
        }
        if (which_null < 0 && !ok) ex_bad(&e, BAD_ARG);
        if (ok) {
            int64_t st[SL_MAX_RANK];
            for (int d = 0; d < r; d++) st[d] = count[d] > 0 ? start[d] : 0;
            sh_init(&pred, sa->dtype, r, count, sa->known);
            sv_section(sa, st, stride, &pred);
        }
    }
    log_begin(f, "sl_section(%s, start %s, count %s, stride %s)", L(f, a, 0), S(r, which_null == 0 ? NULL : start, 0), S(r, which_null == 1 ? NULL : count, 1),
              S(r, which_null == 2 ? NULL : stride, 2));
    sl_status st = sl_section(a, which_null == 0 ? NULL : start, which_null == 1 ? NULL : count, which_null == 2 ? NULL : stride, o);
    finish(f, "sl_section", st, &e, o, &pred, 0, tainted(f, as));
}

static void c_project(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int r = as >= 0 ? f->pool[as].s.rank : 1;
    int dim = pick_dim(f, r);
    int64_t n = as >= 0 && dim >= 0 && dim < r ? f->pool[as].s.dims[dim] : 3;
    int64_t index = rand_pct(&f->r, 85) && n > 0 ? (int64_t)rand_below(&f->r, (uint64_t)n) : gen_offset(f, n);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (dim < 0 || dim >= SL_MAX_RANK) ex_bad(&e, BAD_ARG);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && dim >= 0 && dim < SL_MAX_RANK) {
        const Shadow *sa = &f->pool[as].s;
        if (dim >= sa->rank || index < 0 || index >= sa->dims[dim]) ex_bad(&e, BAD_ARG);
        else {
            int64_t dims[SL_MAX_RANK];
            for (int d = 0, k = 0; d < sa->rank; d++)
                if (d != dim) dims[k++] = sa->dims[d];
            sh_init(&pred, sa->dtype, sa->rank - 1, dims, sa->known);
            sv_project(sa, dim, index, &pred);
        }
    }
    log_begin(f, "sl_project(%s, %d, %lld)", L(f, a, 0), dim, (long long)index);
    finish(f, "sl_project", sl_project(a, dim, index, o), &e, o, &pred, 0, tainted(f, as));
}

/* Known defect (a): whether `i - offset` wraps for some i in [0, n). */
static int offset_wraps(int64_t offset, int64_t n) { return n > 0 && (__int128)(n - 1) - offset > INT64_MAX; }

/* sl_shift and sl_rotate. */
static int x_shift(Fuzzer *f, int as, sl_array a, int dim, int64_t offset, int rotate, int boundary, double fill) {
    Expect e;
    ex_init(&e);
    if (dim < 0 || dim >= SL_MAX_RANK) ex_bad(&e, BAD_ARG);
    if (!rotate && boundary != SL_BOUNDARY_FILL && boundary != SL_BOUNDARY_CLAMP && boundary != SL_BOUNDARY_WRAP) ex_bad(&e, BAD_ARG);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && dim >= 0 && dim < SL_MAX_RANK) {
        const Shadow *sa = &f->pool[as].s;
        int b = rotate ? SL_BOUNDARY_WRAP : boundary;
        if (dim >= sa->rank) ex_bad(&e, BAD_ARG);
        else if (b == SL_BOUNDARY_FILL && !scalar_fits(sa->dtype, fill)) ex_bad(&e, BAD_DTYPE);
        else if (b >= SL_BOUNDARY_FILL && b <= SL_BOUNDARY_WRAP) {
            if ((f->shared->tolerate & TOL_A) && offset_wraps(offset, sa->dims[dim])) return -1;
            if ((f->shared->tolerate & TOL_O) && f->shared->vulkan && (offset >= INT32_MAX || offset <= INT32_MIN)) return -1;
            int64_t off[SL_MAX_RANK] = {0};
            off[dim] = offset;
            sh_init(&pred, sa->dtype, sa->rank, sa->dims, sa->known);
            sv_offset(sa, off, b, b == SL_BOUNDARY_FILL ? scalar_val(sa->dtype, fill) : scalar_val(sa->dtype, 0), &pred);
        }
    }
    const char *fn = rotate ? "sl_rotate" : "sl_shift";
    if (rotate) log_begin(f, "sl_rotate(%s, %d, %lld)", L(f, a, 0), dim, (long long)offset);
    else log_begin(f, "sl_shift(%s, %d, %lld, boundary %d, %.17g)", L(f, a, 0), dim, (long long)offset, boundary, fill);
    sl_status st = rotate ? sl_rotate(a, dim, offset, o) : sl_shift(a, dim, offset, boundary, fill, o);
    return finish(f, fn, st, &e, o, &pred, 0, tainted(f, as));
}

int x_rotate(Fuzzer *f, int as, sl_array a, int dim, int64_t offset) { return x_shift(f, as, a, dim, offset, 1, 0, 0); }

static void c_shift(Fuzzer *f) {
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int r = as >= 0 ? f->pool[as].s.rank : 1;
    int dim = pick_dim(f, r);
    int64_t n = as >= 0 && dim >= 0 && dim < r ? f->pool[as].s.dims[dim] : 4;
    int rotate = rand_pct(&f->r, 40);
    int boundary = rand_pct(&f->r, 97) ? (int)rand_below(&f->r, 3) : (rand_pct(&f->r, 50) ? 3 : -1);
    x_shift(f, as, a, dim, gen_offset(f, n), rotate, boundary, gen_scalar(f, as >= 0 ? f->pool[as].s.dtype : SL_F32));
}

static void c_pad(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int r = as >= 0 ? f->pool[as].s.rank : 2;
    int64_t lo[SL_MAX_RANK], hi[SL_MAX_RANK];
    for (int d = 0; d < r; d++) {
        lo[d] = rand_pct(&f->r, 90) ? (int64_t)rand_below(&f->r, 3) : gen_extreme(f);
        hi[d] = rand_pct(&f->r, 90) ? (int64_t)rand_below(&f->r, 3) : gen_extreme(f);
    }
    int boundary = rand_pct(&f->r, 97) ? (int)rand_below(&f->r, 3) : 7;
    double fill = gen_scalar(f, as >= 0 ? f->pool[as].s.dtype : SL_F32);
    int which_null = rand_pct(&f->r, 3) && r > 0 ? (int)rand_below(&f->r, 2) : -1;
    if (boundary > SL_BOUNDARY_WRAP) ex_bad(&e, BAD_ARG);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0) {
        const Shadow *sa = &f->pool[as].s;
        int neg = 0;
        uint64_t dims[SL_MAX_RANK];
        int64_t out_dims[SL_MAX_RANK];
        for (int d = 0; d < r; d++) {
            neg |= lo[d] < 0 || hi[d] < 0;
            unsigned __int128 s = (unsigned __int128)(uint64_t)sa->dims[d] + (uint64_t)lo[d] + (uint64_t)hi[d];
            dims[d] = s > UINT64_MAX ? UINT64_MAX : (uint64_t)s;
        }
        if (which_null >= 0 || neg) ex_bad(&e, BAD_ARG);
        else if (sized_result(&e, r, dims, out_dims)) {
            int b = boundary;
            int64_t n_out;
            numel_of(r, out_dims, &n_out);
            if (b == SL_BOUNDARY_FILL && !scalar_fits(sa->dtype, fill)) ex_bad(&e, BAD_DTYPE);
            else if (b != SL_BOUNDARY_FILL && b <= SL_BOUNDARY_WRAP && sa->numel == 0 && n_out > 0) ex_bad(&e, BAD_ARG);
            else if (b <= SL_BOUNDARY_WRAP) {
                sh_init(&pred, sa->dtype, r, out_dims, sa->known);
                sv_offset(sa, lo, b, scalar_val(sa->dtype, b == SL_BOUNDARY_FILL ? fill : 0), &pred);
            }
        } else if (f->shared->tolerate & TOL_A) {
            int zero = 0;
            for (int d = 0; d < r; d++) zero |= dims[d] == 0;
            if (zero) return;
        }
    }
    log_begin(f, "sl_pad(%s, lo %s, hi %s, boundary %d, %.17g)", L(f, a, 0), S(r, which_null == 0 ? NULL : lo, 0), S(r, which_null == 1 ? NULL : hi, 1),
              boundary, fill);
    sl_status st = sl_pad(a, which_null == 0 ? NULL : lo, which_null == 1 ? NULL : hi, boundary, fill, o);
    finish(f, "sl_pad", st, &e, o, &pred, 0, tainted(f, as));
}

static void c_tile(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int r = as >= 0 ? f->pool[as].s.rank : 1;
    int n = r + (rand_pct(&f->r, 30) ? (int)rand_below(&f->r, 3) : 0);
    if (rand_pct(&f->r, 3)) n = rand_pct(&f->r, 50) ? -1 : 9;
    int64_t reps[10];
    for (int d = 0; d < 10; d++) reps[d] = rand_pct(&f->r, 92) ? (int64_t)rand_below(&f->r, 4) : gen_extreme(f);
    const int64_t *rp = rand_pct(&f->r, 2) && n > 0 ? NULL : reps;
    sl_array out, *o = out_ptr(f, &out, &e);
    int args_ok = 1;
    if (n < 0 || (n > 0 && !rp)) ex_bad(&e, BAD_ARG), args_ok = 0;
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && args_ok) {
        const Shadow *sa = &f->pool[as].s;
        int neg = 0;
        for (int d = 0; d < n && d < 10; d++) neg |= reps[d] < 0;
        if (n > SL_MAX_RANK || neg) ex_bad(&e, BAD_ARG);
        else {
            int rr = sa->rank > n ? sa->rank : n;
            uint64_t dims[SL_MAX_RANK];
            int64_t out_dims[SL_MAX_RANK], src_dims[SL_MAX_RANK];
            int zero = 0;
            for (int d = 0; d < rr; d++) {
                src_dims[d] = d < sa->rank ? sa->dims[d] : 1;
                unsigned __int128 p = (unsigned __int128)(uint64_t)src_dims[d] * (uint64_t)(d < n ? reps[d] : 1);
                dims[d] = p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
                zero |= dims[d] == 0;
            }
            if (sized_result(&e, rr, dims, out_dims)) {
                int64_t n_out;
                numel_of(rr, out_dims, &n_out);
                if (sa->numel == 0 && n_out > 0) ex_bad(&e, BAD_ARG);
                else {
                    Shadow src;
                    sh_copy(&src, sa);
                    src.rank = rr;
                    memcpy(src.dims, src_dims, sizeof src_dims);
                    int64_t off[SL_MAX_RANK] = {0};
                    sh_init(&pred, sa->dtype, rr, out_dims, sa->known);
                    sv_offset(&src, off, SL_BOUNDARY_WRAP, scalar_val(sa->dtype, 0), &pred);
                    sh_free(&src);
                }
            } else if ((f->shared->tolerate & TOL_A) && zero) {
                return;
            }
        }
    }
    log_begin(f, "sl_tile(%s, %s, %d)", L(f, a, 0), S(n < 0 || n > 8 ? 0 : n, rp, 0), n);
    finish(f, "sl_tile", sl_tile(a, rp, n, o), &e, o, &pred, 0, tainted(f, as));
}

static void c_broadcast_to(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 96);
    int64_t dims[SL_MAX_RANK];
    int rank;
    if (as >= 0 && rand_pct(&f->r, 80)) {
        const Shadow *sa = &f->pool[as].s;
        rank = sa->rank + (int)rand_below(&f->r, (uint64_t)(SL_MAX_RANK - sa->rank) < 3 ? (uint64_t)(SL_MAX_RANK - sa->rank) + 1 : 3);
        for (int d = 0; d < rank; d++) {
            int64_t x = d < sa->rank ? sa->dims[d] : 1;
            dims[d] = x == 1 && rand_pct(&f->r, 50) ? (int64_t)rand_below(&f->r, 5) : x;
        }
        if (rand_pct(&f->r, 5) && rank > 0) dims[rand_below(&f->r, (uint64_t)rank)] = gen_extreme(f);
    } else {
        rank = gen_app_shape(f, dims, 256);
    }
    int shape_ok = app_shape(&e, rank, dims);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0 && shape_ok) {
        const Shadow *sa = &f->pool[as].s;
        int r;
        int64_t b[SL_MAX_RANK];
        int same = broadcast_shapes(sa->rank, sa->dims, rank, dims, &r, b) && r == rank && memcmp(b, dims, sizeof(int64_t) * (size_t)r) == 0;
        if (!same) ex_bad(&e, BAD_SHAPE);
        else {
            sh_init(&pred, sa->dtype, rank, dims, sa->known);
            sv_broadcast(sa, &pred);
        }
    }
    log_begin(f, "sl_broadcast_to(%s, %s)", L(f, a, 0), S(rank, dims, 0));
    finish(f, "sl_broadcast_to", sl_broadcast_to(a, rank, dims, o), &e, o, &pred, 0, tainted(f, as));
}

static void c_concat(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int slots[6], n = 1 + (int)rand_below(&f->r, 4);
    sl_array hs[6];
    hs[0] = pick_handle(f, &slots[0], 96);
    int dim = slots[0] >= 0 && rand_pct(&f->r, 90) ? (int)rand_below(&f->r, (uint64_t)f->pool[slots[0]].s.rank + 1) : pick_dim(f, 2);
    for (int k = 1; k < n; k++) {
        slots[k] = -1;
        if (slots[0] >= 0 && rand_pct(&f->r, 90)) {
            const Shadow *s0 = &f->pool[slots[0]].s;
            int cand[POOL_MAX], m = 0;
            for (int i = 0; i < POOL_MAX; i++) {
                const Shadow *t = &f->pool[i].s;
                if (!f->pool[i].h || t->dtype != s0->dtype) continue;
                int r = s0->rank > t->rank ? s0->rank : t->rank, ok = 1;
                for (int d = 0; d < r && ok; d++)
                    if (d != dim) ok = (d < s0->rank ? s0->dims[d] : 1) == (d < t->rank ? t->dims[d] : 1);
                if (ok) cand[m++] = i;
            }
            if (m) slots[k] = cand[rand_below(&f->r, (uint64_t)m)];
        }
        hs[k] = slots[k] >= 0 ? f->pool[slots[k]].h : pick_handle(f, &slots[k], 95);
    }
    if (rand_pct(&f->r, 3)) n = rand_pct(&f->r, 50) ? 0 : -1;
    const sl_array *hp = rand_pct(&f->r, 2) && n > 0 ? NULL : hs;
    sl_array out, *o = out_ptr(f, &out, &e);
    int args_ok = 1;
    if (dim < 0 || dim >= SL_MAX_RANK) ex_bad(&e, BAD_ARG), args_ok = 0;
    if (n < 0 || (n > 0 && !hp)) ex_bad(&e, BAD_ARG), args_ok = 0;
    for (int k = 0; k < n && hp; k++)
        if (slots[k] < 0) ex_bad(&e, BAD_HANDLE), args_ok = 0;
    if (args_ok && n == 0) ex_bad(&e, BAD_ARG), args_ok = 0;
    Shadow pred = {0};
    if (args_ok) {
        const Shadow *parts[6];
        int r = dim + 1, ok = 1;
        for (int k = 0; k < n; k++) {
            parts[k] = &f->pool[slots[k]].s;
            if (parts[k]->rank > r) r = parts[k]->rank;
        }
        int64_t dims[SL_MAX_RANK];
        for (int d = 0; d < r; d++) dims[d] = d < parts[0]->rank ? parts[0]->dims[d] : 1;
        uint64_t along = 0;
        for (int k = 0; k < n && ok; k++) {
            if (parts[k]->dtype != parts[0]->dtype) ex_bad(&e, BAD_DTYPE), ok = 0;
            for (int d = 0; d < r && ok; d++)
                if (d != dim && (d < parts[k]->rank ? parts[k]->dims[d] : 1) != dims[d]) ex_bad(&e, BAD_SHAPE), ok = 0;
            uint64_t x = (uint64_t)(dim < parts[k]->rank ? parts[k]->dims[dim] : 1);
            along = along + x < along ? UINT64_MAX : along + x;
        }
        if (ok) {
            uint64_t ud[SL_MAX_RANK];
            for (int d = 0; d < r; d++) ud[d] = d == dim ? along : (uint64_t)dims[d];
            int known = 1;
            for (int k = 0; k < n; k++) known &= parts[k]->known;
            if (n == 1 || sized_result(&e, r, ud, dims)) {
                dims[dim] = (int64_t)along;
                sh_init(&pred, parts[0]->dtype, r, dims, known);
                sv_concat(parts, n, dim, &pred);
            }
        }
    }
    log_begin(f, "sl_concat([");
    for (int k = 0; k < n && hp; k++) log_more(f, k ? ", %s" : "%s", L(f, hs[k], k));
    log_more(f, "], %d, dim %d)", n, dim);
    int taint = 0;
    for (int k = 0; k < n && hp; k++) taint |= tainted(f, slots[k]);
    finish(f, "sl_concat", sl_concat(hp, n, dim, o), &e, o, &pred, 0, taint);
}

/* Index arrays for a gather or scatter into `s`: pool integer arrays that broadcast, or
 * new ones made for the purpose (outside macro recordings). */
static void index_arrays(Fuzzer *f, const Shadow *s, int n, int *slots, sl_array *hs, const Shadow *like) {
    int64_t dims[SL_MAX_RANK];
    if (like && (like->numel > 64 || like->numel == 0)) like = NULL; /* (an empty shape may still be large) */
    for (int d = 0; like && d < like->rank; d++)
        if (like->dims[d] > 64) like = NULL;
    int rank = like ? like->rank : 1 + (int)rand_below(&f->r, 2);
    if (like) memcpy(dims, like->dims, sizeof dims);
    else gen_dims(f, rank, dims, 64);
    for (int d = 0; d < n; d++) {
        slots[d] = -1;
        if (rand_pct(&f->r, 3)) {
            hs[d] = pick_handle(f, &slots[d], 50);
            continue;
        }
        if (!f->recording && rand_pct(&f->r, 80)) {
            int64_t size = d < s->rank ? s->dims[d] : 3;
            Shadow v;
            int dt = rand_pct(&f->r, 90) ? (rand_pct(&f->r, 60) ? SL_I64 : rand_pct(&f->r, 70) ? SL_I32 : SL_U8) : gen_valid_dtype(f);
            int64_t dd[SL_MAX_RANK];
            memcpy(dd, dims, sizeof dd);
            int rr = rank;
            if (rand_pct(&f->r, 20) && rr > 0) dd[rand_below(&f->r, (uint64_t)rr)] = 1; /* broadcasts */
            sh_init(&v, dt, rr, dd, 1);
            if (!v.known) { /* too large to write out: make nothing */
                sh_free(&v);
                hs[d] = 0;
                continue;
            }
            for (int64_t i = 0; i < v.numel; i++) {
                int64_t x = rand_pct(&f->r, 90) ? (int64_t)rand_below(&f->r, (uint64_t)size + 1) - (rand_pct(&f->r, 10) ? 1 : 0) : gen_extreme(f);
                Val val = {(double)x, x, 0};
                if (dt_float(dt)) val.f = (double)(x % 8);
                sh_put(&v, i, val);
            }
            sl_array h = 0;
            log_begin(f, "sl_create(%s, %s) [index %d]", dt_name(dt), S(rr, dd, 0), d);
            Expect e;
            ex_init(&e);
            sl_status st = sl_create(dt, rr, dd, SL_COL_MAJOR, v.vals ? (void *)v.vals : (void *)&h, (size_t)v.numel * dt_size(dt), &h);
            slots[d] = finish(f, "sl_create", st, &e, &h, &v, 1, 0);
        } else {
            slots[d] = pool_pick(f);
        }
        hs[d] = slots[d] >= 0 ? f->pool[slots[d]].h : 0;
    }
}

static void c_gather(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int ss;
    sl_array src = pick_handle(f, &ss, 96);
    int r = ss >= 0 ? f->pool[ss].s.rank : 1;
    int n = rand_pct(&f->r, 95) ? r : r + 1;
    int islots[SL_MAX_RANK + 1];
    sl_array ih[SL_MAX_RANK + 1];
    Shadow dummy;
    int64_t one[1] = {3};
    sh_init(&dummy, SL_F32, 1, one, 0);
    index_arrays(f, ss >= 0 ? &f->pool[ss].s : &dummy, n, islots, ih, NULL);
    if (ss >= 0 && f->pool[ss].h != src) ss = -1, src = 0; /* replaced while making the indices */
    for (int d = 0; d < n; d++)
        if (islots[d] >= 0 && f->pool[islots[d]].h != ih[d]) islots[d] = -1;
    sh_free(&dummy);
    const sl_array *ip = rand_pct(&f->r, 2) && n > 0 ? NULL : ih;
    sl_array out, *o = out_ptr(f, &out, &e);
    if (ss < 0) ex_bad(&e, BAD_HANDLE);
    int args_ok = 1;
    if (n > 0 && !ip) ex_bad(&e, BAD_ARG), args_ok = 0;
    for (int d = 0; d < n && ip; d++)
        if (islots[d] < 0) ex_bad(&e, BAD_HANDLE), args_ok = 0;
    Shadow pred = {0};
    if (ss >= 0 && args_ok) {
        const Shadow *s = &f->pool[ss].s, *idx[SL_MAX_RANK + 1];
        int rank = 0, ok = 1, known = s->known;
        int64_t dims[SL_MAX_RANK];
        for (int d = 0; d < n; d++) idx[d] = &f->pool[islots[d]].s;
        if (s->rank == 0 || n != s->rank) ex_bad(&e, BAD_ARG), ok = 0;
        for (int d = 0; d < n && ok; d++) /* float indices are floored */
            if (!integer_dtype(idx[d]->dtype) && !dt_float(idx[d]->dtype)) ex_bad(&e, BAD_DTYPE), ok = 0;
        if (ok) {
            rank = idx[0]->rank;
            memcpy(dims, idx[0]->dims, sizeof dims);
            for (int d = 1; d < n && ok; d++)
                if (!broadcast_shapes(rank, dims, idx[d]->rank, idx[d]->dims, &rank, dims)) ex_bad(&e, BAD_SHAPE), ok = 0;
        }
        int64_t numel = 0;
        if (ok && !countable(&e, rank, dims)) ok = 0;
        if (ok) numel_of(rank, dims, &numel);
        if (ok && s->numel == 0 && numel > 0) ex_bad(&e, BAD_ARG), ok = 0;
        if (ok) {
            for (int d = 0; d < n; d++) known &= idx[d]->known;
            sh_init(&pred, s->dtype, rank, dims, known);
            sv_gather(s, idx, &pred);
        }
    }
    log_begin(f, "sl_gather(%s, [", L(f, src, 0));
    for (int d = 0; d < n && ip; d++) log_more(f, d ? ", %s" : "%s", L(f, ih[d], d + 1));
    log_more(f, "], %d)", n);
    int taint = tainted(f, ss);
    for (int d = 0; d < n; d++) taint |= tainted(f, islots[d]);
    finish(f, "sl_gather", sl_gather(src, ip, n, o), &e, o, &pred, 0, taint);
}

static void c_scatter(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int ds, vs;
    sl_array dst = pick_handle(f, &ds, 96), values;
    int r = ds >= 0 ? f->pool[ds].s.rank : 1;
    int n = rand_pct(&f->r, 95) ? r : r + 1;
    int mode = rand_pct(&f->r, 97) ? (int)rand_below(&f->r, 4) : (rand_pct(&f->r, 50) ? 4 : -1);
    if (ds >= 0 && rand_pct(&f->r, 85) && (vs = pick_partner(f, &f->pool[ds].s, 1, 0)) >= 0) values = f->pool[vs].h;
    else values = pick_handle(f, &vs, 95);
    int islots[SL_MAX_RANK + 1];
    sl_array ih[SL_MAX_RANK + 1];
    Shadow dummy;
    int64_t one[1] = {3};
    sh_init(&dummy, SL_F32, 1, one, 0);
    index_arrays(f, ds >= 0 ? &f->pool[ds].s : &dummy, n, islots, ih, vs >= 0 && rand_pct(&f->r, 70) ? &f->pool[vs].s : NULL);
    sh_free(&dummy);
    if (ds >= 0 && f->pool[ds].h != dst) ds = -1;
    if (vs >= 0 && f->pool[vs].h != values) vs = -1;
    for (int d = 0; d < n; d++)
        if (islots[d] >= 0 && f->pool[islots[d]].h != ih[d]) islots[d] = -1;
    const sl_array *ip = rand_pct(&f->r, 2) && n > 0 ? NULL : ih;
    if (mode < 0 || mode > SL_SCATTER_MAX) ex_bad(&e, BAD_ARG);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (ds < 0) ex_bad(&e, BAD_HANDLE);
    if (vs < 0) ex_bad(&e, BAD_HANDLE);
    int args_ok = ds >= 0 && vs >= 0;
    if (n > 0 && !ip) ex_bad(&e, BAD_ARG), args_ok = 0;
    for (int d = 0; d < n && ip; d++)
        if (islots[d] < 0) ex_bad(&e, BAD_HANDLE), args_ok = 0;
    Shadow pred = {0};
    if (args_ok) {
        const Shadow *s = &f->pool[ds].s, *v = &f->pool[vs].s, *idx[SL_MAX_RANK + 1];
        int ok = 1, rank = v->rank, known = s->known && v->known;
        int64_t dims[SL_MAX_RANK];
        memcpy(dims, v->dims, sizeof dims);
        for (int d = 0; d < n; d++) idx[d] = &f->pool[islots[d]].s;
        if (s->rank == 0 || n != s->rank) ex_bad(&e, BAD_ARG), ok = 0;
        for (int d = 0; d < n && ok; d++)
            if (!integer_dtype(idx[d]->dtype)) ex_bad(&e, BAD_DTYPE), ok = 0;
        if (ok && v->dtype != s->dtype) ex_bad(&e, BAD_DTYPE), ok = 0;
        if (ok && s->dtype == SL_BOOL && mode == SL_SCATTER_ADD) ex_bad(&e, BAD_DTYPE), ok = 0;
        for (int d = 0; d < n && ok; d++)
            if (!broadcast_shapes(rank, dims, idx[d]->rank, idx[d]->dims, &rank, dims)) ex_bad(&e, BAD_SHAPE), ok = 0;
        if (ok && !countable(&e, rank, dims)) ok = 0;
        if (ok && mode >= 0 && mode <= SL_SCATTER_MAX) {
            for (int d = 0; d < n; d++) known &= idx[d]->known;
            sh_init(&pred, s->dtype, s->rank, s->dims, known);
            sv_scatter(s, idx, v, mode, &pred);
        }
    }
    log_begin(f, "sl_scatter(%s, [", L(f, dst, 0));
    for (int d = 0; d < n && ip; d++) log_more(f, d ? ", %s" : "%s", L(f, ih[d], d + 1));
    log_more(f, "], %d, %s, mode %d)", n, L(f, values, 7), mode);
    int taint = tainted(f, ds) || tainted(f, vs);
    for (int d = 0; d < n; d++) taint |= tainted(f, islots[d]);
    finish(f, "sl_scatter", sl_scatter(dst, ip, n, values, mode, o), &e, o, &pred, 0, taint);
}

/* ---- reads and evaluation ---- */

static void c_read(Fuzzer *f) {
    int slot = pool_pick_small(f, SHADOW_MAX_NUMEL);
    if (slot >= 0 && rand_pct(&f->r, 90)) {
        check_read(f, slot, rand_pct(&f->r, 20));
        return;
    }
    /* Bad reads: bad handles, NULL buffers, short buffers, bad layouts. */
    Expect e;
    ex_init(&e);
    int peek = rand_pct(&f->r, 30);
    const char *fn = peek ? "sl_debug_peek" : "sl_read";
    if (f->recording) ex_bad(&e, SL_ERR_INVALID_STATE);
    int layout = rand_pct(&f->r, 80) ? SL_COL_MAJOR : 5;
    if (layout == 5) ex_bad(&e, BAD_ARG);
    sl_array h = pick_handle(f, &slot, 70);
    if (slot < 0) ex_bad(&e, BAD_HANDLE);
    size_t need = slot >= 0 && f->pool[slot].s.numel <= SHADOW_MAX_NUMEL ? (size_t)f->pool[slot].s.numel * dt_size(f->pool[slot].s.dtype) : 0;
    size_t bytes = rand_pct(&f->r, 50) && need ? need - 1 - rand_below(&f->r, need) : need;
    unsigned char *buf = malloc(need + 1);
    void *dst = rand_pct(&f->r, 30) ? NULL : buf;
    if (slot >= 0 && !dst && bytes > 0) ex_bad(&e, BAD_ARG);
    else if (slot >= 0 && bytes < need) ex_bad(&e, BAD_ARG);
    log_begin(f, "%s(%s, layout %d, %s, %zu bytes) [bad read]", fn, L(f, h, 0), layout, dst ? "buf" : "NULL", bytes);
    check_call(f, fn, peek ? sl_debug_peek(h, layout, dst, bytes) : sl_read(h, layout, dst, bytes), &e, NULL, 0);
    log_end(f);
    free(buf);
}

static void c_reference(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as;
    sl_array a = pick_handle(f, &as, 90);
    if (f->recording) ex_bad(&e, SL_ERR_INVALID_STATE);
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    if (as >= 0) {
        const Shadow *sa = &f->pool[as].s;
        /* Without result comparison only arrays made from data have a reference. */
        if (!f->pool[as].source) e.maybe = 1;
        int dt = dt_float(sa->dtype) ? SL_F64 : sa->dtype;
        sh_init(&pred, dt, sa->rank, sa->dims, sa->known);
        sv_cast(sa, &pred);
    }
    log_begin(f, "sl_reference(%s)", L(f, a, 0));
    sl_status st = sl_reference(a, o);
    if (st != SL_OK && e.maybe && e.problems == 0 && st != SL_ERR_INVALID_STATE) broken(f, "sl_reference of an array without a reference gave status %d, not SL_ERR_INVALID_STATE", st);
    finish(f, "sl_reference", st, &e, o, &pred, 1, tainted(f, as));
}

static void c_eval(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int n = (int)rand_below(&f->r, 5), slots[4];
    sl_array hs[4];
    for (int k = 0; k < n; k++) {
        hs[k] = pick_handle(f, &slots[k], 93);
        if (slots[k] < 0) ex_bad(&e, BAD_HANDLE);
    }
    if (f->recording) ex_bad(&e, SL_ERR_INVALID_STATE);
    const sl_array *hp = hs;
    if (rand_pct(&f->r, 3)) {
        if (rand_pct(&f->r, 50)) n = -1 - (int)rand_below(&f->r, 3);
        else hp = NULL;
        if (n < 0 || (n > 0 && !hp)) ex_bad(&e, BAD_ARG);
    }
    log_begin(f, "sl_eval([");
    for (int k = 0; k < n && hp; k++) log_more(f, k ? ", %s" : "%s", L(f, hs[k], k));
    log_more(f, "], %d)", n);
    check_call(f, "sl_eval", sl_eval(hp, n), &e, NULL, 0);
    log_end(f);
}

static void c_hint_sync(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    if (f->recording) ex_bad(&e, SL_ERR_INVALID_STATE);
    if (rand_pct(&f->r, 60)) {
        int slot;
        sl_array h = pick_handle(f, &slot, 90);
        if (slot < 0) ex_bad(&e, BAD_HANDLE);
        log_begin(f, "sl_hint_read(%s)", L(f, h, 0));
        check_call(f, "sl_hint_read", sl_hint_read(h), &e, NULL, 0);
    } else {
        log_begin(f, "sl_sync()");
        check_call(f, "sl_sync", sl_sync(), &e, NULL, 0);
    }
    log_end(f);
}

/* ---- shapes beyond memory, never computed (known defect a) ---- */

/* Lazy arrays with huge dimensions (nothing is computed): every shape-changing call on
 * them must either give the right shape or refuse a result whose elements cannot be
 * counted. The results are released at once. */
/* The functions c_apply applies: the negation of each element, the sum of each block. */
static sl_status fz_neg(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out, (void)user;
    return sl_neg(p[0], &out[0]);
}
static sl_status fz_block_sum(const sl_array *p, int32_t n_in, sl_array *out, int32_t n_out, void *user) {
    (void)n_in, (void)n_out, (void)user;
    return sl_sum(p[0], SL_ALL_DIMS, &out[0]);
}

/* Window `k` of `a` along `dim` as sl_apply_blocks cuts it (`window` elements from
 * `k * size - before`, outside the array resolved by `boundary`, the fill 0), into `w`. */
static void block_window(const Shadow *a, int dim, int64_t size, int64_t before, int64_t window, int boundary, int64_t k, Shadow *w) {
    int64_t dims[SL_MAX_RANK], c[SL_MAX_RANK];
    memcpy(dims, a->dims, sizeof dims);
    dims[dim] = window;
    sh_init(w, a->dtype, a->rank, dims, a->known);
    if (!a->known) return;
    int64_t n = a->dims[dim];
    for (int64_t i = 0; i < w->numel; i++) {
        unravel(w->rank, w->dims, i, c);
        int64_t at = k * size - before + c[dim];
        if (at < 0 || at >= n) {
            if (boundary == SL_BOUNDARY_FILL) {
                sh_put(w, i, scalar_val(a->dtype, 0.0));
                continue;
            }
            at = boundary == SL_BOUNDARY_CLAMP ? (at < 0 ? 0 : n - 1) : ((at % n) + n) % n;
        }
        c[dim] = at;
        sh_put(w, i, sh_get(a, ravel(a->rank, a->dims, c)));
    }
}

/* sl_apply_elements of the negation, or sl_apply_blocks of the block sum (one value per
 * block, options drawn, sometimes out of range): the model computes the same from the
 * input's values. */
static void c_apply(Fuzzer *f) {
    Expect e;
    ex_init(&e);
    int as = -1;
    sl_array a = rand_pct(&f->r, 90) && (as = pool_pick_small(f, 256)) >= 0 ? f->pool[as].h : pick_handle(f, &as, 0);
    if (as >= 0)
        for (int d = 0; d < f->pool[as].s.rank; d++)
            if (f->pool[as].s.dims[d] > 256) return; /* an empty array of a huge size: not here */
    sl_array out, *o = out_ptr(f, &out, &e);
    if (as < 0) ex_bad(&e, BAD_HANDLE);
    Shadow pred = {0};
    const Shadow *sa = as >= 0 ? &f->pool[as].s : NULL;
    if (rand_pct(&f->r, 40)) {
        if (sa && unary_result(SL_NEG, sa->dtype) < 0) {
            ex_bad(&e, BAD_DTYPE);
            e.inner = 1; /* the function's sl_neg fails first */
        } else if (sa) {
            sh_init(&pred, unary_result(SL_NEG, sa->dtype), sa->rank, sa->dims, sa->known);
            sv_unary(SL_NEG, sa, &pred);
        }
        log_begin(f, "sl_apply_elements(neg, [%s])", L(f, a, 0));
        finish(f, "sl_apply_elements", sl_apply_elements(fz_neg, NULL, &a, 1, NULL, 0, o, o ? 1 : 0), &e, o, &pred, 0, tainted(f, as));
        return;
    }
    sl_block_options opt;
    sl_block_options_default(&opt);
    sl_block_output scalar = {SL_OUTPUT_SCALAR, 0, {0}};
    opt.outputs = &scalar, opt.n_outputs = 1;
    opt.dim = rand_pct(&f->r, 30) ? SL_DIM_AUTO : (int)rand_below(&f->r, 4);
    opt.block_size = (int64_t)rand_below(&f->r, 5);
    opt.overlap_before = (int64_t)rand_below(&f->r, 3), opt.overlap_after = (int64_t)rand_below(&f->r, 3);
    opt.boundary = (int)rand_below(&f->r, 3);
    if (rand_pct(&f->r, 3)) opt.dim = rand_pct(&f->r, 50) ? -2 : SL_MAX_RANK + (int)rand_below(&f->r, 3);
    if (rand_pct(&f->r, 3)) opt.block_size = -1 - (int64_t)rand_below(&f->r, 3);
    if (rand_pct(&f->r, 3)) opt.boundary = 3 + (int)rand_below(&f->r, 5);
    if (opt.dim != SL_DIM_AUTO && !(opt.dim >= 0 && opt.dim < SL_MAX_RANK)) ex_bad(&e, BAD_ARG);
    if (opt.block_size <= 0 || opt.boundary > SL_BOUNDARY_WRAP) ex_bad(&e, BAD_ARG);
    int rt = sa ? reduce_result(SL_SUM, sa->dtype) : -1;
    if (sa && e.problems == 0) {
        int dim = opt.dim;
        if (dim == SL_DIM_AUTO) {
            dim = 0;
            for (int d = 0; d < sa->rank; d++)
                if (sa->dims[d] > 1) dim = d;
        }
        int64_t n = dim < sa->rank ? sa->dims[dim] : 1, size = opt.block_size;
        int64_t count = (n + size - 1) / size, window = size + opt.overlap_before + opt.overlap_after;
        int whole = n == 1;
        if (opt.overlap_before > n || opt.overlap_after > n) ex_bad(&e, BAD_ARG);
        else if (!whole && sa->rank == SL_MAX_RANK) ex_bad(&e, BAD_ARG); /* no room for the block index */
        else if (rt < 0) {
            ex_bad(&e, BAD_DTYPE);
            e.inner = 1; /* the function's sl_sum fails first */
        } else {
            int64_t dims[2] = {1, count};
            sh_init(&pred, rt, 2, dims, sa->known);
            for (int64_t k = 0; k < count && pred.known; k++) {
                Shadow w = {0}, s = {0};
                if (whole) sh_copy(&w, sa);
                else block_window(sa, dim, size, opt.overlap_before, window, opt.boundary, k, &w);
                sh_init(&s, rt, 0, NULL, w.known);
                sv_reduce(SL_SUM, &w, -1, &s);
                if (s.known) {
                    /* A short window's terms are added in the element type, one by one
                     * (sl_apply_blocks' header), not in f64 as sl_sum does: each addition
                     * may round, by at most half an ulp of the partial sum. */
                    Val v = sh_get(&s, 0);
                    if (dt_float(rt) && v.e != ANY_VALUE && isfinite(v.f)) {
                        double mag = 0;
                        for (int64_t i = 0; i < w.numel; i++) mag += fabs(sh_get(&w, i).f);
                        if (isfinite(mag)) v.e += mag * (double)w.numel * (rt == SL_F32 ? FLT_EPSILON : DBL_EPSILON) / 2;
                    }
                    sh_put(&pred, k, v);
                } else {
                    sh_forget(&pred);
                }
                sh_free(&w), sh_free(&s);
            }
        }
    }
    log_begin(f, "sl_apply_blocks(sum, [%s], dim %d, block %lld, overlap %lld/%lld, boundary %d)", L(f, a, 0), opt.dim,
              (long long)opt.block_size, (long long)opt.overlap_before, (long long)opt.overlap_after, opt.boundary);
    finish(f, "sl_apply_blocks", sl_apply_blocks(fz_block_sum, NULL, &a, 1, &opt, o, o ? 1 : 0), &e, o, &pred, 0, tainted(f, as));
}

static void c_huge_shapes(Fuzzer *f) {
    static const int64_t shapes[][3] = {
        {1, (int64_t)1 << 32, -1}, {(int64_t)1 << 32, -1, -1}, {(int64_t)1 << 31, 2, -1}, {0, (int64_t)1 << 62, -1},
        {(int64_t)1 << 62, 0, -1}, {1, 1, (int64_t)1 << 40}, {(int64_t)1 << 21, 1, (int64_t)1 << 21}, {3, 0, -1},
    };
    sl_array hs[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        const int64_t *s = shapes[rand_below(&f->r, COUNT(shapes))];
        int rank = s[1] < 0 ? 1 : s[2] < 0 ? 2 : 3;
        int64_t dims[3] = {s[0], s[1], s[2]};
        sh_init(&f->huge[k], SL_F32, rank, dims, 0);
        Expect e;
        ex_init(&e);
        sl_array h = OUT_SENTINEL;
        e.maybe = 1; /* refused at once, or computed only where needed */
        log_begin(f, "sl_constant(f32, %s, 1) [huge]", S(rank, dims, 0));
        if (check_call(f, "sl_constant", sl_constant(SL_F32, rank, dims, 1, &h), &e, &h, 1)) {
            if (check_output(f, "sl_constant", h, &f->huge[k])) hs[k] = h;
            else sl_release(h);
        }
        log_end(f);
    }
    const Shadow *a = &f->huge[0], *b = &f->huge[1];
    int rank;
    int64_t dims[SL_MAX_RANK];
    Expect e;
    ex_init(&e);
    if (!broadcast_shapes(a->rank, a->dims, b->rank, b->dims, &rank, dims)) ex_bad(&e, BAD_SHAPE);
    else countable(&e, rank, dims);
    if (hs[0] && hs[1] && !(e.problems && e.want < 0 && (f->shared->tolerate & TOL_A))) {
        sl_array out = OUT_SENTINEL;
        log_begin(f, "sl_add(%s, %s) [huge]", S(a->rank, a->dims, 0), S(b->rank, b->dims, 1));
        sl_status st = sl_add(hs[0], hs[1], &out);
        if (check_call(f, "sl_add", st, &e, &out, 1)) {
            Shadow p;
            sh_init(&p, SL_F32, rank, dims, 0);
            if (!e.maybe) check_output(f, "sl_add", out, &p);
            sh_free(&p);
            sl_release(out);
        }
        log_end(f);
    }
    for (int k = 0; k < 2; k++) {
        if (hs[k]) sl_release(hs[k]);
        sh_free(&f->huge[k]);
    }
}

/* An array for the shared pool: made from data, so its values are known exactly. */
int make_shared_array(Fuzzer *f) {
    int64_t dims[SL_MAX_RANK];
    int rank = 1 + (int)rand_below(&f->r, 2);
    gen_dims(f, rank, dims, 64);
    Shadow s;
    sh_init(&s, rand_pct(&f->r, 60) ? SL_F64 : SL_I32, rank, dims, 1);
    gen_values(f, &s);
    sl_array h = OUT_SENTINEL;
    Expect e;
    ex_init(&e);
    log_begin(f, "sl_create(%s, %s) [shared pool]", dt_name(s.dtype), S(rank, dims, 0));
    sl_status st = sl_create(s.dtype, rank, dims, SL_COL_MAJOR, s.vals ? (void *)s.vals : (void *)&h, (size_t)s.numel * dt_size(s.dtype), &h);
    int slot = finish(f, "sl_create", st, &e, &h, &s, 1, 0);
    if (slot >= 0) f->pool[slot].shared = 1;
    return slot;
}

/* ---- the mix ---- */

typedef struct {
    CallFn fn;
    int weight;
} Weighted;

static const Weighted calls[] = {
    {c_create, 8},    {c_constant, 5}, {c_iota, 2},       {c_identity, 1},  {c_random, 3},        {c_rng, 2},
    {c_random_law, 3}, {c_sobol, 1},
    {c_query, 4},     {c_retain, 2},   {c_release, 4},    {c_unary, 10},    {c_binary, 12},       {c_scalar_op, 7},
    {c_select, 2},    {c_fma, 2},      {c_cast, 3},     {c_reduce, 6},     {c_scan, 2},      {c_stats, 2},      {c_matmul, 1},        {c_dot, 1},
    {c_reshape, 3},   {c_permute, 2},  {c_transpose, 2},  {c_section, 4},   {c_project, 2},       {c_shift, 4},
    {c_pad, 2},       {c_tile, 2},     {c_broadcast_to, 2}, {c_concat, 2},  {c_gather, 2},        {c_scatter, 2},
    {c_read, 4},      {c_reference, 1}, {c_eval, 2},      {c_hint_sync, 1}, {c_huge_shapes, 1}, {c_complex, 4},
    {c_apply, 2},
};

static CallFn pick(Fuzzer *f, const Weighted *w, int n) {
    int total = 0;
    for (int i = 0; i < n; i++) total += w[i].weight;
    int k = (int)rand_below(&f->r, (uint64_t)total);
    for (int i = 0; i < n; i++) {
        if (k < w[i].weight) return w[i].fn;
        k -= w[i].weight;
    }
    return w[0].fn;
}

void fuzz_step(Fuzzer *f) {
    /* An empty pool makes most calls bad-argument calls: fill it first. */
    if (pool_count(f) < 4) {
        c_create(f);
        return;
    }
    pick(f, calls, COUNT(calls))(f);
}

/* Inside a recording: any call (reads, writes and evaluation must be refused). */
void fuzz_recording_step(Fuzzer *f) {
    static const Weighted inside[] = {
        {c_create, 2}, {c_constant, 2}, {c_unary, 4},  {c_binary, 4}, {c_scalar_op, 3}, {c_reduce, 2}, {c_random, 1},
        {c_random_law, 1},
        {c_query, 2},  {c_read, 3},     {c_eval, 2},   {c_hint_sync, 2}, {c_reference, 1}, {c_shift, 1}, {c_section, 1},
    };
    pick(f, inside, COUNT(inside))(f);
}
