/* The integer types i8, i16, u16, u32 and u64 from C: arrays made from C arrays of
 * int8_t ... uint64_t over their whole range (the extremes first), a sum and a product
 * that wrap around, a cast to double, and a sum (in int64_t for the signed types, uint64_t
 * for the unsigned ones), each checked against plain C. */
#include <inttypes.h>
#include <stdint.h>

#include "check.h"

#define N 1001

static sl_dtype dtype(sl_array a) {
    sl_dtype t;
    OK(sl_get_dtype(a, &t));
    return t;
}

/* 64 random bits. */
static uint64_t bits64(void) {
    return ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
}

/* Wrapping arithmetic in C: through the unsigned type of the same width (UT), whose
 * overflow is defined, then converted back to T (two's complement, as on every target
 * Sluice runs on). */
#define CHECK_TYPE(NAME, CODE, T, UT, MIN, MAX, SUM_CODE, ST, UST, FMT)                       \
    static void check_##NAME(void) {                                                          \
        static T a[N], b[N], got[N];                                                          \
        static double as_double[N];                                                           \
        int64_t n = N;                                                                        \
        for (int i = 0; i < N; i++) {                                                         \
            a[i] = (T)bits64();                                                               \
            b[i] = (T)bits64();                                                               \
        }                                                                                     \
        a[0] = MIN, a[1] = MAX, a[2] = 0, a[3] = (T)-1;                                       \
        b[0] = (T)-1, b[1] = 1, b[2] = MAX, b[3] = MIN;                                       \
        sl_array ha, hb, sum, prod, cast, total;                                              \
        OK(sl_create(CODE, 1, &n, SL_COL_MAJOR, a, sizeof a, &ha));                           \
        OK(sl_create(CODE, 1, &n, SL_COL_MAJOR, b, sizeof b, &hb));                           \
        OK(sl_add(ha, hb, &sum));                                                             \
        OK(sl_mul(ha, hb, &prod));                                                            \
        EXPECT(dtype(sum) == CODE && dtype(prod) == CODE, #NAME " + and * keep the type");    \
        OK(sl_read(sum, SL_COL_MAJOR, got, sizeof got));                                      \
        for (int i = 0; i < N; i++) {                                                         \
            T want = (T)(UT)((UT)a[i] + (UT)b[i]);                                            \
            EXPECT(got[i] == want, #NAME " sum %d: " FMT ", want " FMT, i, got[i], want);     \
        }                                                                                     \
        OK(sl_read(prod, SL_COL_MAJOR, got, sizeof got));                                     \
        for (int i = 0; i < N; i++) {                                                         \
            /* promoted to unsigned int before multiplying where UT is narrower */            \
            T want = (T)(UT)((uint64_t)(UT)a[i] * (uint64_t)(UT)b[i]);                        \
            EXPECT(got[i] == want, #NAME " product %d: " FMT ", want " FMT, i, got[i], want); \
        }                                                                                     \
        OK(sl_cast(ha, SL_F64, &cast));                                                       \
        OK(sl_read(cast, SL_COL_MAJOR, as_double, sizeof as_double));                         \
        for (int i = 0; i < N; i++) {                                                         \
            EXPECT(as_double[i] == (double)a[i], #NAME " to double %d: %.17g", i, as_double[i]); \
        }                                                                                     \
        OK(sl_sum(ha, SL_ALL_DIMS, &total));                                                  \
        EXPECT(dtype(total) == SUM_CODE, #NAME " sums are of type %d, got %d", SUM_CODE,      \
               dtype(total));                                                                 \
        ST got_total, want_total = 0;                                                         \
        for (int i = 0; i < N; i++) want_total = (ST)((UST)want_total + (UST)a[i]);          \
        OK(sl_read(total, SL_COL_MAJOR, &got_total, sizeof got_total));                       \
        EXPECT(got_total == want_total, #NAME " total %s", "differs");                        \
        sl_array all[] = {ha, hb, sum, prod, cast, total};                                    \
        for (int i = 0; i < 6; i++) OK(sl_release(all[i]));                                   \
    }

CHECK_TYPE(i8, SL_I8, int8_t, uint8_t, INT8_MIN, INT8_MAX, SL_I64, int64_t, uint64_t, "%d")
CHECK_TYPE(i16, SL_I16, int16_t, uint16_t, INT16_MIN, INT16_MAX, SL_I64, int64_t, uint64_t, "%d")
CHECK_TYPE(u16, SL_U16, uint16_t, uint16_t, 0, UINT16_MAX, SL_U64, uint64_t, uint64_t, "%d")
CHECK_TYPE(u32, SL_U32, uint32_t, uint32_t, 0, UINT32_MAX, SL_U64, uint64_t, uint64_t, "%" PRIu32)
CHECK_TYPE(u64, SL_U64, uint64_t, uint64_t, 0, UINT64_MAX, SL_U64, uint64_t, uint64_t, "%" PRIu64)

/* u16 plus f64 is f64 with the exact sums; an integer scalar the type cannot hold is
 * refused, as is a double that is not one of its values. */
static void mixed_and_refused(void) {
    uint16_t x[3] = {0, 1, UINT16_MAX};
    double y[3], got[3];
    for (int i = 0; i < 3; i++) y[i] = uniform(-1e6, 1e6);
    int64_t n = 3;
    sl_array h, hy, out;
    OK(sl_create(SL_U16, 1, &n, SL_COL_MAJOR, x, sizeof x, &h));
    hy = vector_f64(y, n);
    OK(sl_add(h, hy, &out));
    EXPECT(dtype(out) == SL_F64, "u16 + f64 is f64, got type %d", dtype(out));
    OK(sl_read(out, SL_COL_MAJOR, got, sizeof got));
    for (int i = 0; i < 3; i++) EXPECT(got[i] == x[i] + y[i], "u16 + f64 element %d: %.17g", i, got[i]);
    OK(sl_release(out));
    FAILS(sl_binary_scalar_i(SL_ADD, h, -1, &out), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
    FAILS(sl_binary_scalar_i(SL_ADD, h, 65536, &out), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
    FAILS(sl_constant(SL_I8, 1, &n, 128.0, &out), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
    OK(sl_release(h));
    OK(sl_release(hy));
}

int main(void) {
    seed_rng("int_types");
    check_i8();
    check_i16();
    check_u16();
    check_u32();
    check_u64();
    mixed_and_refused();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("int_types: ok\n");
    return 0;
}
