/* A random walk through the distributed API, the same on every rank (one seed): arrays of
 * random shapes (sizes 0 to 9, so empty blocks too), types and distributions, element-wise
 * operations, shifts, reductions, redistributions, releases, and bad calls; after each
 * call the model (the same calls on plain Sluice arrays, which every rank holds) says
 * what it must give: the same bits (or within the stated tolerance for float sums in the
 * rounding orders), or the status a bad call must fail with. Every rank makes the same
 * calls, so collective failures are checked everywhere.
 *     fuzz [calls]     (default 400; SLUICE_TEST_SEED replays a run) */
#include "mpi_check.h"

enum { POOL = 12 };

typedef struct {
    sl_mpi_array d; /* 0: empty slot */
    sl_array plain;
    int dist;
} Entry;

static Entry pool[POOL];
static int calls = 0;

static int pick(int live) {
    int start = rand() % POOL;
    for (int k = 0; k < POOL; k++) {
        int i = (start + k) % POOL;
        if ((pool[i].d != 0) == live) return i;
    }
    return -1;
}

static void put(sl_mpi_array d, sl_array plain, int dist) {
    int i = pick(0);
    if (i < 0) {
        i = rand() % POOL;
        MOK(sl_mpi_release(pool[i].d));
        OK(sl_release(pool[i].plain));
    }
    pool[i] = (Entry){d, plain, dist};
}

static int rank_of(sl_array a) {
    int32_t r;
    OK(sl_rank(a, &r));
    return r;
}

static void create(void) {
    int32_t rank = 1 + rand() % 3;
    int64_t dims[3];
    for (int d = 0; d < rank; d++) dims[d] = rand() % 10;
    sl_array x = rand() % 3 ? random_f64(rank, dims, -2, 2) : random_i32(rank, dims, -20, 20);
    int dist = rand() % (rank + 1) - 1;
    put(distribute(x, dist), x, dist);
}

/* The distributed result `got` (or its status) against the plain call's; a `rounded`
 * result within 1e-12 of the plain one relative to it and to `scale` (per element). */
static void compare(const char *what, sl_status st_plain, sl_array want, sl_status st_dist, sl_mpi_array got,
                    int dist, int rounded, const double *scale) {
    calls++;
    EXPECT(st_plain == st_dist, "call %d %s: status %d, the plain call's %d (%s)", calls, what, st_dist, st_plain,
           st_dist ? mpi_message() : sl_message());
    if (st_plain != SL_OK || st_dist != SL_OK) {
        if (st_dist == SL_OK) MOK(sl_mpi_release(got));
        if (st_plain == SL_OK) OK(sl_release(want));
        return;
    }
    if (rounded) {
        /* Close, not equal: not a pair the model can follow further. */
        close_to(what, got, want, 1e-12, scale);
        return;
    }
    sl_array keep;
    OK(sl_retain(want, &keep));
    {
        sl_mpi_array g2;
        MOK(sl_mpi_retain(got, &g2));
        same_bits(what, g2, want);
    }
    put(got, keep, dist);
}

static void unary(void) {
    int i = pick(1);
    if (i < 0) return;
    const sl_unary_op ops[] = {SL_NEG, SL_ABS, SL_EXP, SL_FLOOR, SL_SIGN, SL_SQRT};
    sl_unary_op op = ops[rand() % 6];
    sl_array want = 0;
    sl_mpi_array got = 0;
    sl_status sp = sl_unary(op, pool[i].plain, &want), sd = sl_mpi_unary(op, pool[i].d, &got);
    compare("unary", sp, want, sd, got, pool[i].dist, 0, NULL);
}

static void binary(void) {
    int i = pick(1), j = pick(1);
    if (i < 0 || j < 0) return;
    const sl_binary_op ops[] = {SL_ADD, SL_SUB, SL_MUL, SL_MAX, SL_LT};
    sl_binary_op op = ops[rand() % 5];
    sl_array want = 0;
    sl_mpi_array got = 0;
    sl_status sp = sl_binary(op, pool[i].plain, pool[j].plain, &want);
    sl_status sd = sl_mpi_binary(op, pool[i].d, pool[j].d, &got);
    /* Operands split along different dimensions, or a split dimension broadcast, are
     * refused where one process accepts them: the distributed status is then a shape
     * mismatch. */
    if (sp == SL_OK && sd == SL_ERR_SHAPE_MISMATCH &&
        (strstr(mpi_message(), "distributed differently") || strstr(mpi_message(), "stretch the distributed"))) {
        OK(sl_release(want));
        calls++;
        return;
    }
    int dist = pool[i].dist >= 0 ? pool[i].dist : pool[j].dist;
    compare("binary", sp, want, sd, got, dist, 0, NULL);
}

static void shift(void) {
    int i = pick(1);
    if (i < 0) return;
    int rank = rank_of(pool[i].plain), dim = rand() % (rank + 1); /* rank: out of range */
    int64_t offset = rand() % 13 - 6;
    sl_boundary b = rand() % 3;
    sl_array want = 0;
    sl_mpi_array got = 0;
    sl_status sp = sl_shift(pool[i].plain, dim, offset, b, 1.5, &want);
    sl_status sd = sl_mpi_shift(pool[i].d, dim, offset, b, 1.5, &got);
    compare("shift", sp, want, sd, got, pool[i].dist, 0, NULL);
}

static void reduce(void) {
    int i = pick(1);
    if (i < 0) return;
    const sl_reduce_op ops[] = {SL_SUM, SL_MAXVAL, SL_MINVAL, SL_ARGMAX, SL_COUNT, SL_ANY, SL_MEAN, SL_PROD};
    sl_reduce_op op = ops[rand() % 8];
    int rank = rank_of(pool[i].plain), dim = rand() % (rank + 1) - 1;
    sl_mpi_order order = rand() % 3;
    sl_array want = 0;
    sl_mpi_array got = 0;
    sl_status sp = sl_reduce(op, pool[i].plain, dim, &want);
    sl_status sd = sl_mpi_reduce(op, pool[i].d, dim, order, &got);
    sl_dtype t;
    OK(sl_get_dtype(pool[i].plain, &t));
    int over_split = pool[i].dist >= 0 && (dim == -1 || dim == pool[i].dist);
    int rounded = over_split && order != SL_MPI_ORDER_EXACT &&
                  (((op == SL_SUM || op == SL_PROD) && t == SL_F64) || op == SL_MEAN);
    /* Sums and means round by the sum of the magnitudes; products relative to themselves. */
    int64_t n = 0;
    double *scale = rounded && op != SL_PROD ? magnitude(pool[i].plain, dim, &n) : NULL;
    int64_t dims[SL_MAX_RANK];
    OK(sl_shape(pool[i].plain, dims, SL_MAX_RANK));
    char what[160];
    snprintf(what, sizeof what, "reduce %d of dtype %d [%lld %lld %lld] (rank %d, split along %d) along %d, order %d",
             op, t, (long long)dims[0], (long long)(rank > 1 ? dims[1] : -1), (long long)(rank > 2 ? dims[2] : -1),
             rank, pool[i].dist, dim, order);
    compare(what, sp, want, sd, got, over_split ? -1 : pool[i].dist, rounded, scale);
    free(scale);
}

static void redistribute(void) {
    int i = pick(1);
    if (i < 0) return;
    int rank = rank_of(pool[i].plain), to = rand() % (rank + 1) - 1;
    sl_mpi_array got;
    sl_array want;
    MOK(sl_mpi_redistribute(pool[i].d, to, &got));
    OK(sl_retain(pool[i].plain, &want));
    compare("redistribute", SL_OK, want, SL_OK, got, to, 0, NULL);
}

static void release_one(void) {
    int i = pick(1);
    if (i < 0) return;
    MOK(sl_mpi_release(pool[i].d));
    OK(sl_release(pool[i].plain));
    MFAILS(sl_mpi_release(pool[i].d), SL_ERR_INVALID_HANDLE, "not a live");
    pool[i].d = 0;
    calls++;
}

static void bad_call(void) {
    int i = pick(1);
    sl_mpi_array out;
    switch (rand() % 5) {
    case 0: MFAILS(sl_mpi_unary(SL_EXP, (sl_mpi_array)0x5d00000000000000ull, &out), SL_ERR_INVALID_HANDLE, ""); break;
    case 1:
        if (i >= 0) MFAILS(sl_mpi_reduce(SL_SUM, pool[i].d, -1, 3 + rand() % 5, &out), SL_ERR_INVALID_ARGUMENT, "");
        break;
    case 2:
        if (i >= 0) MFAILS(sl_mpi_redistribute(pool[i].d, 9, &out), SL_ERR_INVALID_ARGUMENT, "");
        break;
    case 3:
        if (i >= 0) MFAILS(sl_mpi_binary(SL_ADD, pool[i].d, pool[i].d, NULL), SL_ERR_INVALID_ARGUMENT, "NULL");
        break;
    default: {
        sl_array l;
        if (i >= 0) MFAILS(sl_mpi_gather(pool[i].d, ranks + rand() % 3, &l), SL_ERR_INVALID_ARGUMENT, "neither");
    }
    }
    calls++;
}

int main(int argc, char **argv) {
    start(&argc, &argv, "fuzz");
    int budget = argc > 1 ? atoi(argv[1]) : 400;
    for (int k = 0; k < 4; k++) create();
    while (calls < budget) {
        int r = rand() % 100;
        if (r < 15) create();
        else if (r < 30) unary();
        else if (r < 50) binary();
        else if (r < 65) shift();
        else if (r < 80) reduce();
        else if (r < 88) redistribute();
        else if (r < 94) release_one();
        else bad_call();
    }
    for (int i = 0; i < POOL; i++)
        if (pool[i].d) {
            MOK(sl_mpi_release(pool[i].d));
            OK(sl_release(pool[i].plain));
        }
    int64_t live;
    MOK(sl_mpi_live_handles(&live));
    EXPECT(live == 0, "%lld distributed handles left", (long long)live);
    if (me == 0) printf("fuzz: %d calls\n", calls);
    return finish("fuzz");
}
