/* Drawing arguments: the fuzzer's random numbers, element types, shapes, extreme
 * integers, scalars and element values, and handles of every kind (live, null, stale,
 * forged, of the wrong generation, of an earlier runtime, of a generator). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void rand_seed(Rand *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) r->s[i] = splitmix(&seed);
}

uint64_t rand_u64(Rand *r) {
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t rand_below(Rand *r, uint64_t n) { return n ? rand_u64(r) % n : 0; }
int rand_pct(Rand *r, int percent) { return (int)rand_below(r, 100) < percent; }
double rand_unit(Rand *r) { return (double)(rand_u64(r) >> 11) * 0x1.0p-53; }

int gen_valid_dtype(Fuzzer *f) {
    static const int weighted[] = {SL_F32, SL_F32, SL_F64, SL_F64, SL_I32, SL_I32, SL_I64, SL_U8, SL_BOOL};
    return weighted[rand_below(&f->r, sizeof weighted / sizeof *weighted)];
}

int gen_dtype(Fuzzer *f) {
    /* 8 to 14 are the integer types i8 .. u64 and f16, bf16, which the model leaves out:
       never drawn. */
    static const int bad[] = {-1, 15, 16, 100, INT32_MIN, INT32_MAX};
    if (rand_pct(&f->r, 96)) return gen_valid_dtype(f);
    return bad[rand_below(&f->r, sizeof bad / sizeof *bad)];
}

int gen_rank(Fuzzer *f) {
    uint64_t k = rand_below(&f->r, 100);
    if (k < 10) return 0;
    if (k < 45) return 1;
    if (k < 80) return 2;
    if (k < 95) return 3;
    return 4 + (int)rand_below(&f->r, 5);
}

void gen_dims(Fuzzer *f, int rank, int64_t *dims, int64_t max_numel) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        uint64_t k = rand_below(&f->r, 100);
        dims[d] = k < 4 ? 0 : k < 25 ? 1 : 2 + (int64_t)rand_below(&f->r, k < 90 ? 6 : 30);
        while (dims[d] > 1 && n * dims[d] > max_numel) dims[d] /= 2;
        if (dims[d]) n *= dims[d];
    }
}

int64_t gen_extreme(Fuzzer *f) {
    static const int64_t table[] = {
        0, 1, -1, 2, -2, 3, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, (int64_t)1 << 31,
        ((int64_t)1 << 31) - 1, (int64_t)1 << 32, ((int64_t)1 << 32) + 1, (int64_t)1 << 40, (int64_t)1 << 62,
        -((int64_t)1 << 62), ((int64_t)1 << 62) + 1, (int64_t)1 << 61, INT64_MAX / 2, INT64_MIN / 2,
        -((int64_t)1 << 32), (int64_t)INT32_MAX, (int64_t)INT32_MIN,
    };
    if (rand_pct(&f->r, 15)) return (int64_t)rand_u64(&f->r);
    return table[rand_below(&f->r, sizeof table / sizeof *table)];
}

int64_t gen_offset(Fuzzer *f, int64_t n) {
    if (n > (1 << 20)) n = 1 << 20; /* zero-element arrays may have huge dimensions */
    if (rand_pct(&f->r, 75)) return (int64_t)rand_below(&f->r, (uint64_t)(2 * n + 5)) - n - 2;
    return gen_extreme(f);
}

/* A value of type dt from a palette of small, fractional, large and special numbers. */
static double palette(Fuzzer *f, int dt) {
    Rand *r = &f->r;
    uint64_t k = rand_below(r, 100);
    if (dt == SL_BOOL) return (double)rand_below(r, 2);
    if (dt == SL_U8) return k < 70 ? (double)rand_below(r, 17) : k < 90 ? (double)rand_below(r, 256) : (k & 1) ? 255 : 0;
    if (dt_int(dt)) {
        if (k < 60) return (double)((int64_t)rand_below(r, 33) - 16);
        if (dt == SL_I32) {
            static const double ext[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1.0, -1, 0, 1, 65536};
            if (k < 80) return ext[rand_below(r, sizeof ext / sizeof *ext)];
            return (double)(int32_t)(uint32_t)rand_u64(r);
        }
        return NAN; /* i64 values are drawn as integers (gen_values) */
    }
    if (k < 45) return (double)((int64_t)rand_below(r, 33) - 16);
    if (k < 65) return ((double)((int64_t)rand_below(r, 1025) - 512)) / 8;
    if (k < 82) return (rand_unit(r) - 0.5) * 2000;
    if (k < 92) {
        static const double sp[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e30, -1e-30, 0.5, -0.5, 1e-300, 1e300, 0x1p-1060};
        return sp[rand_below(r, sizeof sp / sizeof *sp)];
    }
    if (k < 95) return dt == SL_F32 ? (rand_pct(r, 50) ? FLT_MAX : FLT_MIN) : (rand_pct(r, 50) ? DBL_MAX : DBL_MIN);
    return ldexp(rand_unit(r) - 0.5, (int)rand_below(r, 200) - 100);
}

static int64_t palette_i64(Fuzzer *f) {
    uint64_t k = rand_below(&f->r, 100);
    static const int64_t ext[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, -1, 0, 1, (int64_t)1 << 53, ((int64_t)1 << 53) + 1};
    if (k < 60) return (int64_t)rand_below(&f->r, 33) - 16;
    if (k < 80) return ext[rand_below(&f->r, sizeof ext / sizeof *ext)];
    return (int64_t)rand_u64(&f->r);
}

double gen_scalar(Fuzzer *f, int dt) {
    Rand *r = &f->r;
    if (rand_pct(r, 8)) {
        static const double odd[] = {0.5, -0.25, 1e20, -1e20, NAN, INFINITY, 256, -1, 2147483648.0, 9223372036854775808.0, -9223372036854775808.0, 4294967296.0};
        double v = odd[rand_below(r, sizeof odd / sizeof *odd)];
        return v == 9223372036854775808.0 && dt == SL_I64 && (f->shared->tolerate & TOL_I) ? 0.5 : v;
    }
    if (rand_pct(r, 25)) {
        static const double common[] = {2, -1, 0, 1};
        return common[rand_below(r, 4)];
    }
    if (dt == SL_I64) {
        int64_t v = palette_i64(f);
        return (double)v == (double)INT64_MAX ? 0 : (double)v; /* exactly representable values only */
    }
    return palette(f, dt_valid(dt) ? dt : SL_F64);
}

void gen_values(Fuzzer *f, Shadow *s) {
    if (!s->known) return;
    int uniform = rand_pct(&f->r, 10); /* sometimes one value everywhere */
    Val v = {0, 0, 0};
    for (int64_t i = 0; i < s->numel; i++) {
        if (i == 0 || !uniform) {
            if (s->dtype == SL_I64) v.i = palette_i64(f);
            else if (dt_float(s->dtype)) v.f = palette(f, s->dtype);
            else v.i = (int64_t)palette(f, s->dtype);
            v.f = dt_float(s->dtype) ? v.f : (double)v.i;
        }
        sh_put(s, i, v);
    }
}

/* ---- handles ---- */

int pool_live(const Fuzzer *f, int slot) { return slot >= 0 && slot < POOL_MAX && f->pool[slot].h != 0; }

int pool_count(const Fuzzer *f) {
    int n = 0;
    for (int i = 0; i < POOL_MAX; i++) n += f->pool[i].h != 0;
    return n;
}

int pool_pick(Fuzzer *f) {
    int n = pool_count(f);
    if (!n) return -1;
    int k = (int)rand_below(&f->r, (uint64_t)n);
    for (int i = 0; i < POOL_MAX; i++)
        if (f->pool[i].h && k-- == 0) return i;
    return -1;
}

int pool_pick_small(Fuzzer *f, int64_t max_numel) {
    for (int tries = 0; tries < 8; tries++) {
        int s = pool_pick(f);
        if (s >= 0 && f->pool[s].s.numel <= max_numel) return s;
    }
    return -1;
}

int pool_find(const Fuzzer *f, sl_array h) {
    for (int i = 0; i < POOL_MAX; i++)
        if (h && f->pool[i].h == h) return i;
    return -1;
}

void stale_add(Fuzzer *f, sl_array h) {
    if (f->n_released < STALE_MAX) f->released[f->n_released++] = h;
    else f->released[rand_below(&f->r, STALE_MAX)] = h;
}

/* Whether h is a handle this thread knows to be live (forged values must not be). */
static int known_live(const Fuzzer *f, uint64_t h) {
    if (pool_find(f, h) >= 0) return 1;
    for (int i = 0; i < RNG_MAX; i++)
        if (f->rngs[i].id == h) return 1;
    return 0;
}

sl_array pick_handle(Fuzzer *f, int *slot, int valid_percent) {
    *slot = -1;
    if (rand_pct(&f->r, valid_percent)) {
        *slot = pool_pick(f);
        if (*slot >= 0) return f->pool[*slot].h;
    }
    for (;;) {
        uint64_t h;
        switch (rand_below(&f->r, 7)) {
        case 0:
            return 0;
        case 1:
            if (!f->n_released) continue;
            return f->released[rand_below(&f->r, (uint64_t)f->n_released)];
        case 2:
            h = rand_u64(&f->r);
            break;
        case 3: { /* a live slot with another generation */
            int s = pool_pick(f);
            if (s < 0) continue;
            h = f->pool[s].h ^ ((1 + rand_below(&f->r, 0xFFFF)) << 32);
            break;
        }
        case 4:
            if (!f->n_old) continue;
            return f->old[rand_below(&f->r, (uint64_t)f->n_old)];
        case 5: {
            int k = (int)rand_below(&f->r, RNG_MAX);
            if (!f->rngs[k].id) continue;
            return f->rngs[k].id;
        }
        default:
            h = rand_below(&f->r, 4096); /* small integers */
            break;
        }
        if (!known_live(f, h)) return h;
    }
}

const char *handle_label(Fuzzer *f, sl_array h, char *buf, size_t n) {
    int s = pool_find(f, h);
    if (s >= 0) snprintf(buf, n, "a%d", f->pool[s].label);
    else if (h == 0) snprintf(buf, n, "0");
    else snprintf(buf, n, "%#llx", (unsigned long long)h);
    return buf;
}
