/* Gathers from C: a floored gather of a row-major matrix at f32 indices (out of range on
 * both sides) under the fill and wrap policies, linear interpolation of a table (interp1)
 * at random positions, and an out-of-range index under the error policy poisoning only
 * its result, each against a plain loop on random inputs. */
#include <math.h>

#include "check.h"

enum { R = 6, C = 5, M = 40, T = 17, P = 300 };

static long wrap(long i, long n) { return ((i % n) + n) % n; }

int main(void) {
    seed_rng("gather");

    /* A row-major R x C matrix, and f32 index pairs; floor(i) picks the element. */
    double a[R][C];
    float ri[M], ci[M];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) a[r][c] = uniform(-100, 100);
    for (int k = 0; k < M; k++) {
        ri[k] = (float)uniform(-R - 2, 2 * R);
        ci[k] = (float)uniform(-C - 2, 2 * C);
    }
    int64_t dims[2] = {R, C}, m = M;
    sl_array ha, hr, hc, fill, wrapped;
    OK(sl_create(SL_F64, 2, dims, SL_ROW_MAJOR, a, sizeof a, &ha));
    OK(sl_create(SL_F32, 1, &m, SL_COL_MAJOR, ri, sizeof ri, &hr));
    OK(sl_create(SL_F32, 1, &m, SL_COL_MAJOR, ci, sizeof ci, &hc));
    sl_array idx[2] = {hr, hc};
    OK(sl_gather_with(ha, idx, 2, SL_INDEX_FILL, -1.5, &fill));
    OK(sl_gather_with(ha, idx, 2, SL_INDEX_WRAP, 0, &wrapped));
    double got_fill[M], got_wrap[M];
    OK(sl_read(fill, SL_COL_MAJOR, got_fill, sizeof got_fill));
    OK(sl_read(wrapped, SL_COL_MAJOR, got_wrap, sizeof got_wrap));
    for (int k = 0; k < M; k++) {
        long r = (long)floorf(ri[k]), c = (long)floorf(ci[k]);
        double want = (r >= 0 && r < R && c >= 0 && c < C) ? a[r][c] : -1.5;
        EXPECT(got_fill[k] == want, "fill gather %d at (%g, %g): %g, want %g", k, ri[k], ci[k], got_fill[k], want);
        want = a[wrap(r, R)][wrap(c, C)];
        EXPECT(got_wrap[k] == want, "wrap gather %d at (%g, %g): %g, want %g", k, ri[k], ci[k], got_wrap[k], want);
    }

    /* interp1: an f32 table of T samples read at P f64 positions, edges clamped. */
    float table[T], got[P];
    double pos[P];
    for (int i = 0; i < T; i++) table[i] = (float)uniform(-1, 1);
    for (int i = 0; i < P; i++) pos[i] = uniform(-2, T + 1);
    int64_t t = T;
    sl_array ht, hp = vector_f64(pos, P), hi;
    OK(sl_create(SL_F32, 1, &t, SL_COL_MAJOR, table, sizeof table, &ht));
    OK(sl_interp1(ht, hp, 0, SL_INDEX_CLAMP, 0, &hi));
    OK(sl_read(hi, SL_COL_MAJOR, got, sizeof got));
    for (int i = 0; i < P; i++) {
        double x = pos[i], want;
        if (x <= 0) want = table[0];
        else if (x >= T - 1) want = table[T - 1];
        else {
            int k = (int)floor(x);
            double w = x - k;
            want = table[k] + w * (table[k + 1] - table[k]);
        }
        EXPECT(fabs(got[i] - want) <= 1e-6, "interp1 at %g: %g, want %g", x, got[i], want);
    }

    /* The error policy: the result is poisoned, naming the first bad index; the fill
     * gather above and the table are not lost. */
    sl_array bad;
    OK(sl_gather_with(ha, idx, 2, SL_INDEX_ERROR, 0, &bad));
    double one[M];
    FAILS(sl_read(bad, SL_COL_MAJOR, one, sizeof one), SL_ERR_POISONED, "is out of range for the source [6, 5]");
    OK(sl_read(fill, SL_COL_MAJOR, got_fill, sizeof got_fill));
    OK(sl_read(ht, SL_COL_MAJOR, got, sizeof table));
    OK(sl_release(bad));
    FAILS(sl_gather_with(ha, idx, 2, 7, 0, &bad), SL_ERR_INVALID_ARGUMENT, "sl_index_policy");

    sl_array all[] = {ha, hr, hc, fill, wrapped, ht, hp, hi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    if (failures) {
        fprintf(stderr, "gather: %d failures\n", failures);
        return 1;
    }
    puts("gather: ok");
    return 0;
}
