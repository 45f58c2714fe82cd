/* All-pairs shortest paths from C: a random weighted digraph's distance matrix squared in
 * the (min, +) semiring with sl_inner_product until paths of every length are covered,
 * against Floyd-Warshall; reachability by (or, and) squaring against a closure loop; the
 * bottleneck (max, min) of one step against a plain loop; an outer difference; refused
 * pairs. */
#include <math.h>
#include <stdbool.h>

#include "check.h"

enum { N = 61 };

static sl_array square(int64_t n, sl_dtype t, const void *data, size_t bytes) {
    int64_t dims[2] = {n, n};
    sl_array h;
    OK(sl_create(t, 2, dims, SL_COL_MAJOR, data, bytes, &h));
    return h;
}

int main(void) {
    seed_rng("shortest_paths");

    /* Integer weights, so every path length is exact in f32. */
    static float d[N * N], fw[N * N], got[N * N];
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            d[i + j * N] = i == j ? 0.0f : (uniform(0, 1) < 0.08 ? (float)(int)uniform(1, 50) : INFINITY);
    memcpy(fw, d, sizeof d);
    for (int p = 0; p < N; p++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) fw[i + j * N] = fminf(fw[i + j * N], fw[i + p * N] + fw[p + j * N]);

    sl_array h = square(N, SL_F32, d, sizeof d);
    for (int len = 1; len < N; len *= 2) {
        sl_array next;
        OK(sl_inner_product(SL_MINVAL, SL_ADD, h, h, &next));
        OK(sl_release(h));
        h = next;
    }
    OK(sl_read(h, SL_COL_MAJOR, got, sizeof got));
    for (int x = 0; x < N * N; x++) EXPECT(got[x] == fw[x], "distance (%d, %d): %g vs %g", x % N, x / N, got[x], fw[x]);
    OK(sl_release(h));

    /* Bottleneck step: max over p of min(d(i, p), d(p, j)) with inf as "no edge" taken
     * as 0 capacity. */
    static double cap[N * N], bott[N * N];
    for (int x = 0; x < N * N; x++) cap[x] = isinf(d[x]) ? 0.0 : d[x];
    sl_array hc = square(N, SL_F64, cap, sizeof cap), hb;
    OK(sl_inner_product(SL_MAXVAL, SL_MIN, hc, hc, &hb));
    OK(sl_read(hb, SL_COL_MAJOR, bott, sizeof bott));
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double want = -INFINITY;
            for (int p = 0; p < N; p++) want = fmax(want, fmin(cap[i + p * N], cap[p + j * N]));
            EXPECT(bott[i + j * N] == want, "bottleneck (%d, %d)", i, j);
        }
    OK(sl_release(hb));

    /* Reachability: (or, and) squaring of the adjacency with the diagonal. */
    static bool adj[N * N], reach[N * N], gotr[N * N];
    for (int x = 0; x < N * N; x++) adj[x] = reach[x] = !isinf(d[x]);
    for (bool grew = true; grew;) {
        grew = false;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                for (int p = 0; p < N && !reach[i + j * N]; p++)
                    if (reach[i + p * N] && adj[p + j * N]) reach[i + j * N] = grew = true;
    }
    sl_array hr = square(N, SL_BOOL, adj, sizeof adj);
    for (int len = 1; len < N; len *= 2) {
        sl_array next;
        OK(sl_inner_product(SL_ANY, SL_AND, hr, hr, &next));
        OK(sl_release(hr));
        hr = next;
    }
    OK(sl_read(hr, SL_COL_MAJOR, gotr, sizeof gotr));
    for (int x = 0; x < N * N; x++) EXPECT(gotr[x] == reach[x], "reachable (%d, %d)", x % N, x / N);

    /* outer difference of two vectors: o(i, j) = x(i) - y(j). */
    double x[5], y[3], o[15];
    for (int i = 0; i < 5; i++) x[i] = uniform(-1, 1);
    for (int i = 0; i < 3; i++) y[i] = uniform(-1, 1);
    sl_array hx = vector_f64(x, 5), hy = vector_f64(y, 3), ho;
    OK(sl_outer_product(SL_SUB, hx, hy, &ho));
    OK(sl_read(ho, SL_COL_MAJOR, o, sizeof o));
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 5; i++) EXPECT(o[i + j * 5] == x[i] - y[j], "outer difference (%d, %d)", i, j);

    sl_array bad = 7;
    FAILS(sl_inner_product(SL_ANY, SL_AND, hc, hc, &bad), SL_ERR_DTYPE_MISMATCH, "(any, and) is not defined for f64");
    EXPECT(bad == 0, "a failed call leaves the null handle");
    FAILS(sl_inner_product(SL_MINVAL, SL_ADD, hc, hx, &bad), SL_ERR_SHAPE_MISMATCH, "inner dimensions differ");
    FAILS(sl_inner_product(SL_MEAN, SL_ADD, hc, hc, &bad), SL_ERR_INVALID_ARGUMENT, "reduce is mean");

    sl_array all[] = {hc, hr, hx, hy, ho};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
