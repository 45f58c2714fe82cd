/* Generators, shape ops and the new element-wise functions from C, against plain loops on
 * random inputs: a meshgrid of a linspace and an arange, the diagonal of a matrix and its
 * upper triangle, a per-element repeat (whose size depends on the counts), a flip, the
 * divisor-sign mod beside rem, shifts past the width, copysign, clamp and floor to an
 * integer type; bad arguments are refused with a message naming them. */
#include <math.h>
#include <stdint.h>

#include "check.h"

enum { NX = 7, NY = 5, M = 6, N = 4 };

int main(void) {
    seed_rng("shapes");

    /* x: linspace(0, 1, NX); y: arange(-2, 3) as i32; grid with xy indexing is NY x NX. */
    sl_array hx, hy, grid[2];
    OK(sl_linspace(SL_F64, 0.0, 1.0, NX, 1, &hx));
    OK(sl_arange_i(SL_I32, -2, -2 + NY, 1, &hy));
    sl_array vecs[2] = {hx, hy};
    OK(sl_meshgrid(vecs, 2, SL_INDEXING_XY, grid));
    double gx[NY * NX];
    int32_t gy[NY * NX];
    OK(sl_read(grid[0], SL_COL_MAJOR, gx, sizeof gx));
    OK(sl_read(grid[1], SL_COL_MAJOR, gy, sizeof gy));
    for (int i = 0; i < NY; i++)
        for (int j = 0; j < NX; j++) {
            EXPECT(fabs(gx[i + NY * j] - (double)j / (NX - 1)) <= 1e-15, "grid x (%d, %d)", i, j);
            EXPECT(gy[i + NY * j] == -2 + i, "grid y (%d, %d) = %d", i, j, gy[i + NY * j]);
        }

    /* diagonal(a, 1) and triu(a, -1) of a random M x N matrix. */
    double a[M * N], d[N], t[M * N];
    for (int i = 0; i < M * N; i++) a[i] = uniform(-10, 10);
    int64_t dims[2] = {M, N};
    sl_array ha, hd, ht;
    OK(sl_create(SL_F64, 2, dims, SL_COL_MAJOR, a, sizeof a, &ha));
    OK(sl_diagonal(ha, 1, &hd));
    int64_t len = 0;
    OK(sl_shape(hd, &len, 1));
    EXPECT(len == N - 1, "diagonal 1 of %dx%d has %lld elements", M, N, (long long)len);
    OK(sl_read(hd, SL_COL_MAJOR, d, (size_t)len * sizeof(double)));
    for (int i = 0; i < len; i++) EXPECT(d[i] == a[i + M * (i + 1)], "diag[%d]", i);
    OK(sl_triu(ha, -1, &ht));
    OK(sl_read(ht, SL_COL_MAJOR, t, sizeof t));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) EXPECT(t[i + M * j] == (j - i >= -1 ? a[i + M * j] : 0.0), "triu (%d, %d)", i, j);

    /* repeat with a count per element, then flipped. */
    int64_t counts[NX], total = 0;
    for (int i = 0; i < NX; i++) total += counts[i] = rand() % 4;
    int64_t nx = NX;
    sl_array hc, hr, hf;
    OK(sl_create(SL_I64, 1, &nx, SL_COL_MAJOR, counts, sizeof counts, &hc));
    OK(sl_repeat_counts(hx, hc, 0, &hr));
    int32_t dim0 = 0;
    OK(sl_flip(hr, &dim0, 1, &hf));
    double rep[4 * NX];
    OK(sl_read(hf, SL_COL_MAJOR, rep, (size_t)total * sizeof(double)));
    for (int i = 0, k = (int)total - 1; i < NX; i++)
        for (int c = 0; c < counts[i]; c++, k--)
            EXPECT(fabs(rep[k] - (double)i / (NX - 1)) <= 1e-15, "flipped repeat [%d]", k);

    /* mod and rem of integers with mixed signs; shifts with counts past the width. */
    int32_t p[NX], q[NX], mods[NX], rems[NX], shl[NX], shr[NX];
    for (int i = 0; i < NX; i++) {
        p[i] = rand() % 2001 - 1000;
        q[i] = (rand() % 9 + 1) * (rand() % 2 ? 1 : -1);
    }
    q[0] = 40; /* a shift count beyond 32 */
    sl_array hp, hq, hm, hrem, hl, hsr;
    OK(sl_create(SL_I32, 1, &nx, SL_COL_MAJOR, p, sizeof p, &hp));
    OK(sl_create(SL_I32, 1, &nx, SL_COL_MAJOR, q, sizeof q, &hq));
    OK(sl_mod(hp, hq, &hm));
    OK(sl_rem(hp, hq, &hrem));
    OK(sl_shl(hp, hq, &hl));
    OK(sl_shr(hp, hq, &hsr));
    OK(sl_read(hm, SL_COL_MAJOR, mods, sizeof mods));
    OK(sl_read(hrem, SL_COL_MAJOR, rems, sizeof rems));
    OK(sl_read(hl, SL_COL_MAJOR, shl, sizeof shl));
    OK(sl_read(hsr, SL_COL_MAJOR, shr, sizeof shr));
    for (int i = 0; i < NX; i++) {
        int32_t r = p[i] % q[i], m = (r != 0 && ((r < 0) != (q[i] < 0))) ? r + q[i] : r;
        EXPECT(rems[i] == r && mods[i] == m, "rem/mod %d, %d: %d %d", p[i], q[i], rems[i], mods[i]);
        int in = q[i] >= 0 && q[i] < 32;
        int32_t l = in ? (int32_t)((uint32_t)p[i] << q[i]) : 0;
        int32_t s = in ? p[i] >> q[i] : (p[i] < 0 ? -1 : 0);
        EXPECT(shl[i] == l && shr[i] == s, "shifts of %d by %d: %d %d", p[i], q[i], shl[i], shr[i]);
    }

    /* floor to i64 of clamp(copysign(x, y)), x and y random. */
    double x[NX], y[NX];
    int64_t fl[NX];
    for (int i = 0; i < NX; i++) x[i] = uniform(-20, 20), y[i] = uniform(-1, 1);
    sl_array h1, h2, hs, hcl, hfl;
    h1 = vector_f64(x, NX);
    h2 = vector_f64(y, NX);
    OK(sl_copysign(h1, h2, &hs));
    OK(sl_clamp_scalar(hs, -5.5, 7.25, &hcl));
    OK(sl_floor_to(hcl, SL_I64, &hfl));
    OK(sl_read(hfl, SL_COL_MAJOR, fl, sizeof fl));
    for (int i = 0; i < NX; i++) {
        double v = fmin(fmax(copysign(x[i], y[i]), -5.5), 7.25);
        EXPECT(fl[i] == (int64_t)floor(v), "floor of clamp of copysign [%d]: %lld", i, (long long)fl[i]);
    }

    sl_array bad = 7;
    FAILS(sl_diagonal(ha, 9, &bad), SL_ERR_INVALID_ARGUMENT, "k = 9");
    FAILS(sl_arange(SL_F32, 0, 1, 0, &bad), SL_ERR_INVALID_ARGUMENT, "step");
    FAILS(sl_floor_to(h1, SL_F32, &bad), SL_ERR_DTYPE_MISMATCH, "integer type");
    EXPECT(bad == 0, "a failed call leaves the null handle");

    sl_array all[] = {hx, hy, grid[0], grid[1], ha, hd, ht, hc, hr, hf, hp, hq, hm, hrem, hl, hsr, h1, h2, hs, hcl, hfl};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
