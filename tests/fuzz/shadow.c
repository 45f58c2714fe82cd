/* The shadow model: result shapes and types, and the values Sluice must compute, each with
 * the error it may carry. Floats follow IEEE arithmetic in the result type; every rounded
 * result carries two ulps of tolerance so that fused (contracted) and op-by-op
 * evaluations both pass, and tolerances propagate through later ops. Transcendental
 * functions are compared with the C library within 16 ulps. Integers are exact, with the
 * wrapping of their type. What the model cannot predict (ill-conditioned results, order-
 * dependent overflow) is marked ANY_VALUE and not compared. */
/* lgamma_r (the model runs on several threads; lgamma writes the global signgam). */
#define _DEFAULT_SOURCE
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* Set by the driver: the Vulkan executor may flush subnormal numbers to zero. */
int model_flushes_subnormals = 0;
/* Set by the driver to tolerate a known defect: trigonometric functions of arguments
 * beyond this are not predicted (0: all are). */
double model_trig_limit = 0;

size_t dt_size(int dt) {
    switch (dt) {
    case SL_F32:
    case SL_I32:
        return 4;
    case SL_F64:
    case SL_I64:
        return 8;
    default:
        return 1;
    }
}

int dt_float(int dt) { return dt == SL_F32 || dt == SL_F64; }
int dt_int(int dt) { return dt == SL_I32 || dt == SL_I64 || dt == SL_U8; }
int dt_valid(int dt) { return dt >= SL_F32 && dt <= SL_BOOL; }

const char *dt_name(int dt) {
    static const char *names[] = {"f32", "f64", "i32", "i64", "u8", "bool", "c64", "c128"};
    return dt_valid(dt) || dt == SL_C64 || dt == SL_C128 ? names[dt] : "bad-dtype";
}

/* ---- shapes ---- */

int numel_of(int rank, const int64_t *dims, int64_t *numel) {
    uint64_t n = 1;
    int zero = 0, overflow = 0;
    for (int d = 0; d < rank; d++) {
        if (dims[d] == 0) zero = 1;
        else if (!overflow && __builtin_mul_overflow(n, (uint64_t)dims[d], &n)) overflow = 1;
    }
    if (zero) {
        *numel = 0;
        return 0;
    }
    if (overflow || n > (uint64_t)INT64_MAX / 8) {
        *numel = INT64_MAX;
        return 1;
    }
    *numel = (int64_t)n;
    return 0;
}

static int64_t dim_or_one(int rank, const int64_t *dims, int d) { return d < rank ? dims[d] : 1; }

int broadcast_shapes(int ra, const int64_t *a, int rb, const int64_t *b, int *rank, int64_t *dims) {
    int r = ra > rb ? ra : rb;
    for (int d = 0; d < r; d++) {
        int64_t x = dim_or_one(ra, a, d), y = dim_or_one(rb, b, d);
        if (x == y) dims[d] = x;
        else if (x == 1) dims[d] = y;
        else if (y == 1) dims[d] = x;
        else return 0;
    }
    *rank = r;
    return 1;
}

void unravel(int rank, const int64_t *dims, int64_t i, int64_t *c) {
    for (int d = 0; d < rank; d++) {
        int64_t n = dims[d] > 0 ? dims[d] : 1;
        c[d] = i % n;
        i /= n;
    }
}

int64_t ravel(int rank, const int64_t *dims, const int64_t *c) {
    int64_t i = 0;
    for (int d = rank - 1; d >= 0; d--) i = i * dims[d] + c[d];
    return i;
}

void shape_str(char *buf, size_t n, int rank, const int64_t *dims) {
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int d = 0; d < rank && k < n; d++) k += (size_t)snprintf(buf + k, n - k, d ? ",%lld" : "%lld", (long long)dims[d]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

/* ---- shadows ---- */

void sh_init(Shadow *s, int dtype, int rank, const int64_t *dims, int known) {
    memset(s, 0, sizeof *s);
    s->dtype = dtype;
    s->rank = rank;
    unsigned __int128 n = 1;
    for (int d = 0; d < rank; d++) {
        s->dims[d] = dims[d];
        if (n <= (unsigned __int128)INT64_MAX || dims[d] == 0) n *= (uint64_t)dims[d];
    }
    s->numel = n > (unsigned __int128)INT64_MAX ? INT64_MAX : (int64_t)n;
    s->known = known && s->numel <= SHADOW_MAX_NUMEL;
    if (s->known && s->numel > 0) {
        s->vals = calloc((size_t)s->numel, dt_size(dtype));
        s->tol = calloc((size_t)s->numel, sizeof(double));
    }
}

void sh_free(Shadow *s) {
    free(s->vals);
    free(s->tol);
    s->vals = NULL;
    s->tol = NULL;
    s->known = 0;
}

void sh_forget(Shadow *s) { sh_free(s); }

void sh_copy(Shadow *dst, const Shadow *src) {
    *dst = *src;
    dst->vals = NULL;
    dst->tol = NULL;
    if (src->known && src->numel > 0) {
        size_t n = (size_t)src->numel;
        dst->vals = malloc(n * dt_size(src->dtype));
        dst->tol = malloc(n * sizeof(double));
        memcpy(dst->vals, src->vals, n * dt_size(src->dtype));
        memcpy(dst->tol, src->tol, n * sizeof(double));
    }
}

int sh_same_shape(const Shadow *a, const Shadow *b) {
    if (a->rank != b->rank) return 0;
    for (int d = 0; d < a->rank; d++)
        if (a->dims[d] != b->dims[d]) return 0;
    return 1;
}

Val sh_get(const Shadow *s, int64_t i) {
    Val v = {0, 0, ANY_VALUE};
    if (!s->known) return v;
    const unsigned char *p = s->vals + (size_t)i * dt_size(s->dtype);
    v.e = s->tol[i];
    switch (s->dtype) {
    case SL_F32: {
        float x;
        memcpy(&x, p, 4);
        v.f = x;
        v.i = 0;
        return v;
    }
    case SL_F64:
        memcpy(&v.f, p, 8);
        return v;
    case SL_I32: {
        int32_t x;
        memcpy(&x, p, 4);
        v.i = x;
        break;
    }
    case SL_I64:
        memcpy(&v.i, p, 8);
        break;
    default:
        v.i = *p;
        break;
    }
    v.f = (double)v.i;
    return v;
}

void sh_put(Shadow *s, int64_t i, Val v) {
    if (!s->known) return;
    unsigned char *p = s->vals + (size_t)i * dt_size(s->dtype);
    s->tol[i] = v.e;
    switch (s->dtype) {
    case SL_F32: {
        float x = (float)v.f;
        memcpy(p, &x, 4);
        break;
    }
    case SL_F64:
        memcpy(p, &v.f, 8);
        break;
    case SL_I32: {
        int32_t x = (int32_t)(uint32_t)(uint64_t)v.i;
        memcpy(p, &x, 4);
        break;
    }
    case SL_I64:
        memcpy(p, &v.i, 8);
        break;
    case SL_U8:
        *p = (uint8_t)(uint64_t)v.i;
        break;
    default:
        *p = v.i != 0;
        break;
    }
}

static double ulp(int dt, double x);

void sh_observed(Shadow *s, const void *bytes) {
    sh_from_bytes(s, bytes);
    for (int64_t i = 0; s->known && dt_float(s->dtype) && i < s->numel; i++) {
        double t = ulp(s->dtype, sh_get(s, i).f);
        s->tol[i] = t;
    }
}

void sh_from_bytes(Shadow *s, const void *bytes) {
    int known = s->numel <= SHADOW_MAX_NUMEL;
    int64_t dims[SL_MAX_RANK];
    memcpy(dims, s->dims, sizeof dims);
    sh_free(s);
    sh_init(s, s->dtype, s->rank, dims, known);
    if (s->known && s->numel > 0) memcpy(s->vals, bytes, (size_t)s->numel * dt_size(s->dtype));
}

/* ---- float helpers ---- */

static double max_of(int dt) { return dt == SL_F32 ? FLT_MAX : DBL_MAX; }
static double min_normal(int dt) { return dt == SL_F32 ? FLT_MIN : DBL_MIN; }
static double rnd(int dt, double x) { return dt == SL_F32 ? (double)(float)x : x; }

/* The spacing of floats of type `dt` at |x|. */
static double ulp(int dt, double x) {
    if (!isfinite(x)) return 0;
    int e;
    frexp(fabs(x), &e);
    int bits = dt == SL_F32 ? 24 : 53, lowest = dt == SL_F32 ? -149 : -1074;
    int k = e - bits;
    return ldexp(1.0, k < lowest ? lowest : k);
}

static int is_subnormal(int dt, double x) { return x != 0 && fabs(x) < min_normal(dt); }

/* A computed float result `want` of type dt with tolerance e, made safe at the edges:
 * results near overflow may overflow or not; subnormal results may be flushed. */
static Val fres(int dt, double exact, double e) {
    Val v = {rnd(dt, exact), 0, isnan(e) ? ANY_VALUE : e};
    double m = max_of(dt);
    if (isfinite(exact) && fabs(exact) + e >= m * (1 - 1e-6)) v.e = ANY_VALUE;
    if (isinf(v.f) && isfinite(exact)) v.e = ANY_VALUE; /* rounded up to infinity */
    if (isnan(v.f) && e > 0) v.e = ANY_VALUE;
    if (isinf(v.f) && e > 0 && !isinf(exact)) v.e = ANY_VALUE;
    if (model_flushes_subnormals && fabs(v.f) < min_normal(dt) && v.e < min_normal(dt)) v.e = min_normal(dt);
    return v;
}

static Val any_val(void) {
    Val v = {0, 0, ANY_VALUE};
    return v;
}

static Val ival(int64_t i) {
    Val v = {(double)i, i, 0};
    return v;
}

/* An integer of type dt, wrapped as the type wraps. */
static int64_t wrap(int dt, int64_t v) {
    switch (dt) {
    case SL_I32:
        return (int32_t)(uint32_t)(uint64_t)v;
    case SL_U8:
        return (uint8_t)(uint64_t)v;
    case SL_BOOL:
        return v != 0;
    default:
        return v;
    }
}

/* Whether a float input must be treated as unknown (Vulkan may flush subnormal inputs). */
static int shaky(int dt, Val x) { return x.e == ANY_VALUE || (model_flushes_subnormals && is_subnormal(dt, x.f)); }

/* ---- result types ---- */

int unary_result(int op, int dt) {
    if (!dt_valid(dt)) return -1;
    switch (op) {
    case SL_ISNAN:
    case SL_ISINF:
        return SL_BOOL;
    case SL_NOT:
        return dt_int(dt) || dt == SL_BOOL ? dt : -1;
    case SL_NEG:
    case SL_ABS:
    case SL_SIGN:
    case SL_FLOOR:
    case SL_CEIL:
    case SL_ROUND:
    case SL_TRUNC:
        return dt != SL_BOOL ? dt : -1;
    default:
        return ((op >= 0 && op <= SL_NOT) || (op >= SL_ERFC && op <= SL_TGAMMA)) && dt_float(dt) ? dt : -1;
    }
}

int binary_result(int op, int dt) {
    if (!dt_valid(dt)) return -1;
    switch (op) {
    case SL_EQ:
    case SL_NE:
    case SL_LT:
    case SL_LE:
    case SL_GT:
    case SL_GE:
        return SL_BOOL;
    case SL_AND:
    case SL_OR:
    case SL_XOR:
        return dt_int(dt) || dt == SL_BOOL ? dt : -1;
    case SL_ATAN2:
    case SL_HYPOT:
        return dt_float(dt) ? dt : -1;
    default:
        return op >= 0 && op <= SL_XOR && dt != SL_BOOL ? dt : -1;
    }
}

/* The promotion table (README "Type promotion") on the real types: the higher of
 * bool < u8 < i32 < i64 < f32 < f64. */
int promote_types(int a, int b) {
    static const int order[] = {[SL_F32] = 4, [SL_F64] = 5, [SL_I32] = 2, [SL_I64] = 3, [SL_U8] = 1, [SL_BOOL] = 0};
    return order[a] >= order[b] ? a : b;
}

/* The type of `a op s` for a weak double scalar `s`. */
int weak_float_type(int dt) { return dt_float(dt) ? dt : SL_F64; }

/* The type of `a op s` for a weak int64_t scalar `s`. */
int weak_int_type(int dt) { return dt == SL_BOOL ? SL_I64 : dt; }

int reduce_result(int op, int dt) {
    if (!dt_valid(dt)) return -1;
    switch (op) {
    case SL_SUM:
    case SL_PROD:
        return dt_int(dt) || dt == SL_BOOL ? SL_I64 : dt;
    case SL_MINVAL:
    case SL_MAXVAL:
        return dt;
    case SL_MEAN:
        return dt == SL_F32 ? SL_F32 : SL_F64;
    case SL_ANY:
    case SL_ALL:
        return SL_BOOL;
    case SL_COUNT:
    case SL_ARGMIN:
    case SL_ARGMAX:
        return SL_I64;
    default:
        return -1;
    }
}

int scan_result(int dt) {
    if (dt == SL_BOOL || !dt_valid(dt)) return -1;
    return dt == SL_I32 || dt == SL_U8 ? SL_I64 : dt;
}

int integer_dtype(int dt) { return dt_int(dt); }

int scalar_fits(int dt, double v) {
    switch (dt) {
    case SL_F32:
    case SL_F64:
        return 1;
    case SL_BOOL:
        return v == 0 || v == 1;
    case SL_U8:
        return v == floor(v) && v >= 0 && v <= 255;
    case SL_I32:
        return v == floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
    case SL_I64:
        return v == floor(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    default:
        return 0;
    }
}

Val scalar_val(int dt, double v) {
    if (dt_float(dt)) {
        Val r = {rnd(dt, v), 0, 0};
        return r;
    }
    return ival(wrap(dt, (int64_t)v));
}

/* ---- element-wise ops ---- */

/* The inverse error function (the C library has none): bisection to where erfc (for
 * |x| >= 1/2, whose 1 - |x| is exact) or erf crosses, then a Newton step. */
static double erfinv_model(double x) {
    double a = fabs(x);
    if (isnan(a) || a > 1) return NAN;
    if (a == 0 || a == 1) return a == 0 ? x : copysign(INFINITY, x);
    /* Below 2^-26 the series' cubic term is under half an ulp (and the bisection below,
     * which resolves 6 / 2^100, would lose a tiny argument: 1e-300 gave 0). */
    if (a < 0x1p-26) return x * 0.88622692545275801; /* sqrt(pi) / 2 */
    double lo = 0, hi = 6;
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        double g = a >= 0.5 ? erfc(mid) - (1 - a) : a - erf(mid);
        if (g > 0) lo = mid;
        else hi = mid;
    }
    double y = 0.5 * (lo + hi);
    double g = a >= 0.5 ? erfc(y) - (1 - a) : a - erf(y);
    return copysign(y + g / (1.1283791670955126 * exp(-y * y)), x); /* 2/sqrt(pi) */
}

static double libm_unary(int op, double x) {
    switch (op) {
    case SL_SQRT:
        return sqrt(x);
    case SL_RSQRT:
        return 1 / sqrt(x);
    case SL_CBRT:
        return cbrt(x);
    case SL_RCP:
        return 1 / x;
    case SL_EXP:
        return exp(x);
    case SL_EXP2:
        return exp2(x);
    case SL_EXPM1:
        return expm1(x);
    case SL_LOG:
        return log(x);
    case SL_LOG2:
        return log2(x);
    case SL_LOG10:
        return log10(x);
    case SL_LOG1P:
        return log1p(x);
    case SL_SIN:
        return sin(x);
    case SL_COS:
        return cos(x);
    case SL_TAN:
        return tan(x);
    case SL_ASIN:
        return asin(x);
    case SL_ACOS:
        return acos(x);
    case SL_ATAN:
        return atan(x);
    case SL_SINH:
        return sinh(x);
    case SL_COSH:
        return cosh(x);
    case SL_TANH:
        return tanh(x);
    case SL_ASINH:
        return asinh(x);
    case SL_ACOSH:
        return acosh(x);
    case SL_ATANH:
        return atanh(x);
    case SL_ERFC:
        return erfc(x);
    case SL_ERFINV:
        return erfinv_model(x);
    case SL_LGAMMA: {
        int sign;
        return lgamma_r(x, &sign);
    }
    case SL_TGAMMA:
        return tgamma(x);
    default:
        return erf(x);
    }
}

/* A function of exact inputs computed by the C library: within 16 ulps of the result. */
static Val transcendental(int dt, double exact) {
    Val v = fres(dt, exact, 0);
    if (v.e != ANY_VALUE && isfinite(v.f)) {
        double t = 16 * ulp(dt, v.f);
        if (fabs(v.f) < min_normal(dt)) t = 16 * min_normal(dt);
        if (t > v.e) v.e = t;
    }
    return v;
}

static Val unary_float(int op, int dt, Val x) {
    if (shaky(dt, x)) return any_val();
    double e = x.e;
    switch (op) {
    case SL_NEG:
        return fres(dt, -x.f, e);
    case SL_ABS:
        return fres(dt, fabs(x.f), e);
    case SL_SIGN:
        if (isnan(x.f)) return fres(dt, x.f, 0);
        if (e > 0 && fabs(x.f) <= e) return any_val();
        return fres(dt, x.f > 0 ? 1.0 : x.f < 0 ? -1.0 : x.f, 0);
    case SL_FLOOR:
    case SL_CEIL:
    case SL_ROUND:
    case SL_TRUNC: {
        double (*fn)(double) = op == SL_FLOOR ? floor : op == SL_CEIL ? ceil : op == SL_ROUND ? round : trunc;
        if (e > 0 && (!isfinite(x.f) || fn(x.f - e) != fn(x.f + e))) return any_val();
        return fres(dt, fn(x.f), e > 0 ? e : 0);
    }
    case SL_ISNAN:
        if (e > 0 && !isfinite(x.f)) return any_val();
        return ival(isnan(x.f));
    case SL_ISINF:
        if (e > 0 && (!isfinite(x.f) || fabs(x.f) + e >= max_of(dt))) return any_val();
        return ival(isinf(x.f));
    default: {
        if (e > 0) return any_val();
        if (model_trig_limit && (op == SL_SIN || op == SL_COS || op == SL_TAN) && !(fabs(x.f) <= model_trig_limit)) return any_val();
        Val v = transcendental(dt, libm_unary(op, x.f));
        /* Near its zeros at negative arguments lgamma is accurate absolutely (about 2^-52 of
         * the reflection's terms, 1 + lgamma(1 - x)), not relatively. */
        if (op == SL_LGAMMA && x.f < 0 && isfinite(v.f)) {
            int sign;
            double t = 0x1p-48 * (1 + fabs(lgamma_r(1 - x.f, &sign)));
            if (t > v.e) v.e = t;
        }
        return v;
    }
    }
}

static Val unary_int(int op, int dt, Val x) {
    if (x.e == ANY_VALUE) return any_val();
    int64_t v = x.i;
    switch (op) {
    case SL_ISNAN:
    case SL_ISINF:
        return ival(0);
    case SL_NOT:
        return ival(dt == SL_BOOL ? 1 - v : wrap(dt, ~v));
    case SL_NEG:
        return ival(wrap(dt, (int64_t)(0 - (uint64_t)v)));
    case SL_ABS:
        return ival(wrap(dt, v < 0 ? (int64_t)(0 - (uint64_t)v) : v));
    case SL_SIGN:
        return ival(wrap(dt, v > 0 ? 1 : v < 0 ? -1 : 0));
    default: /* floor, ceil, round, trunc */
        return ival(v);
    }
}

void sv_unary(int op, const Shadow *a, Shadow *out) {
    if (!a->known || !out->known) {
        sh_forget(out);
        return;
    }
    for (int64_t i = 0; i < out->numel; i++) {
        Val x = sh_get(a, i);
        sh_put(out, i, dt_float(a->dtype) ? unary_float(op, a->dtype, x) : unary_int(op, a->dtype, x));
    }
}

static int64_t int_pow(int dt, int64_t b, int64_t e) {
    if (e < 0) {
        if (b == 1) return 1;
        if (b == -1 && dt != SL_U8) return (e & 1) ? -1 : 1;
        return 0;
    }
    uint64_t r = 1, base = (uint64_t)b, k = (uint64_t)e;
    while (k) {
        if (k & 1) r *= base;
        base *= base;
        k >>= 1;
    }
    return wrap(dt, (int64_t)r);
}

static int64_t int_div(int dt, int64_t x, int64_t y, int rem) {
    if (y == 0) return 0;
    if (dt == SL_I64 && x == INT64_MIN && y == -1) return rem ? 0 : INT64_MIN;
    return wrap(dt, rem ? x % y : x / y);
}

static Val binary_int(int op, int dt, Val a, Val b) {
    if (a.e == ANY_VALUE || b.e == ANY_VALUE) return any_val();
    int64_t x = a.i, y = b.i;
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    switch (op) {
    case SL_EQ:
        return ival(x == y);
    case SL_NE:
        return ival(x != y);
    case SL_LT:
        return ival(x < y);
    case SL_LE:
        return ival(x <= y);
    case SL_GT:
        return ival(x > y);
    case SL_GE:
        return ival(x >= y);
    case SL_ADD:
        return ival(wrap(dt, (int64_t)(ux + uy)));
    case SL_SUB:
        return ival(wrap(dt, (int64_t)(ux - uy)));
    case SL_MUL:
        return ival(wrap(dt, (int64_t)(ux * uy)));
    case SL_DIV:
        return ival(int_div(dt, x, y, 0));
    case SL_REM:
        return ival(int_div(dt, x, y, 1));
    case SL_POW:
        return ival(int_pow(dt, x, y));
    case SL_MIN:
        return ival(x < y ? x : y);
    case SL_MAX:
        return ival(x > y ? x : y);
    case SL_AND:
        return ival(x & y);
    case SL_OR:
        return ival(x | y);
    default:
        return ival(x ^ y);
    }
}

static double libm_binary(int op, double x, double y) {
    switch (op) {
    case SL_POW:
        return pow(x, y);
    case SL_ATAN2:
        return atan2(x, y);
    default:
        return hypot(x, y);
    }
}

static Val binary_float(int op, int dt, Val a, Val b) {
    if (shaky(dt, a) || shaky(dt, b)) return any_val();
    double x = a.f, y = b.f, ex = a.e, ey = b.e;
    int exact = ex == 0 && ey == 0;
    if (!exact && (!isfinite(x) || !isfinite(y))) return any_val();
    switch (op) {
    case SL_EQ:
    case SL_NE:
    case SL_LT:
    case SL_LE:
    case SL_GT:
    case SL_GE: {
        if (!exact && fabs(x - y) <= ex + ey) return any_val();
        int r = op == SL_EQ ? x == y : op == SL_NE ? x != y : op == SL_LT ? x < y : op == SL_LE ? x <= y : op == SL_GT ? x > y : x >= y;
        return ival(r);
    }
    case SL_ADD:
    case SL_SUB: {
        double r = op == SL_ADD ? x + y : x - y;
        return fres(dt, r, ex + ey + 2 * ulp(dt, r));
    }
    case SL_MUL: {
        double r = x * y;
        return fres(dt, r, exact ? 2 * ulp(dt, r) : fabs(y) * ex + fabs(x) * ey + ex * ey + 2 * ulp(dt, r));
    }
    case SL_DIV: {
        double r = x / y;
        if (exact) return fres(dt, r, 4 * ulp(dt, r));
        if (fabs(y) <= 2 * ey) return any_val();
        return fres(dt, r, (fabs(x) * ey + fabs(y) * ex) / (fabs(y) * (fabs(y) - ey)) + 4 * ulp(dt, r));
    }
    case SL_REM: {
        if (!exact) return any_val();
        double r = fmod(x, y);
        double t = 16 * ulp(dt, r), tx = 2 * ulp(dt, x);
        return fres(dt, r, t > tx ? t : tx);
    }
    case SL_MIN:
    case SL_MAX: {
        if (isnan(x) || isnan(y)) return fres(dt, NAN, 0);
        double r = op == SL_MIN ? (x < y ? x : y) : (x > y ? x : y);
        return fres(dt, r, ex > ey ? ex : ey);
    }
    default:
        if (!exact) return any_val();
        return transcendental(dt, libm_binary(op, x, y));
    }
}

/* Element i of operand `a` of an element-wise op whose result has shape `out`. */
static Val operand(const Shadow *a, const Shadow *out, const int64_t *c) {
    if (a->rank == 0) return sh_get(a, 0);
    int64_t s[SL_MAX_RANK];
    for (int d = 0; d < a->rank; d++) s[d] = a->dims[d] == 1 ? 0 : c[d];
    (void)out;
    return sh_get(a, ravel(a->rank, a->dims, s));
}

void sv_binary(int op, const Shadow *a, const Shadow *b, Shadow *out) {
    if (!a->known || !b->known || !out->known) {
        sh_forget(out);
        return;
    }
    int64_t c[SL_MAX_RANK];
    for (int64_t i = 0; i < out->numel; i++) {
        unravel(out->rank, out->dims, i, c);
        Val x = operand(a, out, c), y = operand(b, out, c);
        sh_put(out, i, dt_float(a->dtype) ? binary_float(op, a->dtype, x, y) : binary_int(op, a->dtype, x, y));
    }
}

/* `a` converted to `dt` into `out` (the cast op's conversion). */
static void sh_converted(const Shadow *a, int dt, Shadow *out) {
    sh_init(out, dt, a->rank, a->dims, a->known);
    sv_cast(a, out);
}

/* `op` of `a` and `b` after both are promoted to `dt`. */
void sv_binary_as(int op, const Shadow *a, const Shadow *b, int dt, Shadow *out) {
    Shadow x, y;
    sh_converted(a, dt, &x);
    sh_converted(b, dt, &y);
    sv_binary(op, &x, &y, out);
    sh_free(&x);
    sh_free(&y);
}

/* a * b + c rounded once, of exact operands exactly; errors of inexact ones propagated. */
static Val fma_float(int dt, Val x, Val y, Val z) {
    if (shaky(dt, x) || shaky(dt, y) || shaky(dt, z)) return any_val();
    double r = dt == SL_F32 ? (double)fmaf((float)x.f, (float)y.f, (float)z.f) : fma(x.f, y.f, z.f);
    if (x.e == 0 && y.e == 0 && z.e == 0) return fres(dt, r, 0);
    return fres(dt, r, fabs(y.f) * x.e + fabs(x.f) * y.e + x.e * y.e + z.e + 2 * ulp(dt, r));
}

/* fma of `a`, `b`, `c` after all three are promoted to `out`'s type (a float type). */
void sv_fma_as(const Shadow *a, const Shadow *b, const Shadow *c, Shadow *out) {
    Shadow x, y, z;
    sh_converted(a, out->dtype, &x);
    sh_converted(b, out->dtype, &y);
    sh_converted(c, out->dtype, &z);
    if (!x.known || !y.known || !z.known || !out->known) sh_forget(out);
    else {
        int64_t k[SL_MAX_RANK];
        for (int64_t i = 0; i < out->numel; i++) {
            unravel(out->rank, out->dims, i, k);
            sh_put(out, i, fma_float(out->dtype, operand(&x, out, k), operand(&y, out, k), operand(&z, out, k)));
        }
    }
    sh_free(&x);
    sh_free(&y);
    sh_free(&z);
}

/* `cond ? a : b` after `a` and `b` are promoted to `out`'s type. */
void sv_select_as(const Shadow *cond, const Shadow *a, const Shadow *b, Shadow *out) {
    Shadow x, y;
    sh_converted(a, out->dtype, &x);
    sh_converted(b, out->dtype, &y);
    sv_select(cond, &x, &y, out);
    sh_free(&x);
    sh_free(&y);
}

void sv_select(const Shadow *cond, const Shadow *a, const Shadow *b, Shadow *out) {
    if (!cond->known || !a->known || !b->known || !out->known) {
        sh_forget(out);
        return;
    }
    int64_t c[SL_MAX_RANK];
    for (int64_t i = 0; i < out->numel; i++) {
        unravel(out->rank, out->dims, i, c);
        Val k = operand(cond, out, c);
        if (k.e == ANY_VALUE) sh_put(out, i, any_val());
        else sh_put(out, i, k.i ? operand(a, out, c) : operand(b, out, c));
    }
}

/* Rust's `as` from a float: truncates, saturates, NaN becomes 0. */
static int64_t float_to_int(int dt, double x) {
    if (isnan(x)) return 0;
    double lo = dt == SL_I32 ? -2147483648.0 : dt == SL_U8 ? 0 : -9223372036854775808.0;
    double hi = dt == SL_I32 ? 2147483647.0 : dt == SL_U8 ? 255.0 : 9223372036854775807.0;
    if (x <= lo) return dt == SL_I64 ? INT64_MIN : (int64_t)lo;
    if (x >= hi) return dt == SL_I64 ? INT64_MAX : (int64_t)hi;
    return (int64_t)trunc(x);
}

static Val cast_val(int from, int to, Val x) {
    if (x.e == ANY_VALUE) return any_val();
    if (dt_float(from)) {
        if (shaky(from, x)) return any_val();
        if (to == SL_BOOL) {
            if (x.e > 0 && (!isfinite(x.f) || fabs(x.f) <= x.e)) return any_val();
            return ival(x.f != 0);
        }
        if (dt_float(to)) return fres(to, x.f, x.e > 0 || (to == SL_F32 && from == SL_F64) ? x.e + ulp(to, x.f) : 0);
        int64_t r = float_to_int(to, x.f);
        if (x.e > 0 && (!isfinite(x.f) || float_to_int(to, x.f - x.e) != r || float_to_int(to, x.f + x.e) != r)) return any_val();
        return ival(r);
    }
    if (dt_float(to)) {
        double r = to == SL_F32 ? (double)(float)x.i : (double)x.i;
        return fres(to, r, r == (double)x.i ? 0 : ulp(to, r));
    }
    return ival(wrap(to, x.i));
}

void sv_cast(const Shadow *a, Shadow *out) {
    if (!a->known || !out->known) {
        sh_forget(out);
        return;
    }
    for (int64_t i = 0; i < out->numel; i++) sh_put(out, i, cast_val(a->dtype, out->dtype, sh_get(a, i)));
}

/* ---- reductions and scans ---- */

/* Accumulation in f64 (sums, products, means of floats; documented). */
#define U64 (DBL_EPSILON / 2)

/* The elements of the group that output element `o` reduces, in order along `dim`. */
typedef struct {
    int64_t n;
    int64_t idx[SHADOW_MAX_NUMEL];
} Group;

static void group_of(const Shadow *a, int dim, const Shadow *out, int64_t o, Group *g) {
    g->n = 0;
    if (dim < 0) {
        for (int64_t i = 0; i < a->numel; i++) g->idx[g->n++] = i;
        return;
    }
    int64_t c[SL_MAX_RANK];
    unravel(out->rank, out->dims, o, c);
    for (int64_t k = 0; k < a->dims[dim]; k++) {
        c[dim] = k;
        g->idx[g->n++] = ravel(a->rank, a->dims, c);
    }
}

/* Whether a float product may overflow or underflow in f64 depending on its order. */
static int product_order_matters(const Shadow *a, const Group *g) {
    double up = 0, down = 0;
    for (int64_t k = 0; k < g->n; k++) {
        double x = fabs(sh_get(a, g->idx[k]).f);
        if (x != 0 && isfinite(x)) {
            double l = log2(x);
            if (l > 0) up += l;
            else down += l;
        }
    }
    return up > 1000 || down < -1000;
}

static Val reduce_group(int op, const Shadow *a, const Group *g, int rt) {
    int dt = a->dtype, fl = dt_float(dt);
    int64_t n = g->n;
    int inexact = 0;
    for (int64_t k = 0; k < n; k++) {
        Val x = sh_get(a, g->idx[k]);
        if (x.e == ANY_VALUE || (fl && shaky(dt, x))) return any_val();
        if (x.e > 0) inexact = 1;
    }
    switch (op) {
    case SL_SUM:
    case SL_MEAN: {
        if (!fl) {
            if (op == SL_SUM) {
                uint64_t s = 0;
                for (int64_t k = 0; k < n; k++) s += (uint64_t)sh_get(a, g->idx[k]).i;
                return ival((int64_t)s);
            }
            long double s = 0, mag = 0;
            for (int64_t k = 0; k < n; k++) {
                double x = (double)sh_get(a, g->idx[k]).i;
                s += x;
                mag += fabs(x);
            }
            double r = (double)(s / n);
            return fres(rt, r, (double)(mag / n) * (n + 2) * U64 * 2 + 2 * ulp(rt, r));
        }
        long double s = 0, mag = 0, e = 0;
        int nan = 0, pinf = 0, ninf = 0;
        for (int64_t k = 0; k < n; k++) {
            Val x = sh_get(a, g->idx[k]);
            if (isnan(x.f)) nan = 1;
            else if (isinf(x.f)) *(x.f > 0 ? &pinf : &ninf) = 1;
            else {
                s += x.f;
                mag += fabs(x.f);
                e += x.e;
            }
        }
        if (nan || (pinf && ninf)) return fres(rt, NAN, 0);
        /* Finite terms may overflow to either infinity, depending on the order. */
        if (mag > DBL_MAX / 4) return any_val();
        if (pinf || ninf) return fres(rt, pinf ? INFINITY : -INFINITY, 0);
        double r = (double)s, t = (double)(e + mag * (n + 2) * U64 * 2);
        if (op == SL_MEAN) {
            if (n == 0) return fres(rt, NAN, 0);
            r /= (double)n;
            t /= (double)n;
        }
        return fres(rt, r, t + 2 * ulp(rt, r));
    }
    case SL_PROD: {
        if (!fl) {
            uint64_t p = 1;
            for (int64_t k = 0; k < n; k++) p *= (uint64_t)sh_get(a, g->idx[k]).i;
            return ival((int64_t)p);
        }
        if (inexact || product_order_matters(a, g)) return any_val();
        long double p = 1;
        for (int64_t k = 0; k < n; k++) p *= sh_get(a, g->idx[k]).f;
        double r = (double)p;
        return fres(rt, r, fabs(r) * (n + 2) * U64 * 2 + 2 * ulp(rt, r));
    }
    case SL_MINVAL:
    case SL_MAXVAL: {
        int min = op == SL_MINVAL;
        if (fl) {
            double best = min ? INFINITY : -INFINITY, e = 0;
            for (int64_t k = 0; k < n; k++) {
                Val x = sh_get(a, g->idx[k]);
                if (isnan(x.f)) return inexact ? any_val() : fres(rt, NAN, 0);
                if (min ? x.f < best : x.f > best) best = x.f;
                if (x.e > e) e = x.e;
            }
            return fres(rt, best, e);
        }
        int64_t best = min ? (dt == SL_I32 ? INT32_MAX : dt == SL_I64 ? INT64_MAX : dt == SL_U8 ? 255 : 1)
                           : (dt == SL_I32 ? INT32_MIN : dt == SL_I64 ? INT64_MIN : 0);
        for (int64_t k = 0; k < n; k++) {
            int64_t x = sh_get(a, g->idx[k]).i;
            if (min ? x < best : x > best) best = x;
        }
        return ival(best);
    }
    case SL_ANY:
    case SL_ALL:
    case SL_COUNT: {
        int64_t count = 0;
        for (int64_t k = 0; k < n; k++) {
            Val x = sh_get(a, g->idx[k]);
            if (x.e > 0 && (!isfinite(x.f) || fabs(x.f) <= x.e)) return any_val();
            count += fl ? x.f != 0 : x.i != 0;
        }
        return ival(op == SL_ANY ? count > 0 : op == SL_ALL ? count == n : count);
    }
    default: { /* argmin, argmax */
        if (inexact) return any_val();
        int min = op == SL_ARGMIN;
        int64_t best = -1;
        double bv = 0;
        for (int64_t k = 0; k < n; k++) {
            Val x = sh_get(a, g->idx[k]);
            double v = fl ? x.f : (double)x.i;
            if (fl && isnan(v)) return ival(k);
            if (!fl && dt == SL_I64) {
                int64_t bi = best < 0 ? 0 : sh_get(a, g->idx[best]).i;
                if (best < 0 || (min ? x.i < bi : x.i > bi)) best = k;
                continue;
            }
            if (best < 0 || (min ? v < bv : v > bv)) {
                best = k;
                bv = v;
            }
        }
        return ival(best);
    }
    }
}

void sv_reduce(int op, const Shadow *a, int dim, Shadow *out) {
    if (!a->known || !out->known) {
        sh_forget(out);
        return;
    }
    static _Thread_local Group g;
    for (int64_t o = 0; o < out->numel; o++) {
        group_of(a, dim, out, o, &g);
        sh_put(out, o, reduce_group(op, a, &g, out->dtype));
    }
}

void sv_scan(int prod, const Shadow *a, int dim, Shadow *out) {
    if (!a->known || !out->known) {
        sh_forget(out);
        return;
    }
    int dt = a->dtype, rt = out->dtype;
    int64_t c[SL_MAX_RANK];
    for (int64_t o = 0; o < a->numel; o++) {
        unravel(a->rank, a->dims, o, c);
        if (c[dim] != 0) continue;
        long double acc = prod ? 1 : 0, mag = 0, e = 0;
        uint64_t iacc = prod ? 1 : 0;
        int any = 0, order = 0;
        double up = 0, down = 0;
        for (int64_t k = 0; k < a->dims[dim]; k++) {
            c[dim] = k;
            int64_t i = ravel(a->rank, a->dims, c);
            Val x = sh_get(a, i);
            if (!dt_float(dt)) {
                if (x.e == ANY_VALUE) any = 1;
                iacc = prod ? iacc * (uint64_t)x.i : iacc + (uint64_t)x.i;
                sh_put(out, i, any ? any_val() : ival((int64_t)iacc));
                continue;
            }
            if (shaky(dt, x) || (prod && x.e > 0)) any = 1;
            if (prod && x.f != 0 && isfinite(x.f)) {
                double l = log2(fabs(x.f));
                if (l > 0) up += l;
                else down += l;
                if (up > 1000 || down < -1000) order = 1;
            }
            acc = prod ? acc * x.f : acc + x.f;
            mag += fabs(x.f);
            e += x.e;
            double r = (double)acc;
            Val v;
            if (any || order || (!prod && mag > DBL_MAX / 4)) v = any_val();
            else if (prod) v = fres(rt, r, fabs(r) * (k + 3) * U64 * 2 + 2 * ulp(rt, r));
            else if (!isfinite(r)) v = fres(rt, r, 0);
            else v = fres(rt, r, (double)(e + mag * (k + 3) * U64 * 2) + 2 * ulp(rt, r));
            sh_put(out, i, v);
        }
    }
}

void sv_matmul(const Shadow *a, const Shadow *b, Shadow *out) {
    if (!a->known || !b->known || !out->known) {
        sh_forget(out);
        return;
    }
    if (out->numel == 0) return;
    int dt = a->dtype;
    /* A vector on the left is a 1 x k matrix, on the right a k x 1 one; the result's
     * dimensions after m and n (those of matrix operands) are the batch. */
    int64_t m = a->rank >= 2 ? a->dims[0] : 1, k = a->dims[a->rank >= 2 ? 1 : 0], n = b->rank >= 2 ? b->dims[1] : 1;
    int first = (a->rank >= 2) + (b->rank >= 2);
    int64_t count = out->numel / (m * n);
    for (int64_t x = 0; x < count; x++) {
        /* Where product x's matrices start: an operand's size-1 and missing batch
         * dimensions broadcast. */
        int64_t rest = x, oa = 0, ob = 0, span_a = m * k, span_b = k * n;
        for (int d = 0; d + first < out->rank; d++) {
            int64_t size = out->dims[first + d], i = rest % size;
            rest /= size;
            int64_t da = d + 2 < a->rank ? a->dims[d + 2] : 1, db = d + 2 < b->rank ? b->dims[d + 2] : 1;
            if (da != 1) oa += i * span_a;
            if (db != 1) ob += i * span_b;
            span_a *= da;
            span_b *= db;
        }
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                long double s = 0, mag = 0, e = 0;
                int any = 0;
                for (int64_t p = 0; p < k; p++) {
                    Val u = sh_get(a, oa + i + p * m), v = sh_get(b, ob + p + j * k);
                    if (shaky(dt, u) || shaky(dt, v) || !isfinite(u.f) || !isfinite(v.f)) any = 1;
                    s += (long double)u.f * v.f;
                    mag += fabs(u.f * v.f);
                    e += fabs(u.f) * v.e + fabs(v.f) * u.e + u.e * v.e;
                }
                double r = (double)s;
                double ulps = dt == SL_F32 ? FLT_EPSILON / 2 : U64;
                Val v = any || mag > max_of(dt) / 4 ? any_val()
                                                    : fres(dt, r, (double)(e + mag * (k + 2) * ulps * 2) + 2 * ulp(dt, r));
                sh_put(out, x * m * n + i + j * m, v);
            }
    }
}

/* ---- sources ---- */

void sv_fill(Shadow *out, Val v) {
    for (int64_t i = 0; i < out->numel && out->known; i++) sh_put(out, i, v);
}

void sv_iota(int dim, Shadow *out) {
    int64_t c[SL_MAX_RANK];
    for (int64_t i = 0; i < out->numel && out->known; i++) {
        unravel(out->rank, out->dims, i, c);
        sh_put(out, i, dt_float(out->dtype) ? fres(out->dtype, (double)c[dim], 0) : ival(wrap(out->dtype, c[dim])));
    }
}

void sv_identity(Shadow *out) {
    int64_t c[SL_MAX_RANK];
    for (int64_t i = 0; i < out->numel && out->known; i++) {
        unravel(out->rank, out->dims, i, c);
        Val v = ival(c[0] == c[1]);
        sh_put(out, i, v);
    }
}

/* ---- views ---- */

/* Copies element `src_i` of `a` into element `i` of `out` (both known). */
#define COPY_VIEW(out, a, body)                                                          \
    do {                                                                                 \
        if (!(a)->known || !(out)->known) {                                              \
            sh_forget(out);                                                              \
            return;                                                                      \
        }                                                                                \
        int64_t c[SL_MAX_RANK], s[SL_MAX_RANK];                                          \
        for (int64_t i = 0; i < (out)->numel; i++) {                                     \
            unravel((out)->rank, (out)->dims, i, c);                                     \
            memset(s, 0, sizeof s);                                                      \
            body;                                                                        \
        }                                                                                \
    } while (0)

void sv_permute(const Shadow *a, const int *perm, Shadow *out) {
    COPY_VIEW(out, a, {
        for (int d = 0; d < out->rank; d++) s[perm[d]] = c[d];
        sh_put(out, i, sh_get(a, ravel(a->rank, a->dims, s)));
    });
}

void sv_reshape(const Shadow *a, Shadow *out) {
    if (!a->known || !out->known) {
        sh_forget(out);
        return;
    }
    for (int64_t i = 0; i < out->numel; i++) sh_put(out, i, sh_get(a, i));
}

void sv_section(const Shadow *a, const int64_t *start, const int64_t *stride, Shadow *out) {
    COPY_VIEW(out, a, {
        for (int d = 0; d < a->rank; d++) s[d] = start[d] + stride[d] * c[d];
        sh_put(out, i, sh_get(a, ravel(a->rank, a->dims, s)));
    });
}

void sv_project(const Shadow *a, int dim, int64_t index, Shadow *out) {
    COPY_VIEW(out, a, {
        for (int d = 0; d < a->rank; d++) s[d] = d < dim ? c[d] : d == dim ? index : c[d - 1];
        sh_put(out, i, sh_get(a, ravel(a->rank, a->dims, s)));
    });
}

void sv_offset(const Shadow *a, const int64_t *offset, int boundary, Val fill, Shadow *out) {
    COPY_VIEW(out, a, {
        int inside = 1;
        for (int d = 0; d < a->rank; d++) {
            __int128 k = (__int128)c[d] - offset[d];
            int64_t n = a->dims[d];
            if (k >= 0 && k < n) s[d] = (int64_t)k;
            else if (boundary == SL_BOUNDARY_FILL) inside = 0;
            else if (boundary == SL_BOUNDARY_CLAMP) s[d] = k < 0 ? 0 : n - 1;
            else {
                __int128 m = k % n;
                s[d] = (int64_t)(m < 0 ? m + n : m);
            }
        }
        sh_put(out, i, inside ? sh_get(a, ravel(a->rank, a->dims, s)) : fill);
    });
}

void sv_broadcast(const Shadow *a, Shadow *out) {
    COPY_VIEW(out, a, {
        for (int d = 0; d < a->rank; d++) s[d] = a->dims[d] == 1 ? 0 : c[d];
        sh_put(out, i, sh_get(a, ravel(a->rank, a->dims, s)));
    });
}

void sv_concat(const Shadow *const *parts, int n, int dim, Shadow *out) {
    for (int p = 0; p < n; p++)
        if (!parts[p]->known) {
            sh_forget(out);
            return;
        }
    if (!out->known) return;
    int64_t c[SL_MAX_RANK];
    for (int64_t i = 0; i < out->numel; i++) {
        unravel(out->rank, out->dims, i, c);
        for (int p = 0; p < n; p++) {
            const Shadow *q = parts[p];
            int64_t size = dim < q->rank ? q->dims[dim] : 1;
            if (c[dim] < size) {
                sh_put(out, i, sh_get(q, ravel(q->rank, q->dims, c)));
                break;
            }
            c[dim] -= size;
        }
    }
}

void sv_gather(const Shadow *src, const Shadow *const *idx, Shadow *out) {
    for (int d = 0; d < src->rank; d++)
        if (!idx[d]->known) {
            sh_forget(out);
            return;
        }
    COPY_VIEW(out, src, {
        int any = 0;
        for (int d = 0; d < src->rank; d++) {
            Val k = operand(idx[d], out, c);
            if (k.e == ANY_VALUE) any = 1;
            if (dt_float(idx[d]->dtype)) {
                /* Floored; NaN reads element 0. The floor of an inexact value may fall
                 * either side of an integer. */
                double at = floor(k.f);
                if (k.e != 0) any = 1;
                s[d] = isnan(at) || at < 0 ? 0 : at >= (double)src->dims[d] ? src->dims[d] - 1 : (int64_t)at;
            } else {
                s[d] = k.i < 0 ? 0 : k.i >= src->dims[d] ? src->dims[d] - 1 : k.i;
            }
        }
        sh_put(out, i, any ? any_val() : sh_get(src, ravel(src->rank, src->dims, s)));
    });
}

void sv_scatter(const Shadow *dst, const Shadow *const *idx, const Shadow *values, int mode, Shadow *out) {
    int r = dst->rank;
    int known = dst->known && values->known && out->known;
    for (int d = 0; d < r; d++) known = known && idx[d]->known;
    if (!known) {
        sh_forget(out);
        return;
    }
    for (int64_t i = 0; i < out->numel; i++) sh_put(out, i, sh_get(dst, i));
    /* The shape the values and indices broadcast to. */
    int rank = values->rank;
    int64_t dims[SL_MAX_RANK];
    memcpy(dims, values->dims, sizeof dims);
    for (int d = 0; d < r; d++) broadcast_shapes(rank, dims, idx[d]->rank, idx[d]->dims, &rank, dims);
    Shadow shape;
    sh_init(&shape, SL_BOOL, rank, dims, 0);
    int64_t c[SL_MAX_RANK], t[SL_MAX_RANK];
    for (int64_t i = 0; i < shape.numel; i++) {
        unravel(rank, dims, i, c);
        int inside = 1;
        for (int d = 0; d < r; d++) {
            Val k = operand(idx[d], &shape, c);
            if (k.e == ANY_VALUE) {
                sh_forget(out);
                return;
            }
            if (k.i < 0 || k.i >= dst->dims[d]) inside = 0;
            t[d] = k.i;
        }
        if (!inside) continue;
        int64_t o = ravel(r, dst->dims, t);
        Val v = operand(values, &shape, c), cur = sh_get(out, o);
        if (mode == SL_SCATTER_REPLACE) {
            sh_put(out, o, v);
            continue;
        }
        int op = mode == SL_SCATTER_ADD ? SL_ADD : mode == SL_SCATTER_MIN ? SL_MIN : SL_MAX;
        if (dst->dtype == SL_BOOL) {
            if (cur.e == ANY_VALUE || v.e == ANY_VALUE) sh_put(out, o, any_val());
            else sh_put(out, o, ival(op == SL_MIN ? (cur.i && v.i) : (cur.i || v.i)));
            continue;
        }
        sh_put(out, o, dt_float(dst->dtype) ? binary_float(op, dst->dtype, cur, v) : binary_int(op, dst->dtype, cur, v));
    }
}

/* ---- comparing what was read ---- */

static Val raw_elem(int dt, const unsigned char *p) {
    Shadow one;
    memset(&one, 0, sizeof one);
    one.dtype = dt;
    one.known = 1;
    one.vals = (unsigned char *)p;
    double zero = 0;
    one.tol = &zero;
    return sh_get(&one, 0);
}

int64_t sh_compare(const Shadow *s, const void *got, char *why, size_t n) {
    const unsigned char *g = got;
    size_t size = dt_size(s->dtype);
    for (int64_t i = 0; i < s->numel && i <= SHADOW_MAX_NUMEL; i++) {
        Val x = raw_elem(s->dtype, g + (size_t)i * size);
        if (!s->known) {
            if (s->bounded && !(x.f >= s->lo && x.f < s->hi)) {
                snprintf(why, n, "element %lld is %.17g, outside [%g, %g)", (long long)i, x.f, s->lo, s->hi);
                return i;
            }
            continue;
        }
        Val w = sh_get(s, i);
        if (w.e == ANY_VALUE) continue;
        int ok;
        if (!dt_float(s->dtype)) ok = x.i == w.i;
        else if (isnan(w.f)) ok = isnan(x.f);
        else if (isinf(w.f)) ok = x.f == w.f || (w.e > 0 && x.f * w.f > 0 && fabs(x.f) >= max_of(s->dtype) / 2);
        else if (!isfinite(x.f)) ok = 0;
        else ok = fabs(x.f - w.f) <= w.e;
        if (!ok) {
            if (dt_float(s->dtype))
                snprintf(why, n, "element %lld is %.17g, expected %.17g (tolerance %g)", (long long)i, x.f, w.f, w.e);
            else
                snprintf(why, n, "element %lld is %lld, expected %lld", (long long)i, (long long)x.i, (long long)w.i);
            return i;
        }
    }
    return -1;
}
