/* Least squares and QR from C, checked against known answers:
 * - a batch of cubic polynomial fits: samples y = c0 + c1 t + c2 t^2 + c3 t^3 at M random
 *   points t in [-1, 1] with noise of at most NOISE, fitted by sl_lstsq on the Vandermonde
 *   matrix; the coefficients must come back within TOL of those the samples were made
 *   from (the noise moves them by at most ||A^+||_2 sqrt(M) NOISE, about 1e-6 here);
 * - the reduced QR of one Vandermonde matrix: Q^T Q = I and Q R = A to 1e-13;
 * - an underdetermined system (2 equations, 3 unknowns) gets the least-norm solution,
 *   known in closed form: x = A^T (A A^T)^-1 b;
 * - a rank-deficient matrix (a repeated column) fails with SL_ERR_SINGULAR where x is read. */
#include <math.h>

#include "check.h"

enum { M = 200, DEG = 4, FITS = 5 };
#define NOISE 1e-6
#define TOL 1e-4

static sl_array matrix(int64_t rows, int64_t cols, int64_t batch, const double *v) {
    int64_t dims[3] = {rows, cols, batch};
    sl_array h;
    size_t bytes = (size_t)(rows * cols * (batch ? batch : 1)) * sizeof(double);
    OK(sl_create(SL_F64, batch ? 3 : 2, dims, SL_COL_MAJOR, v, bytes, &h));
    return h;
}

int main(void) {
    seed_rng("lstsq");

    /* FITS data sets, each its own points and cubic. */
    static double a[M * DEG * FITS], y[M * FITS], c[DEG * FITS], got[DEG * FITS];
    for (int k = 0; k < FITS; k++) {
        for (int j = 0; j < DEG; j++) c[k * DEG + j] = uniform(-2, 2);
        for (int i = 0; i < M; i++) {
            double t = uniform(-1, 1), p = 1, s = 0;
            for (int j = 0; j < DEG; j++, p *= t) {
                a[k * M * DEG + i + j * M] = p;
                s += c[k * DEG + j] * p;
            }
            y[k * M + i] = s + uniform(-NOISE, NOISE);
        }
    }
    sl_array ha = matrix(M, DEG, FITS, a), hy = matrix(M, 1, FITS, y), hc;
    OK(sl_lstsq(ha, hy, &hc));
    OK(sl_read(hc, SL_COL_MAJOR, got, sizeof got));
    for (int i = 0; i < DEG * FITS; i++)
        EXPECT(fabs(got[i] - c[i]) < TOL, "fit %d coefficient %d: %.9g, made from %.9g", i / DEG, i % DEG, got[i], c[i]);

    /* Reduced QR of the first Vandermonde matrix. */
    static double q[M * DEG], r[DEG * DEG];
    sl_array h0 = matrix(M, DEG, 0, a), hq, hr;
    OK(sl_qr(h0, SL_QR_REDUCED, &hq, &hr));
    OK(sl_read(hq, SL_COL_MAJOR, q, sizeof q));
    OK(sl_read(hr, SL_COL_MAJOR, r, sizeof r));
    for (int i = 0; i < DEG; i++)
        for (int j = 0; j < DEG; j++) {
            double s = 0;
            for (int p = 0; p < M; p++) s += q[p + i * M] * q[p + j * M];
            EXPECT(fabs(s - (i == j)) < 1e-13, "(Q^T Q)[%d,%d] = %.17g", i, j, s);
            if (i > j) EXPECT(r[i + j * DEG] == 0, "R[%d,%d] = %g below the diagonal", i, j, r[i + j * DEG]);
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < DEG; j++) {
            double s = 0;
            for (int p = 0; p <= j; p++) s += q[i + p * M] * r[p + j * DEG];
            EXPECT(fabs(s - a[i + j * M]) < 1e-13, "(Q R)[%d,%d] = %.17g, A has %.17g", i, j, s, a[i + j * M]);
        }

    /* x1 + x2 + x3 = 3, x1 - x3 = 0: A A^T = [[3, 0], [0, 2]], x = A^T (A A^T)^-1 b = (1, 1, 1). */
    const double w[6] = {1, 1, 1, 0, 1, -1}, bw[2] = {3, 0};
    double xw[3];
    sl_array hw = matrix(2, 3, 0, w), hbw = vector_f64(bw, 2), hxw;
    OK(sl_lstsq(hw, hbw, &hxw));
    OK(sl_read(hxw, SL_COL_MAJOR, xw, sizeof xw));
    for (int i = 0; i < 3; i++) EXPECT(fabs(xw[i] - 1) < 1e-14, "least-norm x[%d] = %.17g, want 1", i, xw[i]);

    /* Fit 3 gets a repeated column: rank-deficient, refused where x is read. */
    for (int i = 0; i < M; i++) a[3 * M * DEG + i + 2 * M] = a[3 * M * DEG + i + 1 * M];
    sl_array hd = matrix(M, DEG, FITS, a), hxd;
    OK(sl_lstsq(hd, hy, &hxd));
    FAILS(sl_read(hxd, SL_COL_MAJOR, got, sizeof got), SL_ERR_SINGULAR, "matrix 3 (R's diagonal entry 2");
    sl_array refused = 7;
    FAILS(sl_lstsq(h0, hbw, &refused), SL_ERR_SHAPE_MISMATCH, "[200, 4]");
    EXPECT(refused == 0, "a refused call leaves the null handle");

    sl_array all[] = {ha, hy, hc, h0, hq, hr, hw, hbw, hxw, hd, hxd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
