/* Helpers shared by the MPI tests: checks that name the rank, fresh random inputs with a
 * seed chosen on rank 0 (printed; SLUICE_TEST_SEED replays one) and shared by every rank,
 * distributing a plain Sluice array by cutting each rank's block out of it (a view), and
 * comparing a distributed result, gathered, with the one-process result. */
#ifndef SLUICE_MPI_TEST_CHECK_H
#define SLUICE_MPI_TEST_CHECK_H

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sluice_mpi.h"

static int me = 0, ranks = 1, failures = 0;

static inline const char *sl_message(void) {
    sl_error_info info;
    sl_last_error(&info);
    return info.message ? info.message : "";
}

static inline const char *mpi_message(void) {
    sl_error_info info;
    sl_mpi_last_error(&info);
    return info.message ? info.message : "";
}

/* A Sluice call that must succeed. */
#define OK(call)                                                                                   \
    do {                                                                                           \
        sl_status st_ = (call);                                                                    \
        if (st_ != SL_OK) {                                                                        \
            fprintf(stderr, "[rank %d] %s:%d: %s failed (%d): %s\n", me, __FILE__, __LINE__, #call, \
                    st_, sl_message());                                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* An sl_mpi call that must succeed. */
#define MOK(call)                                                                                  \
    do {                                                                                           \
        sl_status st_ = (call);                                                                    \
        if (st_ != SL_OK) {                                                                        \
            fprintf(stderr, "[rank %d] %s:%d: %s failed (%d): %s\n", me, __FILE__, __LINE__, #call, \
                    st_, mpi_message());                                                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* An sl_mpi call that must fail with `want`, its message containing `needle`. */
#define MFAILS(call, want, needle)                                                                 \
    do {                                                                                           \
        sl_status st_ = (call);                                                                    \
        const char *m_ = mpi_message();                                                            \
        if (st_ != (want) || strstr(m_, (needle)) == NULL) {                                       \
            fprintf(stderr, "[rank %d] %s:%d: %s returned %d (wanted %d), message \"%s\"\n", me,   \
                    __FILE__, __LINE__, #call, st_, (want), m_);                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: expected %s: ", me, __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* MPI_Init, the library on MPI_COMM_WORLD, and the shared seed. */
static inline void start(int *argc, char ***argv, const char *test) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    unsigned seed = 0;
    if (me == 0) {
        const char *s = getenv("SLUICE_TEST_SEED");
        seed = s ? (unsigned)strtoul(s, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)clock();
        printf("%s on %d ranks: SLUICE_TEST_SEED=%u\n", test, ranks, seed);
        fflush(stdout);
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    srand(seed);
    MOK(sl_mpi_init(MPI_COMM_WORLD));
}

/* Failures on any rank fail every rank; ends the library and MPI. */
static inline int finish(const char *test) {
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MOK(sl_mpi_finalize());
    if (me == 0) printf("%s on %d ranks: %s (%d failures)\n", test, ranks, total ? "FAILED" : "passed", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

static inline double uniform(double lo, double hi) { return lo + (hi - lo) * ((double)rand() / (double)RAND_MAX); }

static inline int64_t numel(int rank, const int64_t *dims) {
    int64_t n = 1;
    for (int d = 0; d < rank; d++) n *= dims[d];
    return n;
}

/* A random f64 array (the same on every rank), values in [lo, hi). */
static inline sl_array random_f64(int rank, const int64_t *dims, double lo, double hi) {
    int64_t n = numel(rank, dims);
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = uniform(lo, hi);
    sl_array h;
    OK(sl_create(SL_F64, rank, dims, SL_COL_MAJOR, v, (size_t)n * sizeof *v, &h));
    free(v);
    return h;
}

/* A random i32 array, values in [lo, hi]. */
static inline sl_array random_i32(int rank, const int64_t *dims, int lo, int hi) {
    int64_t n = numel(rank, dims);
    int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = lo + rand() % (hi - lo + 1);
    sl_array h;
    OK(sl_create(SL_I32, rank, dims, SL_COL_MAJOR, v, (size_t)n * sizeof *v, &h));
    free(v);
    return h;
}

/* `full` (a plain array, the same on every rank) distributed along `dist`: each rank's
 * part is a section of it (a view), cut by the block rule. */
static inline sl_mpi_array distribute(sl_array full, int dist) {
    int32_t rank;
    int64_t dims[SL_MAX_RANK], start[SL_MAX_RANK] = {0}, stride[SL_MAX_RANK], count[SL_MAX_RANK];
    OK(sl_rank(full, &rank));
    OK(sl_shape(full, dims, SL_MAX_RANK));
    for (int d = 0; d < rank; d++) {
        count[d] = dims[d];
        stride[d] = 1;
    }
    if (dist >= 0) MOK(sl_mpi_block(dims[dist], ranks, me, &start[dist], &count[dist]));
    sl_array part;
    OK(sl_section(full, start, count, stride, &part));
    sl_mpi_array out;
    MOK(sl_mpi_from_local(part, rank, dims, dist, &out));
    OK(sl_release(part));
    return out;
}

/* The bytes of `a` (column-major), its type and shape. */
static inline unsigned char *bytes_of(sl_array a, sl_dtype *dtype, int32_t *rank, int64_t *dims, size_t *len) {
    static const size_t size[] = {4, 8, 4, 8, 1, 1, 8, 16};
    OK(sl_get_dtype(a, dtype));
    OK(sl_rank(a, rank));
    OK(sl_shape(a, dims, SL_MAX_RANK));
    *len = (size_t)numel(*rank, dims) * size[*dtype];
    unsigned char *b = malloc(*len ? *len : 1);
    OK(sl_read(a, SL_COL_MAJOR, b, *len));
    return b;
}

/* `got` (distributed; gathered here) has the type, shape and bits of `want` (a plain
 * one-process result), and every rank holds the same bits. Releases both. */
static inline void same_bits(const char *what, sl_mpi_array got, sl_array want) {
    sl_array g;
    MOK(sl_mpi_gather(got, SL_MPI_ALL_RANKS, &g));
    sl_dtype tg, tw;
    int32_t rg, rw;
    int64_t dg[SL_MAX_RANK], dw[SL_MAX_RANK];
    size_t lg, lw;
    unsigned char *bg = bytes_of(g, &tg, &rg, dg, &lg);
    unsigned char *bw = bytes_of(want, &tw, &rw, dw, &lw);
    EXPECT(tg == tw && rg == rw && memcmp(dg, dw, (size_t)rg * sizeof *dg) == 0, "%s: type %d rank %d vs %d %d", what,
           tg, rg, tw, rw);
    if (tg == tw && lg == lw) {
        size_t first = lg;
        for (size_t i = 0; i < lg && first == lg; i++)
            if (bg[i] != bw[i]) first = i;
        EXPECT(first == lg, "%s: bytes differ from the one-process result from byte %zu of %zu", what, first, lg);
    }
    free(bg);
    free(bw);
    OK(sl_release(g));
    OK(sl_release(want));
    MOK(sl_mpi_release(got));
}

/* The elements of `a` as f64 (a read of a cast). */
static inline double *as_f64(sl_array a, int64_t *n) {
    sl_array c;
    OK(sl_cast(a, SL_F64, &c));
    OK(sl_numel(c, n));
    double *v = malloc((size_t)(*n ? *n : 1) * sizeof *v);
    OK(sl_read(c, SL_COL_MAJOR, v, (size_t)*n * sizeof *v));
    OK(sl_release(c));
    return v;
}

/* Sum of |x| along `dim` (or all), the scale of a float sum's rounding. */
static inline double *magnitude(sl_array x, int dim, int64_t *n) {
    sl_array c, a, s;
    OK(sl_cast(x, SL_F64, &c)); /* bool and integer arrays too */
    OK(sl_abs(c, &a));
    OK(sl_sum(a, dim, &s));
    double *v = as_f64(s, n);
    OK(sl_release(c));
    OK(sl_release(a));
    OK(sl_release(s));
    return v;
}

/* Every rank holds the same bytes of replicated `a`'s local part. */
static inline void same_on_every_rank(const char *what, sl_mpi_array a) {
    sl_array l;
    MOK(sl_mpi_local(a, &l));
    sl_dtype t;
    int32_t r;
    int64_t d[SL_MAX_RANK];
    size_t len;
    unsigned char *b = bytes_of(l, &t, &r, d, &len);
    unsigned char *first = malloc(len ? len : 1);
    memcpy(first, b, len);
    MPI_Bcast(first, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
    EXPECT(memcmp(first, b, len) == 0, "%s: this rank's result differs from rank 0's", what);
    free(first);
    free(b);
    OK(sl_release(l));
}

/* `got` (gathered) within `tol * scale[i] + tol * |want[i]|` of `want`, element by element.
 * Releases got and want. */
static inline void close_to(const char *what, sl_mpi_array got, sl_array want, double tol, const double *scale) {
    sl_array g;
    MOK(sl_mpi_gather(got, SL_MPI_ALL_RANKS, &g));
    int64_t ng, nw;
    double *vg = as_f64(g, &ng), *vw = as_f64(want, &nw);
    EXPECT(ng == nw, "%s: %lld elements, want %lld", what, (long long)ng, (long long)nw);
    for (int64_t i = 0; i < ng && i < nw; i++) {
        double bound = tol * (fabs(vw[i]) + (scale ? scale[i] : 0));
        int same = vg[i] == vw[i] || (isnan(vg[i]) && isnan(vw[i])); /* infinities too */
        if (!same && !(fabs(vg[i] - vw[i]) <= bound)) {
            EXPECT(0, "%s: element %lld is %.17g, want %.17g (bound %.3g)", what, (long long)i, vg[i], vw[i], bound);
            break;
        }
    }
    free(vg);
    free(vw);
    OK(sl_release(g));
    OK(sl_release(want));
    MOK(sl_mpi_release(got));
}

#endif
