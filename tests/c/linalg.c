/* Matrix products from C: a complex least-squares normal equation built with sl_gemm
 * (A^H A and A^H b, A read in place through its conjugate transpose), a real
 * alpha A^T x + beta y, sl_outer and sl_vdot, each against plain loops on random inputs; bad
 * operation flags and shapes are refused. */
#include <complex.h>
#include <math.h>

#include "check.h"

enum { M = 37, N = 5 };

static sl_array upload(sl_dtype t, int64_t rows, int64_t cols, const void *data, size_t bytes) {
    int64_t dims[2] = {rows, cols};
    sl_array h;
    OK(sl_create(t, cols ? 2 : 1, dims, SL_COL_MAJOR, data, bytes, &h));
    return h;
}

int main(void) {
    seed_rng("linalg");

    /* A (M x N) complex, b (M): G = A^H A and r = A^H b. */
    double complex a[M * N], b[M], g[N * N], r[N];
    for (int i = 0; i < M * N; i++) a[i] = uniform(-1, 1) + I * uniform(-1, 1);
    for (int i = 0; i < M; i++) b[i] = uniform(-1, 1) + I * uniform(-1, 1);
    sl_array ha = upload(SL_C128, M, N, a, sizeof a), hb = upload(SL_C128, M, 0, b, sizeof b);
    sl_array hg, hr;
    OK(sl_gemm(SL_CONJ_TRANS, ha, SL_NO_TRANS, ha, 1.0, 0, 0.0, &hg));
    OK(sl_gemm(SL_CONJ_TRANS, ha, SL_NO_TRANS, hb, 1.0, 0, 0.0, &hr));
    OK(sl_read(hg, SL_COL_MAJOR, g, sizeof g));
    OK(sl_read(hr, SL_COL_MAJOR, r, sizeof r));
    for (int j = 0; j < N; j++) {
        double complex want_r = 0;
        for (int p = 0; p < M; p++) want_r += conj(a[p + j * M]) * b[p];
        EXPECT(cabs(r[j] - want_r) < 1e-12 * M, "A^H b [%d]", j);
        for (int i = 0; i < N; i++) {
            double complex want = 0;
            for (int p = 0; p < M; p++) want += conj(a[p + i * M]) * a[p + j * M];
            EXPECT(cabs(g[i + j * N] - want) < 1e-12 * M, "A^H A (%d, %d)", i, j);
        }
    }

    /* y2 = 2 A^T x - 0.5 y (real, A read through its transpose). */
    double ar[M * N], x[M], y[N], y2[N];
    for (int i = 0; i < M * N; i++) ar[i] = uniform(-1, 1);
    for (int i = 0; i < M; i++) x[i] = uniform(-1, 1);
    for (int i = 0; i < N; i++) y[i] = uniform(-1, 1);
    sl_array har = upload(SL_F64, M, N, ar, sizeof ar), hx = vector_f64(x, M), hy = vector_f64(y, N), hy2;
    OK(sl_gemm(SL_TRANS, har, SL_NO_TRANS, hx, 2.0, hy, -0.5, &hy2));
    OK(sl_read(hy2, SL_COL_MAJOR, y2, sizeof y2));
    for (int j = 0; j < N; j++) {
        double want = -0.5 * y[j];
        for (int p = 0; p < M; p++) want += 2.0 * ar[p + j * M] * x[p];
        EXPECT(fabs(y2[j] - want) < 1e-13 * M, "2 A^T x - 0.5 y [%d]: %g vs %g", j, y2[j], want);
    }

    /* outer(x, y): M x N. */
    static double o[M * N];
    sl_array ho;
    OK(sl_outer(hx, hy, &ho));
    OK(sl_read(ho, SL_COL_MAJOR, o, sizeof o));
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) EXPECT(o[i + j * M] == x[i] * y[j], "outer (%d, %d)", i, j);
    OK(sl_release(ho));

    /* vdot conjugates its first operand. */
    sl_array hv;
    double complex v;
    OK(sl_vdot(hb, hb, &hv));
    OK(sl_read(hv, SL_COL_MAJOR, &v, sizeof v));
    double norm2 = 0;
    for (int p = 0; p < M; p++) norm2 += creal(b[p]) * creal(b[p]) + cimag(b[p]) * cimag(b[p]);
    EXPECT(fabs(creal(v) - norm2) < 1e-12 * M && fabs(cimag(v)) < 1e-12 * M, "vdot(b, b) = |b|^2");

    sl_array bad = 7;
    FAILS(sl_gemm(5, ha, SL_NO_TRANS, ha, 1.0, 0, 0.0, &bad), SL_ERR_INVALID_ARGUMENT, "op_a is 5");
    EXPECT(bad == 0, "a failed call leaves the null handle");
    FAILS(sl_gemm(SL_NO_TRANS, ha, SL_NO_TRANS, ha, 1.0, 0, 0.0, &bad), SL_ERR_SHAPE_MISMATCH, "inner dimensions");
    FAILS(sl_gemm(SL_TRANS, har, SL_NO_TRANS, hx, 1.0, hx, 1.0, &bad), SL_ERR_SHAPE_MISMATCH, "c is [37]");

    sl_array all[] = {ha, hb, hg, hr, har, hx, hy, hy2, hv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
