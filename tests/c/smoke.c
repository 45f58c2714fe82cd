/* The C API from C: element-wise ops, broadcasting, reductions, views, a gather, matmul,
 * scopes and layouts, each checked against a plain loop on random inputs. */
#include <math.h>

#include "check.h"

#define N 5000

static double close_to(double got, double want, double tol) {
    return fabs(got - want) <= tol * (1.0 + fabs(want));
}

static void elementwise_and_reduce(void) {
    static double x[N], y[N], out[N];
    for (int i = 0; i < N; i++) {
        x[i] = uniform(-3, 3);
        y[i] = uniform(0.1, 4);
    }
    OK(sl_scope_begin());
    sl_array hx = vector_f64(x, N), hy = vector_f64(y, N);
    /* z = exp(-x*x) * log(y) + 0.5*x, then its sum and max */
    sl_array xx, nxx, e, ly, p, hx2, z, s, mx;
    OK(sl_mul(hx, hx, &xx));
    OK(sl_neg(xx, &nxx));
    OK(sl_exp(nxx, &e));
    OK(sl_log(hy, &ly));
    OK(sl_mul(e, ly, &p));
    OK(sl_mul_scalar(hx, 0.5, &hx2));
    OK(sl_add(p, hx2, &z));
    OK(sl_sum(z, SL_ALL_DIMS, &s));
    OK(sl_maxval(z, SL_ALL_DIMS, &mx));
    OK(sl_read(z, SL_COL_MAJOR, out, sizeof out));
    double sum = 0, max = -INFINITY;
    for (int i = 0; i < N; i++) {
        double want = exp(-x[i] * x[i]) * log(y[i]) + 0.5 * x[i];
        EXPECT(close_to(out[i], want, 1e-12), "z[%d] = %.17g, want %.17g", i, out[i], want);
        sum += want;
        if (want > max) max = want;
    }
    double got_sum, got_max;
    OK(sl_read(s, SL_COL_MAJOR, &got_sum, sizeof got_sum));
    OK(sl_read(mx, SL_COL_MAJOR, &got_max, sizeof got_max));
    EXPECT(close_to(got_sum, sum, 1e-10), "sum %.17g vs %.17g", got_sum, sum);
    EXPECT(close_to(got_max, max, 1e-12), "max %.17g vs %.17g", got_max, max);
    OK(sl_scope_end());
}

static void matrix_ops(void) {
    enum { M = 37, K = 23, P = 11 };
    static double a[M * K], b[K * P], c[M * P], rowmajor[M * K], colsum[P];
    for (int i = 0; i < M * K; i++) a[i] = uniform(-1, 1);
    for (int i = 0; i < K * P; i++) b[i] = uniform(-1, 1);
    OK(sl_scope_begin());
    int64_t da[2] = {M, K}, db[2] = {K, P};
    sl_array ha, hb, hc, ht, cs, hrow;
    OK(sl_create(SL_F64, 2, da, SL_COL_MAJOR, a, sizeof a, &ha));
    OK(sl_create(SL_F64, 2, db, SL_COL_MAJOR, b, sizeof b, &hb));
    OK(sl_matmul(ha, hb, &hc));
    OK(sl_read(hc, SL_COL_MAJOR, c, sizeof c));
    for (int j = 0; j < P; j++) {
        for (int i = 0; i < M; i++) {
            double want = 0;
            for (int k = 0; k < K; k++) want += a[i + M * k] * b[k + K * j];
            EXPECT(close_to(c[i + M * j], want, 1e-12), "c[%d,%d]", i, j);
        }
    }
    /* column sums of c (reduce along dimension 0, kept with size 1) */
    OK(sl_sum(hc, 0, &cs));
    int64_t cs_dims[2];
    OK(sl_shape(cs, cs_dims, 2));
    EXPECT(cs_dims[0] == 1 && cs_dims[1] == P, "column sums shape %lld x %lld", (long long)cs_dims[0], (long long)cs_dims[1]);
    OK(sl_read(cs, SL_COL_MAJOR, colsum, sizeof colsum));
    for (int j = 0; j < P; j++) {
        double want = 0;
        for (int i = 0; i < M; i++) want += c[i + M * j];
        EXPECT(close_to(colsum[j], want, 1e-12), "colsum[%d]", j);
    }
    /* a transposed view read back row-major is a itself, column-major */
    OK(sl_transpose(ha, &ht));
    OK(sl_read(ht, SL_ROW_MAJOR, rowmajor, sizeof rowmajor));
    EXPECT(memcmp(rowmajor, a, sizeof a) == 0, "transpose read row-major");
    /* creating from row-major data */
    int64_t dt[2] = {K, M};
    OK(sl_create(SL_F64, 2, dt, SL_ROW_MAJOR, a, sizeof a, &hrow));
    sl_array eq, all;
    OK(sl_eq(hrow, ht, &eq));
    OK(sl_all(eq, SL_ALL_DIMS, &all));
    unsigned char same = 0;
    OK(sl_read(all, SL_COL_MAJOR, &same, 1));
    EXPECT(same == 1, "row-major create equals the transpose");
    OK(sl_scope_end());
}

static void views_and_stencil(void) {
    static double x[N], out[N];
    for (int i = 0; i < N; i++) x[i] = uniform(-1, 1);
    OK(sl_scope_begin());
    sl_array hx = vector_f64(x, N), left, right, sum, lap;
    /* a 3-point Laplacian with clamped edges, one fused kernel */
    OK(sl_shift(hx, 0, 1, SL_BOUNDARY_CLAMP, 0, &left));
    OK(sl_shift(hx, 0, -1, SL_BOUNDARY_CLAMP, 0, &right));
    OK(sl_add(left, right, &sum));
    OK(sl_binary_scalar(SL_SUB, sum, 0, &lap));
    sl_array twice, res;
    OK(sl_mul_scalar(hx, 2, &twice));
    OK(sl_sub(lap, twice, &res));
    OK(sl_read(res, SL_COL_MAJOR, out, sizeof out));
    for (int i = 0; i < N; i++) {
        double l = x[i == 0 ? 0 : i - 1], r = x[i == N - 1 ? N - 1 : i + 1];
        EXPECT(close_to(out[i], l + r - 2 * x[i], 1e-15), "laplacian[%d]", i);
    }
    /* reverse with a negative-stride section */
    int64_t start = N - 1, count = N, stride = -1;
    sl_array rev;
    OK(sl_section(hx, &start, &count, &stride, &rev));
    OK(sl_read(rev, SL_COL_MAJOR, out, sizeof out));
    for (int i = 0; i < N; i++) EXPECT(out[i] == x[N - 1 - i], "reverse[%d]", i);
    /* columns picked from x as a 100 x 50 matrix, x(:, idx), some indices out of range
     * (clamped): whole contiguous columns, copied at once */
    enum { R = 100, C = N / R, M = 30 };
    int64_t mat_dims[2] = {R, C}, row_dims[2] = {R, 1}, idx_dims[2] = {1, M};
    int32_t idx[M];
    for (int j = 0; j < M; j++) idx[j] = (int32_t)floor(uniform(-2, C + 2));
    sl_array mat, rows, cols, picked;
    OK(sl_reshape(hx, 2, mat_dims, &mat));
    OK(sl_iota(SL_I32, 2, row_dims, 0, &rows));
    OK(sl_create(SL_I32, 2, idx_dims, SL_COL_MAJOR, idx, sizeof idx, &cols));
    sl_array both[2] = {rows, cols};
    OK(sl_gather(mat, both, 2, &picked));
    OK(sl_read(picked, SL_COL_MAJOR, out, R * M * sizeof(double)));
    for (int j = 0; j < M; j++) {
        int c = idx[j] < 0 ? 0 : idx[j] >= C ? C - 1 : idx[j];
        for (int i = 0; i < R; i++) EXPECT(out[i + R * j] == x[i + R * c], "x[%d, idx[%d]]", i, j);
    }
    OK(sl_scope_end());
}

int main(void) {
    seed_rng("smoke");
    int major = -1, minor = -1, patch = -1;
    OK(sl_version(&major, &minor, &patch));
    EXPECT(major == SL_VERSION_MAJOR && minor == SL_VERSION_MINOR && patch == SL_VERSION_PATCH,
           "library %d.%d.%d vs header %d.%d.%d", major, minor, patch, SL_VERSION_MAJOR, SL_VERSION_MINOR, SL_VERSION_PATCH);
    /* Which executor runs the kernels, and why (the CPU one where there is no GPU). */
    sl_device_info dev;
    OK(sl_get_device_info(&dev));
    EXPECT(dev.backend == SL_BACKEND_CPU || dev.backend == SL_BACKEND_VULKAN, "backend %d", dev.backend);
    EXPECT(dev.name[0] != 0 && dev.reason[0] != 0, "device name and reason are filled in");
    EXPECT(dev.backend == SL_BACKEND_VULKAN || dev.device_type == SL_DEVICE_HOST, "CPU executor on the host");
    FAILS(sl_get_device_info(NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    int64_t live_before;
    OK(sl_live_handles(&live_before));
    elementwise_and_reduce();
    matrix_ops();
    views_and_stencil();
    int64_t live_after;
    OK(sl_live_handles(&live_after));
    EXPECT(live_after == live_before, "scopes released every handle (%lld vs %lld)", (long long)live_after, (long long)live_before);
    /* The counters: array buffers in the executor's memory (device memory only on Vulkan). */
    sl_stats st;
    OK(sl_get_stats(&st));
    EXPECT(st.live_handles == (uint64_t)live_after, "sl_stats live handles %llu", (unsigned long long)st.live_handles);
    uint64_t in_executor = dev.backend == SL_BACKEND_VULKAN ? st.device_allocations : st.allocations;
    EXPECT(in_executor > 0 && st.kernels > 0, "arrays allocated where the kernels ran");
    EXPECT(dev.backend == SL_BACKEND_VULKAN || st.device_allocations == 0, "no device memory on the CPU executor");
    EXPECT(st.device_peak_live_bytes >= st.device_live_bytes && st.peak_live_bytes >= st.live_bytes, "peaks");
    FAILS(sl_get_stats(NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    OK(sl_shutdown());
    if (failures) {
        fprintf(stderr, "smoke: %d failures\n", failures);
        return 1;
    }
    printf("smoke: all checks passed\n");
    return 0;
}
