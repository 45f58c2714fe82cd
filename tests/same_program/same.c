/* The same small program in C, C++ (same.cpp) and Fortran (same.f90): random matrices
 * from a seed, a matmul, element-wise math and reductions. Each prints the bits of its
 * results; compare.sh checks that the three print the same. Usage: same_c <seed> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"

#define CHECK(call)                                                                      \
    do {                                                                                 \
        if ((call) != SL_OK) {                                                           \
            sl_error_info e_;                                                            \
            sl_last_error(&e_);                                                          \
            fprintf(stderr, "%s\n", e_.message);                                         \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

static long long bits(double x) {
    long long b;
    memcpy(&b, &x, sizeof b);
    return b;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    uint64_t seed = strtoull(argv[1], NULL, 10);
    sl_rng rng;
    sl_array a, b, c, ac, nac, e, s, sc, prod, col, total;
    int64_t da[2] = {200, 3}, db[2] = {3, 200};
    CHECK(sl_scope_begin());
    CHECK(sl_rng_create(SL_RNG_PHILOX, seed, &rng));
    CHECK(sl_random_uniform(rng, SL_F64, 2, da, &a));
    CHECK(sl_random_normal(rng, SL_F64, 2, db, &b));
    CHECK(sl_matmul(a, b, &c));                  /* 200 x 200 */
    CHECK(sl_abs(c, &ac));
    CHECK(sl_neg(ac, &nac));
    CHECK(sl_exp(nac, &e));
    CHECK(sl_sin(c, &s));
    CHECK(sl_mul(s, e, &prod));                  /* sin(c) * exp(-|c|) */
    CHECK(sl_sum(prod, 0, &col));                /* sums of each column: 1 x 200 */
    CHECK(sl_sum(col, SL_ALL_DIMS, &total));
    CHECK(sl_mul_scalar(c, 0.5, &sc));
    double cols[200], t, c00;
    CHECK(sl_read(col, SL_COL_MAJOR, cols, sizeof cols));
    CHECK(sl_read(total, SL_COL_MAJOR, &t, sizeof t));
    int64_t first[2] = {0, 0}, one[2] = {1, 1}, step[2] = {1, 1};
    sl_array corner;
    CHECK(sl_section(sc, first, one, step, &corner));
    CHECK(sl_read(corner, SL_COL_MAJOR, &c00, sizeof c00));
    printf("total %lld\ncolumn1 %lld\ncolumn100 %lld\ncolumn200 %lld\nhalf_c11 %lld\n", bits(t), bits(cols[0]),
           bits(cols[99]), bits(cols[199]), bits(c00));
    CHECK(sl_scope_end());
    CHECK(sl_rng_destroy(rng));
    return 0;
}
