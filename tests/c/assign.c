/* Section assignment from C, as a Fortran-style code writes u(2:n-1, 2:n-1) = ...: a
 * Jacobi update of a matrix's interior, a row set by a projection, a reversed strided
 * section set to a scalar, a masked set and an indexed add, each against plain loops on
 * random inputs; a handle retained before the updates keeps the old values; bad calls
 * are refused and change nothing. */
#include <math.h>

#include "check.h"

enum { N = 37, STEPS = 50 };

static sl_array matrix(const float *v) {
    sl_array h;
    int64_t dims[2] = {N, N};
    OK(sl_create(SL_F32, 2, dims, SL_COL_MAJOR, v, sizeof(float) * N * N, &h));
    return h;
}

static void read_matrix(sl_array h, float *v) { OK(sl_read(h, SL_COL_MAJOR, v, sizeof(float) * N * N)); }

static sl_array sec(sl_array u, int64_t i, int64_t j) {
    int64_t start[2] = {i, j}, count[2] = {N - 2, N - 2}, stride[2] = {1, 1};
    sl_array s;
    OK(sl_section(u, start, count, stride, &s));
    return s;
}

int main(void) {
    seed_rng("assign");
    static float u0[N * N], want[N * N], next[N * N], got[N * N];
    for (int i = 0; i < N * N; i++) u0[i] = (float)uniform(-1, 1);
    memcpy(want, u0, sizeof want);
    sl_array u = matrix(u0), unew = matrix(u0), old;
    OK(sl_retain(u, &old));

    int64_t interior[2] = {1, 1}, count[2] = {N - 2, N - 2}, one[2] = {1, 1};
    for (int step = 0; step < STEPS; step++) {
        sl_array a = sec(u, 0, 1), b = sec(u, 2, 1), c = sec(u, 1, 0), d = sec(u, 1, 2), ab, cd, s, q;
        OK(sl_add(a, b, &ab));
        OK(sl_add(c, d, &cd));
        OK(sl_add(ab, cd, &s));
        OK(sl_mul_scalar(s, 0.25, &q));
        OK(sl_assign_section(unew, interior, count, one, q));
        sl_array tmp[] = {a, b, c, d, ab, cd, s, q};
        for (int k = 0; k < 8; k++) OK(sl_release(tmp[k]));
        sl_array t = u;
        u = unew;
        unew = t;
        memcpy(next, want, sizeof next);
        for (int j = 1; j < N - 1; j++)
            for (int i = 1; i < N - 1; i++)
                next[i + N * j] = ((want[i - 1 + N * j] + want[i + 1 + N * j]) +
                                   (want[i + N * (j - 1)] + want[i + N * (j + 1)])) * 0.25f;
        memcpy(want, next, sizeof want);
    }
    read_matrix(u, got);
    for (int i = 0; i < N * N; i++) EXPECT(fabsf(got[i] - want[i]) <= 1e-5f, "jacobi element %d: %g vs %g", i, got[i], want[i]);
    read_matrix(old, got);
    for (int i = 0; i < N * N; i++) EXPECT(got[i] == u0[i], "retained element %d changed", i);

    /* Row 3 (a projection: stride 0) from a vector; then every other element of column
     * 5, backwards from the last, set to a scalar. */
    float row[N];
    for (int j = 0; j < N; j++) row[j] = (float)uniform(-1, 1);
    double rowd[N];
    for (int j = 0; j < N; j++) rowd[j] = row[j];
    sl_array hrowd = vector_f64(rowd, N), hrow;
    OK(sl_cast(hrowd, SL_F32, &hrow));
    int64_t rstart[2] = {3, 0}, rcount[2] = {1, N}, rstride[2] = {0, 1};
    OK(sl_assign_section(u, rstart, rcount, rstride, hrow));
    for (int j = 0; j < N; j++) want[3 + N * j] = row[j];
    int64_t cstart[2] = {N - 1, 5}, ccount[2] = {(N + 1) / 2, 1}, cstride[2] = {-2, 1};
    OK(sl_assign_section_scalar(u, cstart, ccount, cstride, -7.5));
    for (int i = N - 1; i >= 0; i -= 2) want[i + N * 5] = -7.5f;
    read_matrix(u, got);
    for (int i = 0; i < N * N; i++) EXPECT(got[i] == want[i], "row/column element %d: %g vs %g", i, got[i], want[i]);

    /* where (u > 0.5) u = 0.5, then u[idx] += 1 at random places (some repeated). */
    sl_array mask;
    OK(sl_binary_scalar(SL_GT, u, 0.5, &mask));
    OK(sl_assign_where_scalar(u, mask, 0.5));
    for (int i = 0; i < N * N; i++)
        if (want[i] > 0.5f) want[i] = 0.5f;
    enum { M = 40 };
    int64_t ri[M], ci[M], m = M;
    float ones[M];
    for (int k = 0; k < M; k++) {
        ri[k] = rand() % N;
        ci[k] = rand() % 4; /* few columns: collisions */
        ones[k] = 1.0f;
        want[ri[k] + N * ci[k]] += 1.0f;
    }
    sl_array idx[2], hones;
    OK(sl_create(SL_I64, 1, &m, SL_COL_MAJOR, ri, sizeof ri, &idx[0]));
    OK(sl_create(SL_I64, 1, &m, SL_COL_MAJOR, ci, sizeof ci, &idx[1]));
    OK(sl_create(SL_F32, 1, &m, SL_COL_MAJOR, ones, sizeof ones, &hones));
    OK(sl_assign_indexed(u, idx, 2, hones, SL_SCATTER_ADD));
    read_matrix(u, got);
    for (int i = 0; i < N * N; i++) EXPECT(fabsf(got[i] - want[i]) <= 1e-6f, "masked/indexed element %d: %g vs %g", i, got[i], want[i]);

    /* Refused: out of bounds, values that do not broadcast, f64 into f32; nothing changes. */
    int64_t bad_start[2] = {N - 1, 0}, two[2] = {2, 2};
    FAILS(sl_assign_section_scalar(u, bad_start, two, one, 1.0), SL_ERR_INVALID_ARGUMENT, "leaves the array");
    FAILS(sl_assign_section(u, interior, two, one, hrow), SL_ERR_SHAPE_MISMATCH, "cannot broadcast");
    sl_array hd;
    OK(sl_cast(hrow, SL_F64, &hd));
    FAILS(sl_assign_section(u, rstart, rcount, rstride, hd), SL_ERR_DTYPE_MISMATCH, "lose information");
    read_matrix(u, got);
    for (int i = 0; i < N * N; i++) EXPECT(fabsf(got[i] - want[i]) <= 1e-6f, "after refused calls, element %d", i);

    sl_array all[] = {u, unew, old, hrowd, hrow, mask, idx[0], idx[1], hones, hd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
