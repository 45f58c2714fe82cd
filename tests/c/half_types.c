/* f16 and bf16 from C, which has no portable half type: arrays are made from and read into
 * uint16_t bit patterns. Every pattern of each type is widened to float and compared with
 * a plain C decoding of the bits; narrowed back it gives the same bits (NaNs stay NaNs);
 * a sum of halves is their f32 sum rounded once; matrix products refuse them. */
#include <math.h>
#include <stdint.h>

#include "check.h"

#define N 65536

static sl_dtype dtype(sl_array a) {
    sl_dtype t;
    OK(sl_get_dtype(a, &t));
    return t;
}

/* The value of f16 bits: sign, 5 exponent bits (bias 15), 10 fraction bits. */
static float f16_value(uint16_t b) {
    int e = (b >> 10) & 0x1f, f = b & 0x3ff;
    float m = e == 0 ? ldexpf((float)f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexpf((float)(f | 0x400), e - 25);
    return (b & 0x8000) ? -m : m;
}

/* The value of bf16 bits: the upper half of an f32's. */
static float bf16_value(uint16_t b) {
    uint32_t w = (uint32_t)b << 16;
    float x;
    memcpy(&x, &w, sizeof x);
    return x;
}

static void every_pattern(sl_dtype t, float (*value)(uint16_t)) {
    static uint16_t bits[N], back[N];
    static float wide[N];
    int64_t n = N;
    for (int i = 0; i < N; i++) bits[i] = (uint16_t)i;
    sl_array h, w, b;
    OK(sl_create(t, 1, &n, SL_COL_MAJOR, bits, sizeof bits, &h));
    EXPECT(dtype(h) == t, "type %d", dtype(h));
    OK(sl_cast(h, SL_F32, &w));
    OK(sl_read(w, SL_COL_MAJOR, wide, sizeof wide));
    OK(sl_cast(w, t, &b));
    OK(sl_read(b, SL_COL_MAJOR, back, sizeof back));
    for (int i = 0; i < N; i++) {
        float want = value((uint16_t)i);
        int nan = isnan(want);
        EXPECT(nan ? isnan(wide[i]) : wide[i] == want && signbit(wide[i]) == signbit(want),
               "type %d pattern %#06x: %g, want %g", t, i, wide[i], want);
        EXPECT(nan ? isnan(value(back[i])) : back[i] == i, "type %d pattern %#06x back: %#06x", t, i, back[i]);
    }
    OK(sl_release(h));
    OK(sl_release(w));
    OK(sl_release(b));
}

/* Small integers are exact in both types and their f32 sums exact: a sum is off by at
 * most the one rounding to the type (half a unit: 2^-11 or 2^-8 relative). */
static void sums_and_refusals(sl_dtype t) {
    enum { M = 1001 };
    static double x[M];
    float want = 0;
    for (int i = 0; i < M; i++) {
        x[i] = floor(uniform(-4, 4));
        want += (float)x[i];
    }
    sl_array f, h, total, wide, mm;
    f = vector_f64(x, M);
    OK(sl_cast(f, t, &h));
    OK(sl_sum(h, SL_ALL_DIMS, &total));
    EXPECT(dtype(total) == t, "sum of type %d is of type %d", t, dtype(total));
    OK(sl_cast(total, SL_F32, &wide));
    float got;
    OK(sl_read(wide, SL_COL_MAJOR, &got, sizeof got));
    EXPECT(fabsf(got - want) <= fabsf(want) * (t == SL_F16 ? 0x1p-11f : 0x1p-8f), "type %d sum %g, want %g", t, got,
           want);
    int64_t dims[2] = {1, M};
    sl_array row;
    OK(sl_reshape(h, 2, dims, &row));
    FAILS(sl_matmul(row, row, &mm), SL_ERR_DTYPE_MISMATCH, t == SL_F16 ? "f16" : "bf16");
    sl_array all[] = {f, h, total, wide, row};
    for (int i = 0; i < 5; i++) OK(sl_release(all[i]));
}

int main(void) {
    seed_rng("half_types");
    every_pattern(SL_F16, f16_value);
    every_pattern(SL_BF16, bf16_value);
    sums_and_refusals(SL_F16);
    sums_and_refusals(SL_BF16);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("half_types: ok\n");
    return 0;
}
