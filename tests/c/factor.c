/* Factorizations and solves from C, checked against answers known in closed form:
 * - the 1-D Poisson problem -u'' = f on (0, 1), u(0) = u(1) = 0, discretised by the
 *   Laplacian tridiag(-1, 2, -1) / h^2 and solved by Cholesky: for u = x (1 - x) the
 *   centred difference is exact, so the solution is the samples of u;
 * - a batch of random 3x3 systems with chosen solutions (b = A x), solved by sl_solve
 *   and by sl_lu + sl_lu_solve (transposed too), and their determinants against the
 *   rule of Sarrus;
 * - a singular matrix (a zero column) in the batch fails with SL_ERR_SINGULAR where x is read, naming it. */
#include <math.h>

#include "check.h"

enum { N = 63, BATCH = 50 };

static sl_array matrix(int64_t rows, int64_t cols, int64_t batch, const double *v) {
    int64_t dims[3] = {rows, cols, batch};
    sl_array h;
    OK(sl_create(SL_F64, batch ? 3 : 2, dims, SL_COL_MAJOR, v, (size_t)(rows * cols * (batch ? batch : 1)) * sizeof(double), &h));
    return h;
}

int main(void) {
    seed_rng("factor");

    /* Poisson: A = tridiag(-1, 2, -1) / h^2, f = 2. */
    static double a[N * N], f[N], u[N];
    const double h = 1.0 / (N + 1);
    for (int i = 0; i < N; i++) {
        a[i + i * N] = 2.0 / (h * h);
        if (i > 0) a[i + (i - 1) * N] = -1.0 / (h * h);
        if (i + 1 < N) a[i + (i + 1) * N] = -1.0 / (h * h);
        f[i] = 2.0;
    }
    sl_array ha = matrix(N, N, 0, a), hf = vector_f64(f, N), hl, hu;
    OK(sl_cholesky(ha, &hl));
    OK(sl_cholesky_solve(hl, hf, &hu));
    OK(sl_read(hu, SL_COL_MAJOR, u, sizeof u));
    for (int i = 0; i < N; i++) {
        double x = (i + 1) * h;
        EXPECT(fabs(u[i] - x * (1 - x)) < 1e-11, "u(%g) = %.17g, want %.17g", x, u[i], x * (1 - x));
    }

    /* BATCH random 3x3 systems A x = b with known x. */
    static double m[9 * BATCH], x[3 * BATCH], b[3 * BATCH], got[3 * BATCH], det[BATCH];
    for (int k = 0; k < BATCH; k++) {
        for (int i = 0; i < 9; i++) m[9 * k + i] = uniform(-1, 1) + (i % 4 == 0 ? 3.0 : 0.0);
        for (int i = 0; i < 3; i++) x[3 * k + i] = uniform(-2, 2);
        for (int i = 0; i < 3; i++) {
            b[3 * k + i] = 0;
            for (int j = 0; j < 3; j++) b[3 * k + i] += m[9 * k + i + 3 * j] * x[3 * k + j];
        }
    }
    sl_array hm = matrix(3, 3, BATCH, m), hb = matrix(3, 1, BATCH, b), hx, hlu, hpiv, hxt, hd;
    OK(sl_solve(hm, hb, &hx));
    OK(sl_read(hx, SL_COL_MAJOR, got, sizeof got));
    for (int i = 0; i < 3 * BATCH; i++) EXPECT(fabs(got[i] - x[i]) < 1e-12, "x[%d] %g vs %g", i, got[i], x[i]);

    /* A^T y = b through the factors: check A^T y against b. */
    OK(sl_lu(hm, &hlu, &hpiv));
    OK(sl_lu_solve(hlu, hpiv, SL_TRANS, hb, &hxt));
    OK(sl_read(hxt, SL_COL_MAJOR, got, sizeof got));
    for (int k = 0; k < BATCH; k++)
        for (int i = 0; i < 3; i++) {
            double s = 0;
            for (int j = 0; j < 3; j++) s += m[9 * k + j + 3 * i] * got[3 * k + j];
            EXPECT(fabs(s - b[3 * k + i]) < 1e-12, "A^T y = b, system %d row %d", k, i);
        }

    OK(sl_det(hm, &hd));
    OK(sl_read(hd, SL_COL_MAJOR, det, sizeof det));
    for (int k = 0; k < BATCH; k++) {
        const double *q = m + 9 * k; /* column-major: q[i + 3 j] */
        double want = q[0] * (q[4] * q[8] - q[7] * q[5]) - q[3] * (q[1] * q[8] - q[7] * q[2]) +
                      q[6] * (q[1] * q[5] - q[4] * q[2]);
        EXPECT(fabs(det[k] - want) < 1e-12 * fabs(want), "det %d: %g vs %g", k, det[k], want);
    }

    /* System 7 made singular (a zero column): the solve fails where x is read. */
    for (int i = 0; i < 3; i++) m[9 * 7 + i + 3 * 1] = 0;
    sl_array hs = matrix(3, 3, BATCH, m), hxs;
    OK(sl_solve(hs, hb, &hxs));
    FAILS(sl_read(hxs, SL_COL_MAJOR, got, sizeof got), SL_ERR_SINGULAR, "matrix 7");
    FAILS(sl_cholesky(hs, NULL), SL_ERR_INVALID_ARGUMENT, "NULL");

    sl_array all[] = {ha, hf, hl, hu, hm, hb, hx, hlu, hpiv, hxt, hd, hs, hxs};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
