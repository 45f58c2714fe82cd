/* Complex arrays (SL_C64, SL_C128) in the fuzzer: a step makes a few complex arrays (from
 * data, from two real arrays, by a cast, as a constant), runs a short chain of complex
 * calls on them (arithmetic with arrays and with real and complex scalars, functions,
 * select, casts, sums), checks each call's status and result shape and type, reads the
 * result and compares it with a model in C99 double complex arithmetic, and checks that
 * ops with no complex meaning refuse complex input. Real results (parts, moduli,
 * phases, tests) join the pool with their modelled values, so the other calls go on
 * with them. Complex handles live for one step only: the pool's model holds real values.
 *
 * Tolerances are per part, absolute, propagated through the chain: arithmetic to first
 * order in the parts' sizes (normwise for products and quotients), functions within 16
 * units of roundoff of the result's modulus from exact inputs (and not predicted from
 * inexact ones). Values near overflow, and products and quotients of non-finite values
 * (which C99 Annex G treats specially and Sluice does not), are not predicted. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

extern int model_flushes_subnormals;

#define CX_MAX 64 /* rank up to 3, dims up to 4 */

typedef struct {
    int dt; /* SL_C64 or SL_C128 */
    int rank;
    int64_t dims[SL_MAX_RANK];
    int64_t n;
    double complex z[CX_MAX];
    double t[CX_MAX]; /* allowed |error| of each part; ANY_VALUE: not predicted */
    sl_array h;       /* 0 until made */
} Cx;

/* The handles a step made, released at its end. */
typedef struct {
    sl_array h[32];
    int n;
    int dead; /* a restart overlapped: stop calling */
} Made;

static void made_add(Made *m, sl_array h) {
    if (m->n < (int)(sizeof m->h / sizeof *m->h)) m->h[m->n++] = h;
    else sl_release(h);
}

static int part_type(int dt) { return dt == SL_C64 ? SL_F32 : SL_F64; }
static double unit(int dt) { return dt == SL_C64 || dt == SL_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2; }
static double big(int dt) { return (dt == SL_C64 || dt == SL_F32 ? FLT_MAX : DBL_MAX) / 16; }
static double tiny(int dt) { return dt == SL_C64 || dt == SL_F32 ? FLT_MIN : DBL_MIN; }
static double rnd(int dt, double x) { return dt == SL_C64 || dt == SL_F32 ? (double)(float)x : x; }
static double norm_inf(double complex z) { return fmax(fabs(creal(z)), fabs(cimag(z))); }
static int finite_c(double complex z) { return isfinite(creal(z)) && isfinite(cimag(z)); }

/* A computed result `exact` with part tolerance `t`, rounded to the type: not predicted
 * near overflow; a subnormal part may be flushed on Vulkan. */
static void put(Cx *c, int64_t i, double complex exact, double t) {
    double re = rnd(c->dt, creal(exact)), im = rnd(c->dt, cimag(exact));
    if (isnan(t) || (finite_c(exact) && (norm_inf(exact) + t >= big(c->dt) || !isfinite(re) || !isfinite(im)))) t = ANY_VALUE;
    if (t != ANY_VALUE && t > 0) t += 2 * unit(c->dt) * norm_inf(exact);
    if (t != ANY_VALUE && model_flushes_subnormals && t < tiny(c->dt) && (fabs(re) < tiny(c->dt) || fabs(im) < tiny(c->dt)))
        t = tiny(c->dt);
    c->z[i] = CMPLX(re, im);
    c->t[i] = t;
}

static void cx_shape(Cx *c, int dt, int rank, const int64_t *dims) {
    memset(c, 0, sizeof *c);
    c->dt = dt;
    c->rank = rank;
    c->n = 1;
    for (int d = 0; d < rank; d++) {
        c->dims[d] = dims[d];
        c->n *= dims[d];
    }
}

/* Element `i` of the result's shape `out` taken from `c` (same rank with ones, or rank 0). */
static int64_t src_index(const Cx *c, const Cx *out, int64_t i) {
    if (c->rank == 0) return 0;
    int64_t co[SL_MAX_RANK];
    unravel(out->rank, out->dims, i, co);
    for (int d = 0; d < c->rank; d++)
        if (c->dims[d] == 1) co[d] = 0;
    return ravel(c->rank, c->dims, co);
}

/* A part value: mostly moderate, sometimes a signed zero, an integer, large, or (rarely,
 * when `special`) an infinity or NaN. Never subnormal (Vulkan may flush them). */
static double gen_part(Fuzzer *f, int dt, int special) {
    uint64_t k = rand_below(&f->r, 100);
    double sign = rand_pct(&f->r, 50) ? -1 : 1;
    if (k < 60) return rnd(dt, sign * 4 * rand_unit(&f->r));
    if (k < 70) return sign * 0.0;
    if (k < 80) return sign * (double)rand_below(&f->r, 9);
    if (k < 90) return rnd(dt, sign * ldexp(1 + rand_unit(&f->r), (int)rand_below(&f->r, 40) - 20));
    if (k < 95 || !special) return rnd(dt, sign * 0.5);
    return k < 98 ? sign * INFINITY : NAN;
}

/* Checks a call with one complex (or real) result of the shape and type of `like`;
 * returns its handle, or 0. */
static sl_array finish_call(Fuzzer *f, Made *m, const char *fn, sl_status st, const Expect *e, sl_array out, int dt, int rank,
                            const int64_t *dims) {
    sl_array got = 0;
    if (check_call(f, fn, st, e, &out, 1)) {
        Shadow s;
        sh_init(&s, dt, rank, dims, 0);
        if (check_output(f, fn, out, &s)) {
            made_add(m, out);
            got = out;
        } else {
            sl_release(out);
        }
        sh_free(&s);
    } else if (f->restarted) {
        m->dead = 1;
    }
    log_end(f);
    return got;
}

/* The values of `c` for the log, exact and with the signs of zeros (on which the
 * phase and the branch cuts turn), cut short with "..." to fit `n` bytes. */
static void values_str(char *buf, size_t n, const Cx *c) {
    int digits = c->dt == SL_C64 ? 9 : 17;
    size_t used = 0;
    buf[0] = 0;
    for (int64_t i = 0; i < c->n; i++) {
        int k = snprintf(buf + used, n - used, "%s(%.*g, %.*g)", i ? " " : "", digits, creal(c->z[i]), digits, cimag(c->z[i]));
        if (k < 0 || (size_t)k >= n - used - 4) {
            snprintf(buf + used, n - used, " ...");
            return;
        }
        used += (size_t)k;
    }
}

/* A complex array from data: interleaved parts, as C99 complex arrays are stored. */
static int make_data(Fuzzer *f, Made *m, Cx *c, int special) {
    unsigned char buf[CX_MAX * 16];
    size_t part = c->dt == SL_C64 ? 4 : 8;
    for (int64_t i = 0; i < c->n; i++) {
        double re = gen_part(f, c->dt, special), im = gen_part(f, c->dt, special);
        c->z[i] = CMPLX(re, im);
        c->t[i] = 0;
        if (part == 4) {
            float p[2] = {(float)re, (float)im};
            memcpy(buf + 8 * i, p, 8);
        } else {
            double p[2] = {re, im};
            memcpy(buf + 16 * i, p, 16);
        }
    }
    Expect e;
    ex_init(&e);
    sl_array out = OUT_SENTINEL;
    char values[600];
    values_str(values, sizeof values, c);
    log_begin(f, "sl_create(%s, rank %d, %lld elements: %s)", dt_name(c->dt), c->rank, (long long)c->n, values);
    sl_status st = sl_create(c->dt, c->rank, c->dims, SL_COL_MAJOR, buf, (size_t)c->n * 2 * part, &out);
    c->h = finish_call(f, m, "sl_create", st, &e, out, c->dt, c->rank, c->dims);
    return c->h != 0;
}

/* A real array of type `dt` from data (moderate values), its values in `v`. */
static sl_array make_real(Fuzzer *f, Made *m, int dt, int rank, const int64_t *dims, int64_t n, double *v) {
    unsigned char buf[CX_MAX * 8];
    for (int64_t i = 0; i < n; i++) {
        v[i] = gen_part(f, dt, 0);
        if (dt == SL_F32) {
            float x = (float)v[i];
            memcpy(buf + 4 * i, &x, 4);
        } else {
            memcpy(buf + 8 * i, &v[i], 8);
        }
    }
    Expect e;
    ex_init(&e);
    sl_array out = OUT_SENTINEL;
    log_begin(f, "sl_create(%s, rank %d, %lld elements)", dt_name(dt), rank, (long long)n);
    sl_status st = sl_create(dt, rank, dims, SL_COL_MAJOR, buf, (size_t)n * dt_size(dt), &out);
    return finish_call(f, m, "sl_create", st, &e, out, dt, rank, dims);
}

/* A complex operand for a binary call with `x`: its shape, a broadcast of it (ones in
 * some dimensions) or rank 0. */
static int make_partner(Fuzzer *f, Made *m, const Cx *x, Cx *b) {
    int64_t dims[SL_MAX_RANK];
    int rank = rand_pct(&f->r, 20) ? 0 : x->rank;
    for (int d = 0; d < rank; d++) dims[d] = rand_pct(&f->r, 25) ? 1 : x->dims[d];
    cx_shape(b, x->dt, rank, dims);
    return make_data(f, m, b, rand_pct(&f->r, 10));
}

/* ---- the model of each op ---- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV };

static const int binary_codes[] = {SL_ADD, SL_SUB, SL_MUL, SL_DIV};

/* Which operand is a real scalar. Sluice, as C's Annex G, does not make it complex: its
 * imaginary part would be a +0 whose sign mixes into the result's zeros (x / -0.5 of
 * 0 - 0i is -0 + 0i part by part, but -0 - 0i as a complex quotient), and arg tells
 * those zeros apart (+pi or -pi). */
enum { BOTH_COMPLEX, X_REAL, Y_REAL };

/* `x op y` with part tolerances tx, ty. */
static void model_binary(Cx *out, int64_t i, int op, double complex x, double tx, double complex y, double ty, int real) {
    int dt = out->dt;
    double u = unit(dt), mx = norm_inf(x), my = norm_inf(y);
    if (tx == ANY_VALUE || ty == ANY_VALUE) {
        put(out, i, 0, ANY_VALUE);
        return;
    }
    switch (op) {
    case OP_ADD:
    case OP_SUB: {
        /* Part by part: exact IEEE results for infinities and NaNs too. A real operand's
         * missing imaginary part leaves the other's (negated when subtracted). */
        double sign = op == OP_ADD ? 1 : -1;
        double im = real == Y_REAL ? cimag(x) : real == X_REAL ? sign * cimag(y) : cimag(x) + sign * cimag(y);
        put(out, i, CMPLX(creal(x) + sign * creal(y), im), tx + ty);
        return;
    }
    case OP_MUL: {
        if (!finite_c(x) || !finite_c(y)) break;
        double t = 2 * (mx * ty + my * tx + tx * ty) + 8 * u * mx * my;
        if (real == X_REAL) put(out, i, CMPLX(creal(x) * creal(y), creal(x) * cimag(y)), t);
        else if (real == Y_REAL) put(out, i, CMPLX(creal(x) * creal(y), cimag(x) * creal(y)), t);
        else put(out, i, CMPLX(creal(x) * creal(y) - cimag(x) * cimag(y), creal(x) * cimag(y) + cimag(x) * creal(y)), t);
        return;
    }
    default: {
        double ny = cabs(y);
        /* Quotients of inexact values may be ill-conditioned; tiny or huge divisors may
         * underflow or overflow on the way (Smith's method scales, but the model does
         * not follow it there). */
        if (!finite_c(x) || !finite_c(y) || tx > 0 || ty > 0 || ny < 1e-6 || ny > 1e6) break;
        /* A real divisor divides each part; a real dividend is s + 0i in Smith's method
         * (Sluice's, and as libgcc's __divdc3 takes the branches, the zeros' signs too). */
        put(out, i, real == Y_REAL ? CMPLX(creal(x) / creal(y), cimag(x) / creal(y)) : x / y, 16 * u * cabs(x) / ny);
        return;
    }
    }
    put(out, i, 0, ANY_VALUE);
}

/* The functions of one complex argument the chain may apply (by the model: C99's). */
enum { FN_EXP, FN_LOG, FN_SQRT, FN_SIN, FN_COS, FN_TANH, FN_COUNT };

static const struct {
    const char *name;
    sl_status (*fn)(sl_array, sl_array *);
} functions[FN_COUNT] = {
    {"sl_exp", sl_exp}, {"sl_log", sl_log}, {"sl_sqrt", sl_sqrt}, {"sl_sin", sl_sin}, {"sl_cos", sl_cos}, {"sl_tanh", sl_tanh},
};

static void model_function(Cx *out, int64_t i, int fn, double complex x, double tx) {
    /* From exact, finite, moderate arguments only (no overflow on the way). On the
     * negative real axis log and sqrt take the sign of a zero imaginary part, which
     * exact values carry as Sluice does. */
    if (tx != 0 || !finite_c(x) || fabs(creal(x)) > 30 || fabs(cimag(x)) > 30 || (fn == FN_LOG && x == 0)) {
        put(out, i, 0, ANY_VALUE);
        return;
    }
    double complex r;
    switch (fn) {
    case FN_EXP:
        r = cexp(x);
        break;
    case FN_LOG:
        r = clog(x);
        break;
    case FN_SQRT:
        r = csqrt(x);
        break;
    case FN_SIN:
        r = csin(x);
        break;
    case FN_COS:
        r = ccos(x);
        break;
    default:
        r = ctanh(x);
        break;
    }
    /* log's real part near |x| = 1 is small in absolute terms, not relative to |log x|. */
    double scale = cabs(r) + (fn == FN_LOG ? 1 : 0);
    put(out, i, r, 16 * unit(out->dt) * scale + tiny(out->dt));
}

/* ---- one step ---- */

/* Calls that have no complex meaning: each must refuse a complex argument. */
static void refusals(Fuzzer *f, Made *m, const Cx *x) {
    Expect e;
    ex_init(&e);
    ex_bad(&e, SL_ERR_DTYPE_MISMATCH);
    sl_array out = OUT_SENTINEL;
    const char *fn;
    sl_status st;
    switch (rand_below(&f->r, 8)) {
    case 0:
        fn = "sl_lt";
        log_begin(f, "%s(%s, %s)", fn, dt_name(x->dt), dt_name(x->dt));
        st = sl_lt(x->h, x->h, &out);
        break;
    case 1:
        fn = "sl_max";
        log_begin(f, "%s(%s, %s)", fn, dt_name(x->dt), dt_name(x->dt));
        st = sl_max(x->h, x->h, &out);
        break;
    case 2:
        fn = "sl_floor";
        log_begin(f, "%s(%s)", fn, dt_name(x->dt));
        st = sl_floor(x->h, &out);
        break;
    case 3:
        fn = "sl_sign";
        log_begin(f, "%s(%s)", fn, dt_name(x->dt));
        st = sl_sign(x->h, &out);
        break;
    case 4:
        fn = "sl_argmax";
        log_begin(f, "%s(%s, all)", fn, dt_name(x->dt));
        st = sl_argmax(x->h, SL_ALL_DIMS, &out);
        break;
    case 5:
        fn = "sl_minval";
        log_begin(f, "%s(%s, all)", fn, dt_name(x->dt));
        st = sl_minval(x->h, SL_ALL_DIMS, &out);
        break;
    case 6:
        fn = "sl_atan2";
        log_begin(f, "%s(%s, %s)", fn, dt_name(x->dt), dt_name(x->dt));
        st = sl_atan2(x->h, x->h, &out);
        break;
    default:
        fn = "sl_cast";
        log_begin(f, "%s(%s, %s)", fn, dt_name(x->dt), dt_name(part_type(x->dt)));
        st = sl_cast(x->h, part_type(x->dt), &out);
        break;
    }
    if (!check_call(f, fn, st, &e, &out, 1) && f->restarted) m->dead = 1;
    log_end(f);
}

/* The first complex value of a chain: from data, from two real arrays (sl_complex or
 * sl_polar), a cast of a real array, or a constant. */
static int chain_start(Fuzzer *f, Made *m, Cx *x) {
    int dt = rand_pct(&f->r, 50) ? SL_C64 : SL_C128, pt = part_type(dt);
    int64_t dims[SL_MAX_RANK];
    int rank = (int)rand_below(&f->r, 4);
    for (int d = 0; d < rank; d++) dims[d] = 1 + (int64_t)rand_below(&f->r, 4);
    cx_shape(x, dt, rank, dims);
    uint64_t k = rand_below(&f->r, 100);
    if (k < 55) return make_data(f, m, x, rand_pct(&f->r, 15));
    Expect e;
    ex_init(&e);
    sl_array out = OUT_SENTINEL;
    double re[CX_MAX], im[CX_MAX];
    if (k < 85) {
        int polar = k >= 75;
        sl_array a = make_real(f, m, pt, rank, dims, x->n, re), b = a ? make_real(f, m, pt, rank, dims, x->n, im) : 0;
        if (!b) return 0;
        const char *fn = polar ? "sl_polar" : "sl_complex";
        log_begin(f, "%s(%s, %s)", fn, dt_name(pt), dt_name(pt));
        sl_status st = polar ? sl_polar(a, b, &out) : sl_complex(a, b, &out);
        for (int64_t i = 0; i < x->n; i++) {
            if (!polar) put(x, i, CMPLX(re[i], im[i]), 0);
            /* (Angles beyond 100 are not predicted: Vulkan's f32 trigonometry of large
             * arguments is a known defect, TOL_V.) */
            else put(x, i, CMPLX(re[i] * cos(im[i]), re[i] * sin(im[i])), fabs(im[i]) > 100 ? ANY_VALUE : 8 * unit(dt) * fabs(re[i]) + tiny(dt));
        }
        x->h = finish_call(f, m, fn, st, &e, out, dt, rank, dims);
    } else if (k < 95) {
        /* A real array of either float type (or an integer one) becomes complex. */
        int from = rand_pct(&f->r, 70) ? pt : SL_I32;
        sl_array a;
        if (from == SL_I32) {
            int32_t v[CX_MAX];
            for (int64_t i = 0; i < x->n; i++) re[i] = v[i] = (int32_t)rand_below(&f->r, 2001) - 1000;
            log_begin(f, "sl_create(i32, rank %d, %lld elements)", rank, (long long)x->n);
            sl_status st = sl_create(SL_I32, rank, dims, SL_COL_MAJOR, v, (size_t)x->n * 4, &out);
            a = finish_call(f, m, "sl_create", st, &e, out, SL_I32, rank, dims);
            out = OUT_SENTINEL;
        } else {
            a = make_real(f, m, pt, rank, dims, x->n, re);
        }
        if (!a) return 0;
        log_begin(f, "sl_cast(%s, %s)", dt_name(from), dt_name(dt));
        sl_status st = sl_cast(a, dt, &out);
        for (int64_t i = 0; i < x->n; i++) put(x, i, CMPLX(re[i], 0.0), 0);
        x->h = finish_call(f, m, "sl_cast", st, &e, out, dt, rank, dims);
    } else {
        double r = gen_part(f, dt, 1), i = gen_part(f, dt, 1);
        log_begin(f, "sl_constant_c(%s, rank %d, %.17g, %.17g)", dt_name(dt), rank, r, i);
        sl_status st = sl_constant_c(dt, rank, dims, r, i, &out);
        for (int64_t j = 0; j < x->n; j++) put(x, j, CMPLX(r, i), 0);
        x->h = finish_call(f, m, "sl_constant_c", st, &e, out, dt, rank, dims);
    }
    return x->h != 0;
}

/* One complex call on `x` (the chain's value), which becomes its result. */
static int chain_op(Fuzzer *f, Made *m, Cx *x) {
    Cx r, b;
    Expect e;
    ex_init(&e);
    sl_array out = OUT_SENTINEL;
    sl_status st;
    const char *fn;
    uint64_t k = rand_below(&f->r, 100);
    if (k < 30) { /* with another complex array */
        if (!make_partner(f, m, x, &b)) return 0;
        int op = (int)rand_below(&f->r, 4);
        static const char *names[] = {"sl_add", "sl_sub", "sl_mul", "sl_div"};
        fn = names[op];
        int swap = rand_pct(&f->r, 30);
        log_begin(f, "%s(%s, %s)", fn, swap ? "b" : "x", swap ? "x" : "b");
        st = sl_binary(binary_codes[op], swap ? b.h : x->h, swap ? x->h : b.h, &out);
        cx_shape(&r, x->dt, x->rank, x->dims);
        for (int64_t i = 0; i < r.n; i++) {
            int64_t j = src_index(&b, &r, i);
            if (swap) model_binary(&r, i, op, b.z[j], b.t[j], x->z[i], x->t[i], BOTH_COMPLEX);
            else model_binary(&r, i, op, x->z[i], x->t[i], b.z[j], b.t[j], BOTH_COMPLEX);
        }
    } else if (k < 50) { /* with a real or complex scalar, on either side */
        int op = (int)rand_below(&f->r, 4), first = rand_pct(&f->r, 30), cplx = rand_pct(&f->r, 50);
        double sr = gen_part(f, x->dt, 0), si = cplx ? gen_part(f, x->dt, 0) : 0;
        double complex s = CMPLX(rnd(x->dt, sr), rnd(x->dt, si));
        if (cplx) {
            fn = first ? "sl_scalar_binary_c" : "sl_binary_scalar_c";
            log_begin(f, "%s(%d, x, %.17g, %.17g)", fn, binary_codes[op], sr, si);
            st = first ? sl_scalar_binary_c(binary_codes[op], sr, si, x->h, &out) : sl_binary_scalar_c(binary_codes[op], x->h, sr, si, &out);
        } else {
            fn = first ? "sl_scalar_binary" : "sl_binary_scalar";
            log_begin(f, "%s(%d, x, %.17g)", fn, binary_codes[op], sr);
            st = first ? sl_scalar_binary(binary_codes[op], sr, x->h, &out) : sl_binary_scalar(binary_codes[op], x->h, sr, &out);
        }
        cx_shape(&r, x->dt, x->rank, x->dims);
        for (int64_t i = 0; i < r.n; i++) {
            if (first) model_binary(&r, i, op, s, 0, x->z[i], x->t[i], cplx ? BOTH_COMPLEX : X_REAL);
            else model_binary(&r, i, op, x->z[i], x->t[i], s, 0, cplx ? BOTH_COMPLEX : Y_REAL);
        }
    } else if (k < 62) { /* neg, conj */
        int conj = rand_pct(&f->r, 50);
        fn = conj ? "sl_conj" : "sl_neg";
        log_begin(f, "%s(x)", fn);
        st = conj ? sl_conj(x->h, &out) : sl_neg(x->h, &out);
        cx_shape(&r, x->dt, x->rank, x->dims);
        for (int64_t i = 0; i < r.n; i++) {
            r.z[i] = conj ? CMPLX(creal(x->z[i]), -cimag(x->z[i])) : CMPLX(-creal(x->z[i]), -cimag(x->z[i]));
            r.t[i] = x->t[i];
        }
    } else if (k < 77) { /* a function */
        int g = (int)rand_below(&f->r, FN_COUNT);
        fn = functions[g].name;
        log_begin(f, "%s(x)", fn);
        st = functions[g].fn(x->h, &out);
        cx_shape(&r, x->dt, x->rank, x->dims);
        for (int64_t i = 0; i < r.n; i++) model_function(&r, i, g, x->z[i], x->t[i]);
    } else if (k < 85) { /* select between x and another complex array */
        if (!make_partner(f, m, x, &b)) return 0;
        unsigned char c[CX_MAX];
        for (int64_t i = 0; i < x->n; i++) c[i] = (unsigned char)rand_below(&f->r, 2);
        log_begin(f, "sl_create(bool, rank %d)", x->rank);
        st = sl_create(SL_BOOL, x->rank, x->dims, SL_COL_MAJOR, c, (size_t)x->n, &out);
        sl_array cond = finish_call(f, m, "sl_create", st, &e, out, SL_BOOL, x->rank, x->dims);
        if (!cond) return 0;
        out = OUT_SENTINEL;
        fn = "sl_select";
        log_begin(f, "sl_select(c, x, b)");
        st = sl_select(cond, x->h, b.h, &out);
        cx_shape(&r, x->dt, x->rank, x->dims);
        for (int64_t i = 0; i < r.n; i++) {
            int64_t j = src_index(&b, &r, i);
            r.z[i] = c[i] ? x->z[i] : b.z[j];
            r.t[i] = c[i] ? x->t[i] : b.t[j];
        }
    } else if (k < 93) { /* c64 <-> c128 */
        int to = x->dt == SL_C64 ? SL_C128 : SL_C64;
        fn = "sl_cast";
        log_begin(f, "sl_cast(x, %s)", dt_name(to));
        st = sl_cast(x->h, to, &out);
        cx_shape(&r, to, x->rank, x->dims);
        for (int64_t i = 0; i < r.n; i++) {
            double t = x->t[i];
            if (to == SL_C64 && t != ANY_VALUE) t += unit(SL_C64) * norm_inf(x->z[i]);
            put(&r, i, x->z[i], t);
        }
    } else { /* a sum over one dimension or everything */
        int dim = x->rank > 0 && rand_pct(&f->r, 70) ? (int)rand_below(&f->r, (uint64_t)x->rank) : SL_ALL_DIMS;
        fn = "sl_sum";
        log_begin(f, "sl_sum(x, %d)", dim);
        st = sl_sum(x->h, dim, &out);
        int64_t dims[SL_MAX_RANK];
        int rank = dim == SL_ALL_DIMS ? 0 : x->rank;
        for (int d = 0; d < rank; d++) dims[d] = d == dim ? 1 : x->dims[d];
        cx_shape(&r, x->dt, rank, dims);
        double complex sum[CX_MAX] = {0};
        double t[CX_MAX] = {0}, size[CX_MAX] = {0};
        int64_t terms = dim == SL_ALL_DIMS ? x->n : x->dims[dim];
        for (int64_t i = 0; i < x->n; i++) {
            int64_t j = src_index(&r, x, i);
            sum[j] = CMPLX(creal(sum[j]) + creal(x->z[i]), cimag(sum[j]) + cimag(x->z[i]));
            t[j] += x->t[i];
            size[j] += norm_inf(x->z[i]);
        }
        for (int64_t j = 0; j < r.n; j++) put(&r, j, sum[j], t[j] + 2 * (double)terms * unit(x->dt) * size[j]);
    }
    r.h = finish_call(f, m, fn, st, &e, out, r.dt, r.rank, r.dims);
    if (!r.h) return 0;
    *x = r;
    return 1;
}

/* Whether a part read from Sluice agrees with the model. */
static int part_agrees(double got, double want, double t) {
    if (t == ANY_VALUE) return 1;
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    return fabs(got - want) <= t;
}

/* Reads the chain's value and compares it with the model. */
static void read_and_check(Fuzzer *f, Made *m, const Cx *x) {
    double got[2 * CX_MAX];
    float g32[2 * CX_MAX];
    size_t bytes = (size_t)x->n * (x->dt == SL_C64 ? 8 : 16);
    log_begin(f, "sl_read(x %s, %zu bytes)", dt_name(x->dt), bytes);
    sl_status st = sl_read(x->h, SL_COL_MAJOR, x->dt == SL_C64 ? (void *)g32 : (void *)got, bytes);
    Expect e;
    ex_init(&e);
    if (check_call(f, "sl_read", st, &e, NULL, 0)) {
        for (int64_t i = 0; i < 2 * x->n && x->dt == SL_C64; i++) got[i] = g32[i];
        for (int64_t i = 0; i < x->n; i++) {
            double complex w = x->z[i];
            if (!part_agrees(got[2 * i], creal(w), x->t[i]) || !part_agrees(got[2 * i + 1], cimag(w), x->t[i])) {
                broken(f, "sl_read of a %s chain result: element %lld is (%.17g, %.17g), the model says (%.17g, %.17g) within %.3g", dt_name(x->dt),
                       (long long)i, got[2 * i], got[2 * i + 1], creal(w), cimag(w), x->t[i]);
                break;
            }
        }
    } else if (f->restarted) {
        m->dead = 1;
    }
    log_end(f);
}

/* A real result of `x` (real, imag, abs, arg, isnan, isinf, isfinite, or eq/ne with
 * itself), kept in the pool with its modelled values. */
static void real_result(Fuzzer *f, Made *m, const Cx *x) {
    static const struct {
        const char *name;
        sl_status (*fn)(sl_array, sl_array *);
    } ops[] = {{"sl_real", sl_real},   {"sl_imag", sl_imag},   {"sl_abs", sl_abs},           {"sl_arg", sl_arg},
               {"sl_isnan", sl_isnan}, {"sl_isinf", sl_isinf}, {"sl_isfinite", sl_isfinite}, {"sl_eq", NULL}};
    int k = (int)rand_below(&f->r, sizeof ops / sizeof *ops), boolean = k >= 4, pt = part_type(x->dt);
    int rt = boolean ? SL_BOOL : pt;
    Shadow s;
    sh_init(&s, rt, x->rank, x->dims, 1);
    for (int64_t i = 0; i < x->n; i++) {
        double complex z = x->z[i];
        double t = x->t[i], re = creal(z), im = cimag(z);
        Val v = {0, 0, ANY_VALUE};
        int exact = t == 0, clear = t != ANY_VALUE && finite_c(z) && norm_inf(z) + t < big(x->dt);
        switch (k) {
        case 0:
        case 1:
            v.f = k == 0 ? re : im;
            v.e = t;
            break;
        case 2:
            if (t != ANY_VALUE) v.f = cabs(z), v.e = 1.5 * t + 4 * unit(pt) * cabs(z);
            break;
        case 3:
            /* The phase moves by t / |z| at most; near the negative real axis an inexact
             * value may cross the cut (an exact one's zero parts have Sluice's signs). */
            if (exact || (clear && cabs(z) > 4 * t && !(re < 0 && fabs(im) <= t)))
                v.f = carg(z), v.e = (exact ? 0 : 2 * t / cabs(z)) + 8 * unit(pt) * 3.141592653589793;
            break;
        case 4:
            if (exact || clear) v.i = isnan(re) || isnan(im), v.e = 0;
            break;
        case 5:
            if (exact || clear) v.i = isinf(re) || isinf(im), v.e = 0;
            break;
        case 6:
            if (exact || clear) v.i = isfinite(re) && isfinite(im), v.e = 0;
            break;
        default:
            if (exact || clear) v.i = re == re && im == im, v.e = 0; /* false where a part is NaN */
            break;
        }
        if (boolean) v.f = (double)v.i;
        if (!boolean && v.e != ANY_VALUE && model_flushes_subnormals && v.e < tiny(pt)) v.e = tiny(pt);
        sh_put(&s, i, v);
    }
    const char *fn = ops[k].name;
    Expect e;
    ex_init(&e);
    sl_array out = OUT_SENTINEL;
    log_begin(f, "%s(x %s)", fn, dt_name(x->dt));
    sl_status st = ops[k].fn ? ops[k].fn(x->h, &out) : sl_eq(x->h, x->h, &out);
    if (check_call(f, fn, st, &e, &out, 1)) {
        if (check_output(f, fn, out, &s)) pool_add(f, out, &s, 0);
        else sl_release(out);
    } else if (f->restarted) {
        m->dead = 1;
    }
    sh_free(&s);
    log_end(f);
}

void c_complex(Fuzzer *f) {
    if (f->recording) return;
    Made m = {0};
    Cx x;
    if (chain_start(f, &m, &x) && !m.dead) {
        int steps = 1 + (int)rand_below(&f->r, 5);
        for (int s = 0; s < steps && !m.dead; s++)
            if (!chain_op(f, &m, &x)) break;
        if (!m.dead && x.h) {
            if (rand_pct(&f->r, 20)) refusals(f, &m, &x);
            if (!m.dead && rand_pct(&f->r, 40)) real_result(f, &m, &x);
            if (!m.dead) read_and_check(f, &m, &x);
        }
    }
    for (int i = 0; i < m.n; i++) {
        sl_status st = sl_release(m.h[i]);
        if (st != SL_OK && !m.dead && !f->restarted && f->shared->threads == 1) broken(f, "sl_release of a complex step's live array failed");
    }
}
