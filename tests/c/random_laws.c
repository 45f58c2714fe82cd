/* The random laws from C: Poisson, gamma, integer ranges, Bernoulli and uniform ranges
 * from a Threefry generator (values in their range, sample means within five standard
 * errors, a restored state repeats a draw bit for bit), Sobol' points (the published first
 * points; one point per interval of each coordinate); bad parameters refused with a
 * message, the runtime still usable. */
#include <math.h>

#include "check.h"

#define N 65536

static double *read_f64(sl_array a, int64_t n) {
    sl_array d;
    OK(sl_cast(a, SL_F64, &d));
    double *v = malloc((size_t)n * sizeof(double));
    OK(sl_read(d, SL_COL_MAJOR, v, (size_t)n * sizeof(double)));
    OK(sl_release(d));
    return v;
}

static double mean_of(const double *v, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += v[i];
    return s / (double)n;
}

int main(void) {
    unsigned seed = seed_rng("random_laws");
    OK(sl_init(NULL));
    sl_rng g;
    OK(sl_rng_create(SL_RNG_THREEFRY, seed, &g));
    int64_t n = N;

    /* Poisson(lambda) for a mean taken by inversion and one taken by PTRS. */
    double lambdas[2] = {uniform(0.5, 9.5), uniform(20.0, 5000.0)};
    for (int k = 0; k < 2; k++) {
        sl_array p;
        OK(sl_random_poisson(g, lambdas[k], SL_I32, 1, &n, &p));
        double *v = read_f64(p, n);
        int whole = 1;
        for (int64_t i = 0; i < n; i++) whole &= v[i] >= 0 && v[i] == floor(v[i]);
        EXPECT(whole, "Poisson values are whole and not negative");
        double m = mean_of(v, n);
        EXPECT(fabs(m - lambdas[k]) <= 5 * sqrt(lambdas[k] / n), "Poisson(%g) mean %g", lambdas[k], m);
        free(v);
        OK(sl_release(p));
    }

    /* Gamma(k, theta): mean k theta, standard deviation sqrt(k) theta. */
    double shape = uniform(0.2, 6.0), theta = uniform(0.5, 3.0);
    sl_array ga;
    OK(sl_random_gamma(g, shape, theta, SL_F32, 1, &n, &ga));
    double *v = read_f64(ga, n);
    double m = mean_of(v, n);
    EXPECT(fabs(m - shape * theta) <= 5 * sqrt(shape / n) * theta, "gamma(%g, %g) mean %g", shape, theta, m);
    free(v);

    /* Integers on [lo, hi) and Bernoulli(p). */
    int64_t lo = (int64_t)uniform(-1000, 0), hi = lo + 1 + (int64_t)uniform(1, 100000);
    sl_array in;
    OK(sl_random_integers(g, lo, hi, SL_I64, 1, &n, &in));
    v = read_f64(in, n);
    int inside = 1;
    for (int64_t i = 0; i < n; i++) inside &= v[i] >= (double)lo && v[i] < (double)hi;
    EXPECT(inside, "integers in [%lld, %lld)", (long long)lo, (long long)hi);
    double span = (double)(hi - lo);
    m = mean_of(v, n);
    EXPECT(fabs(m - (lo + hi - 1) / 2.0) <= 5 * span / sqrt(12.0 * n), "integer mean %g", m);
    free(v);
    /* Bytes over the whole u8 range, read as they are stored: each value appears. */
    sl_array bytes;
    OK(sl_random_integers(g, 0, 256, SL_U8, 1, &n, &bytes));
    uint8_t *u = malloc(N);
    OK(sl_read(bytes, SL_COL_MAJOR, u, N));
    int seen[256] = {0}, all_seen = 1;
    for (int64_t i = 0; i < n; i++) seen[u[i]] = 1;
    for (int k = 0; k < 256; k++) all_seen &= seen[k];
    EXPECT(all_seen, "every u8 value in %lld draws", (long long)n);
    free(u);
    sl_array refused;
    FAILS(sl_random_integers(g, 0, 257, SL_U8, 1, &n, &refused), SL_ERR_INVALID_ARGUMENT, "not a range of u8");
    double p = uniform(0.05, 0.95);
    sl_array b;
    OK(sl_random_bernoulli(g, p, 1, &n, &b));
    v = read_f64(b, n);
    m = mean_of(v, n);
    EXPECT(fabs(m - p) <= 5 * sqrt(p * (1 - p) / n), "Bernoulli(%g) frequency %g", p, m);
    free(v);

    /* A restored state repeats a draw bit for bit. */
    uint64_t s0, d0;
    OK(sl_rng_get_state(g, &s0, &d0));
    sl_array r1, r2;
    OK(sl_random_uniform_range(g, -3.0, 5.0, SL_F64, 1, &n, &r1));
    OK(sl_rng_set_state(g, s0, d0));
    OK(sl_random_uniform_range(g, -3.0, 5.0, SL_F64, 1, &n, &r2));
    double *a1 = read_f64(r1, n), *a2 = read_f64(r2, n);
    EXPECT(memcmp(a1, a2, N * sizeof(double)) == 0, "the same state, the same values");
    inside = 1;
    for (int64_t i = 0; i < n; i++) inside &= a1[i] >= -3.0 && a1[i] < 5.0;
    EXPECT(inside, "uniform values in [-3, 5)");
    free(a1);
    free(a2);

    /* Sobol': the first points of two dimensions (Joe and Kuo's, as SciPy prints them). */
    const double first[8][2] = {{0, 0},         {0.5, 0.5},     {0.75, 0.25},   {0.25, 0.75},
                                {0.375, 0.375}, {0.875, 0.875}, {0.625, 0.125}, {0.125, 0.625}};
    sl_array so;
    OK(sl_random_sobol(2, 0, 8, SL_SOBOL_PLAIN, 0, SL_F64, &so));
    double pts[16];
    OK(sl_read(so, SL_COL_MAJOR, pts, sizeof pts));
    for (int i = 0; i < 8; i++)
        EXPECT(pts[i] == first[i][0] && pts[8 + i] == first[i][1], "Sobol' point %d: %g %g", i, pts[i], pts[8 + i]);
    /* The same through the library: the points less the published ones, as one column. */
    double published[16];
    for (int i = 0; i < 8; i++) published[i] = first[i][0], published[8 + i] = first[i][1];
    sl_array want = vector_f64(published, 16), flat, diff, worst;
    int64_t sixteen = 16;
    OK(sl_reshape(so, 1, &sixteen, &flat));
    OK(sl_sub(flat, want, &diff));
    OK(sl_release(want));
    OK(sl_abs(diff, &want));
    OK(sl_reduce(SL_MAXVAL, want, SL_ALL_DIMS, &worst));
    double w;
    OK(sl_read(worst, SL_COL_MAJOR, &w, sizeof w));
    EXPECT(w == 0, "Sobol' points differ from the published ones by %g", w);
    sl_array done[] = {want, flat, diff, worst};
    for (size_t i = 0; i < 4; i++) OK(sl_release(done[i]));
    /* Owen-scrambled: 1024 points, one in each 1/1024 of each coordinate. */
    sl_array ow;
    OK(sl_random_sobol(3, 0, 1024, SL_SOBOL_OWEN, seed, SL_F64, &ow));
    double *q = read_f64(ow, 3 * 1024);
    for (int j = 0; j < 3; j++) {
        char seen[1024] = {0};
        int once = 1;
        for (int i = 0; i < 1024; i++) {
            int cell = (int)(q[i + 1024 * j] * 1024);
            once &= cell >= 0 && cell < 1024 && !seen[cell];
            if (cell >= 0 && cell < 1024) seen[cell] = 1;
        }
        EXPECT(once, "scrambled coordinate %d: one point per interval", j);
    }
    free(q);

    /* Bad parameters: refused with a message, and the runtime goes on. */
    sl_array out;
    FAILS(sl_random_poisson(g, -1.0, SL_I32, 1, &n, &out), SL_ERR_INVALID_ARGUMENT, "lambda");
    FAILS(sl_random_gamma(g, 0.0, 1.0, SL_F32, 1, &n, &out), SL_ERR_INVALID_ARGUMENT, "shape");
    FAILS(sl_random_integers(g, 5, 5, SL_I32, 1, &n, &out), SL_ERR_INVALID_ARGUMENT, "above lo");
    FAILS(sl_random_bernoulli(g, 1.5, 1, &n, &out), SL_ERR_INVALID_ARGUMENT, "[0, 1]");
    FAILS(sl_random_uniform_range(g, 1.0, 1.0, SL_F64, 1, &n, &out), SL_ERR_INVALID_ARGUMENT, "above lo");
    FAILS(sl_random_exponential(g, 1.0, SL_I32, 1, &n, &out), SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    FAILS(sl_random_sobol(0, 0, 8, SL_SOBOL_PLAIN, 0, SL_F64, &out), SL_ERR_INVALID_ARGUMENT, "dimensions");
    FAILS(sl_random_sobol(2, 4294967295LL, 2, SL_SOBOL_PLAIN, 0, SL_F64, &out), SL_ERR_INVALID_ARGUMENT, "range");
    FAILS(sl_random_beta(g, 1.0, 1.0, SL_F32, 1, &n, NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
    FAILS(sl_random_chisquare(ga, 2.0, SL_F32, 1, &n, &out), SL_ERR_INVALID_HANDLE, "random number generator");
    double x[1];
    OK(sl_read(so, SL_COL_MAJOR, pts, sizeof pts));
    sl_array ex;
    OK(sl_random_exponential(g, 2.0, SL_F64, 0, NULL, &ex));
    OK(sl_read(ex, SL_COL_MAJOR, x, sizeof x));
    EXPECT(x[0] >= 0, "an exponential value %g", x[0]);

    sl_array all[] = {ga, in, bytes, b, r1, r2, so, ow, ex};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(sl_release(all[i]));
    OK(sl_rng_destroy(g));
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
