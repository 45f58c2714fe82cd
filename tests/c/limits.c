/* Extreme but valid offsets and strides from C, checked against a plain reference on
 * fresh random data: shifts and rotations by offsets near INT64_MIN and INT64_MAX,
 * sections of single elements at any stride and with the longest negative stride, and a
 * rank-0 base raised to a constant exponent array (the result has the array's shape).
 * Runs on the CPU executor, and again on Vulkan (the limits_vulkan test). */
#include "check.h"

#define MAXN 9

/* The index a[i - offset] reads along an extent n under `boundary`, or -1 for the fill,
 * computed without overflow for any 64-bit offset. */
static int64_t source_index(int64_t i, int64_t offset, int64_t n, sl_boundary boundary) {
    if (boundary == SL_BOUNDARY_WRAP) {
        int64_t r = offset % n; /* |r| < n: no overflow below */
        if (r < 0) r += n;
        return ((i - r) % n + n) % n;
    }
    if (offset > i) return boundary == SL_BOUNDARY_CLAMP ? 0 : -1;      /* i - offset < 0 */
    if (offset <= i - n) return boundary == SL_BOUNDARY_CLAMP ? n - 1 : -1; /* i - offset >= n */
    return i - offset;
}

static void shifts(void) {
    int64_t dims[2] = {1 + rand() % MAXN, 1 + rand() % MAXN};
    int64_t total = dims[0] * dims[1];
    double v[MAXN * MAXN], got[MAXN * MAXN];
    for (int64_t i = 0; i < total; i++) v[i] = uniform(-1, 1);
    sl_array a;
    OK(sl_create(SL_F64, 2, dims, SL_COL_MAJOR, v, (size_t)total * sizeof(double), &a));
    int64_t k = rand() % 1000;
    for (int dim = 0; dim < 2; dim++) {
        int64_t n = dims[dim];
        int64_t offsets[] = {INT64_MIN, INT64_MIN + 1, INT64_MIN + k, INT64_MAX, INT64_MAX - k, n, -n, n + 1, -n - 1};
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
            for (sl_boundary b = SL_BOUNDARY_FILL; b <= SL_BOUNDARY_WRAP; b++) {
                double fill = (double)(rand() % 19 - 9);
                sl_array out;
                OK(sl_shift(a, dim, offsets[o], b, fill, &out));
                OK(sl_read(out, SL_COL_MAJOR, got, (size_t)total * sizeof(double)));
                for (int64_t j = 0; j < total; j++) {
                    int64_t c[2] = {j % dims[0], j / dims[0]};
                    c[dim] = source_index(c[dim], offsets[o], n, b);
                    double want = c[dim] < 0 ? fill : v[c[0] + dims[0] * c[1]];
                    EXPECT(got[j] == want, "shift of %lldx%lld along %d by %lld (boundary %d), element %lld: %g, want %g",
                           (long long)dims[0], (long long)dims[1], dim, (long long)offsets[o], b, (long long)j, got[j],
                           want);
                }
                OK(sl_release(out));
            }
            sl_array out;
            OK(sl_rotate(a, dim, offsets[o], &out));
            OK(sl_read(out, SL_COL_MAJOR, got, (size_t)total * sizeof(double)));
            for (int64_t j = 0; j < total; j++) {
                int64_t c[2] = {j % dims[0], j / dims[0]};
                c[dim] = source_index(c[dim], offsets[o], n, SL_BOUNDARY_WRAP);
                EXPECT(got[j] == v[c[0] + dims[0] * c[1]], "rotate along %d by %lld, element %lld", dim,
                       (long long)offsets[o], (long long)j);
            }
            OK(sl_release(out));
        }
    }
    OK(sl_release(a));
}

static void sections(void) {
    int64_t n = 2 + rand() % (MAXN - 1);
    double v[MAXN], got[MAXN];
    for (int64_t i = 0; i < n; i++) v[i] = uniform(-1, 1);
    sl_array a = vector_f64(v, n);
    int64_t start = rand() % n;
    /* one element: any nonzero stride, the extreme ones included */
    int64_t strides[] = {INT64_MIN, INT64_MAX, -INT64_MAX, (int64_t)1 << 62};
    for (size_t s = 0; s < sizeof strides / sizeof strides[0]; s++) {
        int64_t one = 1;
        sl_array out;
        OK(sl_section(a, &start, &one, &strides[s], &out));
        OK(sl_read(out, SL_COL_MAJOR, got, sizeof(double)));
        EXPECT(got[0] == v[start], "one element at %lld with stride %lld: %g", (long long)start, (long long)strides[s],
               got[0]);
        OK(sl_release(out));
    }
    /* the longest negative stride: last element, then the first */
    int64_t last = n - 1, two = 2, back = -(n - 1);
    sl_array out;
    OK(sl_section(a, &last, &two, &back, &out));
    OK(sl_read(out, SL_COL_MAJOR, got, 2 * sizeof(double)));
    EXPECT(got[0] == v[n - 1] && got[1] == v[0], "stride %lld from %lld: %g %g", (long long)back, (long long)last,
           got[0], got[1]);
    OK(sl_release(out));
    OK(sl_release(a));
}

static void rank0_base_keeps_the_exponent_shape(void) {
    double x = uniform(0.5, 4), exps[2] = {2, -1};
    sl_array base;
    OK(sl_create(SL_F64, 0, NULL, SL_COL_MAJOR, &x, sizeof x, &base));
    int64_t dims[2] = {1 + rand() % 5, 1 + rand() % 5};
    for (int e = 0; e < 2; e++) {
        sl_array c, out;
        OK(sl_constant(SL_F64, 2, dims, exps[e], &c));
        OK(sl_pow(base, c, &out));
        int32_t rank = -1;
        int64_t shape[2] = {0, 0};
        OK(sl_rank(out, &rank));
        EXPECT(rank == 2, "pow of a rank-0 base by a constant %g array has rank %d", exps[e], rank);
        if (rank == 2) {
            OK(sl_shape(out, shape, 2));
            EXPECT(shape[0] == dims[0] && shape[1] == dims[1], "shape %lldx%lld", (long long)shape[0],
                   (long long)shape[1]);
            double got[25];
            OK(sl_read(out, SL_COL_MAJOR, got, (size_t)(dims[0] * dims[1]) * sizeof(double)));
            double want = e == 0 ? x * x : 1.0 / x;
            for (int64_t j = 0; j < dims[0] * dims[1]; j++) EXPECT(got[j] == want, "pow(%g, %g): %g", x, exps[e], got[j]);
        }
        OK(sl_release(c));
        OK(sl_release(out));
    }
    OK(sl_release(base));
}

/* Pads of arrays with an empty dimension: every element is the fill, read from no source
 * element (the CPU executor once read the source's first element, past the end of its
 * empty storage, and threw it away: caught by the sanitizer builds); a boundary that
 * would read the source is refused. */
static void pads_of_empty_arrays(void) {
    int64_t dims[3] = {1 + rand() % MAXN, 1 + rand() % MAXN, 1 + rand() % MAXN};
    dims[rand() % 3] = 0;
    sl_array a;
    OK(sl_create(SL_F32, 3, dims, SL_COL_MAJOR, NULL, 0, &a));
    int64_t lo[3], hi[3], total = 1;
    for (int d = 0; d < 3; d++) {
        lo[d] = rand() % 4;
        hi[d] = (dims[d] + lo[d] == 0) + rand() % 4;
        total *= dims[d] + lo[d] + hi[d];
    }
    float fill = (float)(rand() % 19 - 9), got[(MAXN + 8) * (MAXN + 8) * (MAXN + 8)];
    sl_array out;
    OK(sl_pad(a, lo, hi, SL_BOUNDARY_FILL, fill, &out));
    OK(sl_read(out, SL_ROW_MAJOR, got, (size_t)total * sizeof(float)));
    for (int64_t j = 0; j < total; j++)
        EXPECT(got[j] == fill, "pad of %lldx%lldx%lld with fill %g, element %lld: %g", (long long)dims[0],
               (long long)dims[1], (long long)dims[2], fill, (long long)j, got[j]);
    OK(sl_release(out));
    for (sl_boundary b = SL_BOUNDARY_CLAMP; b <= SL_BOUNDARY_WRAP; b++) {
        out = 1;
        sl_status st = sl_pad(a, lo, hi, b, 0, &out);
        EXPECT(st == SL_ERR_INVALID_ARGUMENT && out == 0, "pad of an empty array with boundary %d: status %d", b, st);
    }
    OK(sl_release(a));
}

int main(void) {
    seed_rng("limits");
    for (int round = 0; round < 8; round++) {
        shifts();
        sections();
        pads_of_empty_arrays();
    }
    rank0_base_keeps_the_exponent_shape();
    OK(sl_shutdown());
    if (failures) {
        fprintf(stderr, "limits: %d failures\n", failures);
        return 1;
    }
    printf("limits: all checks passed\n");
    return 0;
}
