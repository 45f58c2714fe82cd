/* Conjugate gradients on the 2-D Poisson problem -laplace(u) = f (n x n interior points,
 * zero boundary, the 5-point stencil applied with shifts), distributed along dimension 0:
 * each application of the matrix is a halo exchange, each iteration two dot products.
 * Every rank also runs the same solve on one process with plain Sluice arrays.
 * - With SL_MPI_ORDER_EXACT the distributed solve is the one-process solve: the same
 *   iterations and the same bits of x.
 * - With SL_MPI_ORDER_FAST (MPI_Allreduce) its dot products round differently: it takes
 *   about as many iterations (within 10%) and converges to the same residual
 *   ||b - A x|| / ||b|| (below the required 1e-8, computed independently on the host). */
#include "mpi_check.h"

enum { N = 40, MAX_ITERATIONS = 1000 };
static const double tolerance = 1e-10;

/* A u for plain arrays. */
static sl_array laplacian(sl_array u) {
    sl_array acc, s, t;
    OK(sl_binary_scalar(SL_MUL, u, 4, &acc));
    for (int i = 0; i < 4; i++) {
        OK(sl_shift(u, i / 2, i % 2 ? 1 : -1, SL_BOUNDARY_FILL, 0, &s));
        OK(sl_sub(acc, s, &t));
        OK(sl_release(s));
        OK(sl_release(acc));
        acc = t;
    }
    return acc;
}

/* A u for distributed arrays: shifts along dimension 0 exchange halos. */
static sl_mpi_array dlaplacian(sl_mpi_array u) {
    sl_mpi_array acc, s, t;
    MOK(sl_mpi_binary_scalar(SL_MUL, u, 4, &acc));
    for (int i = 0; i < 4; i++) {
        MOK(sl_mpi_shift(u, i / 2, i % 2 ? 1 : -1, SL_BOUNDARY_FILL, 0, &s));
        MOK(sl_mpi_binary(SL_SUB, acc, s, &t));
        MOK(sl_mpi_release(s));
        MOK(sl_mpi_release(acc));
        acc = t;
    }
    return acc;
}

static double scalar(sl_array a) {
    double v;
    OK(sl_read(a, SL_COL_MAJOR, &v, sizeof v));
    return v;
}

/* The one-process solve: x and the iteration count. */
static sl_array solve_plain(sl_array b, double b_norm, int *iterations) {
    const int64_t dims[2] = {N, N};
    sl_array x, r, p, rr;
    OK(sl_constant(SL_F64, 2, dims, 0, &x));
    OK(sl_retain(b, &r));
    OK(sl_retain(b, &p));
    OK(sl_dot(r, r, &rr));
    int k;
    for (k = 1; k <= MAX_ITERATIONS; k++) {
        sl_array q = laplacian(p), pq, alpha, ap, aq, x2, r2, rr2, beta, bp, p2;
        OK(sl_dot(p, q, &pq));
        OK(sl_div(rr, pq, &alpha));
        OK(sl_mul(alpha, p, &ap));
        OK(sl_add(x, ap, &x2));
        OK(sl_mul(alpha, q, &aq));
        OK(sl_sub(r, aq, &r2));
        OK(sl_dot(r2, r2, &rr2));
        OK(sl_div(rr2, rr, &beta));
        OK(sl_mul(beta, p, &bp));
        OK(sl_add(r2, bp, &p2));
        sl_array dead[] = {q, pq, alpha, ap, aq, beta, bp, x, r, p, rr};
        for (size_t i = 0; i < sizeof dead / sizeof *dead; i++) OK(sl_release(dead[i]));
        x = x2;
        r = r2;
        p = p2;
        rr = rr2;
        sl_array state[] = {x, r, p};
        OK(sl_eval(state, 3));
        if (sqrt(scalar(rr)) <= tolerance * b_norm) break;
    }
    *iterations = k;
    OK(sl_release(r));
    OK(sl_release(p));
    OK(sl_release(rr));
    return x;
}

/* The distributed solve; the result gathered. */
static sl_array solve_distributed(sl_array b, double b_norm, sl_mpi_order order, int *iterations) {
    sl_mpi_array db = distribute(b, 0), x, r, p, rr;
    MOK(sl_mpi_binary_scalar(SL_MUL, db, 0, &x));
    MOK(sl_mpi_retain(db, &r));
    MOK(sl_mpi_retain(db, &p));
    MOK(sl_mpi_dot(r, r, order, &rr));
    int k;
    for (k = 1; k <= MAX_ITERATIONS; k++) {
        sl_mpi_array q = dlaplacian(p), pq, alpha, ap, aq, x2, r2, rr2, beta, bp, p2;
        MOK(sl_mpi_dot(p, q, order, &pq));
        MOK(sl_mpi_binary(SL_DIV, rr, pq, &alpha));
        MOK(sl_mpi_binary(SL_MUL, alpha, p, &ap));
        MOK(sl_mpi_binary(SL_ADD, x, ap, &x2));
        MOK(sl_mpi_binary(SL_MUL, alpha, q, &aq));
        MOK(sl_mpi_binary(SL_SUB, r, aq, &r2));
        MOK(sl_mpi_dot(r2, r2, order, &rr2));
        MOK(sl_mpi_binary(SL_DIV, rr2, rr, &beta));
        MOK(sl_mpi_binary(SL_MUL, beta, p, &bp));
        MOK(sl_mpi_binary(SL_ADD, r2, bp, &p2));
        sl_mpi_array dead[] = {q, pq, alpha, ap, aq, beta, bp, x, r, p, rr};
        for (size_t i = 0; i < sizeof dead / sizeof *dead; i++) MOK(sl_mpi_release(dead[i]));
        x = x2;
        r = r2;
        p = p2;
        rr = rr2;
        /* The state now (its communication and local work), so no iteration recomputes
         * the earlier ones; then the residual, a read every rank makes. */
        sl_mpi_array state[] = {x, r, p};
        MOK(sl_mpi_eval(state, 3));
        sl_array local_rr;
        MOK(sl_mpi_local(rr, &local_rr));
        double now = scalar(local_rr);
        OK(sl_release(local_rr));
        if (sqrt(now) <= tolerance * b_norm) break;
    }
    *iterations = k;
    sl_array out;
    MOK(sl_mpi_gather(x, SL_MPI_ALL_RANKS, &out));
    sl_mpi_array dead[] = {db, x, r, p, rr};
    for (size_t i = 0; i < sizeof dead / sizeof *dead; i++) MOK(sl_mpi_release(dead[i]));
    return out;
}

/* ||b - A x|| / ||b|| with A applied by plain loops on the host. */
static double residual(const double *b, const double *x) {
    double num = 0, den = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double ax = 4 * x[i + N * j];
            if (i > 0) ax -= x[i - 1 + N * j];
            if (i < N - 1) ax -= x[i + 1 + N * j];
            if (j > 0) ax -= x[i + N * (j - 1)];
            if (j < N - 1) ax -= x[i + N * (j + 1)];
            num += (b[i + N * j] - ax) * (b[i + N * j] - ax);
            den += b[i + N * j] * b[i + N * j];
        }
    return sqrt(num / den);
}

int main(int argc, char **argv) {
    start(&argc, &argv, "cg");
    const int64_t dims[2] = {N, N};
    double h = 1.0 / (N + 1), hb[N * N], hx[N * N], hp[N * N];
    sl_array f = random_f64(2, dims, 0, 1), b;
    OK(sl_binary_scalar(SL_MUL, f, h * h, &b));
    OK(sl_read(b, SL_COL_MAJOR, hb, sizeof hb));
    double b_norm = 0;
    for (int i = 0; i < N * N; i++) b_norm += hb[i] * hb[i];
    b_norm = sqrt(b_norm);

    int k_plain, k_exact, k_fast;
    sl_array x_plain = solve_plain(b, b_norm, &k_plain);
    OK(sl_read(x_plain, SL_COL_MAJOR, hp, sizeof hp));
    double res_plain = residual(hb, hp);

    sl_array x_exact = solve_distributed(b, b_norm, SL_MPI_ORDER_EXACT, &k_exact);
    OK(sl_read(x_exact, SL_COL_MAJOR, hx, sizeof hx));
    EXPECT(k_exact == k_plain, "exact order: %d iterations, one process %d", k_exact, k_plain);
    EXPECT(memcmp(hx, hp, sizeof hx) == 0, "exact order: x differs from the one-process x");

    sl_array x_fast = solve_distributed(b, b_norm, SL_MPI_ORDER_FAST, &k_fast);
    OK(sl_read(x_fast, SL_COL_MAJOR, hx, sizeof hx));
    double res_fast = residual(hb, hx);
    EXPECT(abs(k_fast - k_plain) <= k_plain / 10 + 1, "fast order: %d iterations, one process %d", k_fast, k_plain);
    EXPECT(res_plain < 1e-8 && res_fast < 1e-8, "residuals: one process %.3g, distributed %.3g", res_plain,
           res_fast);
    if (me == 0)
        printf("cg: %dx%d grid on %d ranks: one process %d iterations (residual %.3g); distributed exact %d "
               "(same bits), fast %d (residual %.3g)\n",
               N, N, ranks, k_plain, res_plain, k_exact, k_fast, res_fast);
    sl_array dead[] = {f, b, x_plain, x_exact, x_fast};
    for (size_t i = 0; i < sizeof dead / sizeof *dead; i++) OK(sl_release(dead[i]));
    return finish("cg");
}
