/* Every distributed operation against the same operation on one process with plain Sluice
 * arrays (the whole global arrays, which every rank also holds here): exactly for
 * element-wise operations, shifts, redistributions, integer reductions, minima, maxima,
 * argmin/argmax and SL_MPI_ORDER_EXACT; float sums, products, means, norms and dot
 * products in the other orders within 1e-12 relative to the sum of the magnitudes (f64)
 * or 1e-6 (f32), and the same bits on every rank. Run on 1, 2 and 4 ranks (uneven
 * blocks: 13 rows over 2 and 4 ranks; 3 rows over 4 ranks leave one rank empty). */
#include "mpi_check.h"

static void elementwise(int dist) {
    const int64_t dims[2] = {13, 5}, row[2] = {1, 5}, col[2] = {13, 1};
    sl_array x = random_f64(2, dims, -2, 2), y = random_f64(2, dims, 0.5, 3);
    sl_array r = random_f64(2, row, -1, 1), c = random_f64(2, col, -1, 1);
    sl_array k = random_i32(2, dims, -50, 50);
    sl_mpi_array dx = distribute(x, dist), dy = distribute(y, dist), dk = distribute(k, dist);
    sl_mpi_array dr = distribute(r, -1), dc = distribute(c, -1), dcd = distribute(c, dist == 0 ? 0 : -1);
    sl_mpi_array got;
    sl_array want;
    const sl_binary_op ops[] = {SL_ADD, SL_SUB, SL_MUL, SL_DIV, SL_POW, SL_MAX, SL_LT, SL_ATAN2};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        MOK(sl_mpi_binary(ops[i], dx, dy, &got));
        OK(sl_binary(ops[i], x, y, &want));
        same_bits("binary", got, want);
    }
    /* Broadcasting: a replicated row, a replicated column (cut to each block), a column
     * distributed alike (along 0 only), and scalars on both sides. */
    MOK(sl_mpi_binary(SL_MUL, dx, dr, &got));
    OK(sl_mul(x, r, &want));
    same_bits("times a replicated row", got, want);
    MOK(sl_mpi_binary(SL_SUB, dc, dx, &got));
    OK(sl_sub(c, x, &want));
    same_bits("a replicated column minus", got, want);
    MOK(sl_mpi_binary(SL_ADD, dx, dcd, &got));
    OK(sl_add(x, c, &want));
    same_bits("plus a column distributed alike", got, want);
    MOK(sl_mpi_binary_scalar(SL_MUL, dx, 0.37, &got));
    OK(sl_binary_scalar(SL_MUL, x, 0.37, &want));
    same_bits("times a scalar", got, want);
    MOK(sl_mpi_scalar_binary(SL_DIV, 3.5, dy, &got));
    OK(sl_scalar_binary(SL_DIV, 3.5, y, &want));
    same_bits("a scalar over", got, want);
    const sl_unary_op unary[] = {SL_EXP, SL_SIN, SL_ABS, SL_NEG, SL_FLOOR};
    for (size_t i = 0; i < sizeof unary / sizeof *unary; i++) {
        MOK(sl_mpi_unary(unary[i], dx, &got));
        OK(sl_unary(unary[i], x, &want));
        same_bits("unary", got, want);
    }
    MOK(sl_mpi_cast(dx, SL_F32, &got));
    OK(sl_cast(x, SL_F32, &want));
    same_bits("cast", got, want);
    /* Integers, and a chain of operations. */
    MOK(sl_mpi_binary(SL_REM, dk, dk, &got));
    OK(sl_binary(SL_REM, k, k, &want));
    same_bits("integer remainder", got, want);
    sl_mpi_array t1, t2;
    sl_array u1, u2;
    MOK(sl_mpi_binary(SL_MUL, dx, dx, &t1));
    MOK(sl_mpi_binary(SL_ADD, t1, dy, &t2));
    MOK(sl_mpi_unary(SL_SQRT, t2, &got));
    OK(sl_mul(x, x, &u1));
    OK(sl_add(u1, y, &u2));
    OK(sl_sqrt(u2, &want));
    same_bits("a chain", got, want);
    MOK(sl_mpi_release(t1));
    MOK(sl_mpi_release(t2));
    OK(sl_release(u1));
    OK(sl_release(u2));
    /* A distributed and a replicated operand of the same full shape: the replicated one is
     * cut to each rank's block. */
    sl_mpi_array ry = distribute(y, -1);
    MOK(sl_mpi_binary(SL_HYPOT, dx, ry, &got));
    OK(sl_binary(SL_HYPOT, x, y, &want));
    same_bits("with a replicated operand of the full shape", got, want);
    MOK(sl_mpi_release(ry));
    sl_mpi_array handles[] = {dx, dy, dk, dr, dc, dcd};
    for (size_t i = 0; i < sizeof handles / sizeof *handles; i++) MOK(sl_mpi_release(handles[i]));
    sl_array plain[] = {x, y, r, c, k};
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) OK(sl_release(plain[i]));
}

static void shifts(int64_t rows, int dist) {
    const int64_t dims[2] = {rows, 6};
    sl_array x = random_f64(2, dims, -1, 1);
    sl_mpi_array dx = distribute(x, dist);
    const int64_t offsets[] = {-9, -2, -1, 0, 1, 3, 14};
    const sl_boundary boundaries[] = {SL_BOUNDARY_FILL, SL_BOUNDARY_CLAMP, SL_BOUNDARY_WRAP};
    sl_mpi_array got;
    sl_array want;
    for (int dim = 0; dim < 2; dim++)
        for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
            for (int b = 0; b < 3; b++) {
                MOK(sl_mpi_shift(dx, dim, offsets[o], boundaries[b], 2.5, &got));
                OK(sl_shift(x, dim, offsets[o], boundaries[b], 2.5, &want));
                char what[96];
                snprintf(what, sizeof what, "shift of %lld rows along %d by %lld, boundary %d", (long long)rows, dim,
                         (long long)offsets[o], b);
                same_bits(what, got, want);
            }
    MOK(sl_mpi_rotate(dx, dist, -5, &got));
    OK(sl_rotate(x, dist, -5, &want));
    same_bits("rotate", got, want);
    /* A 5-point stencil: four shifts and arithmetic (two exchanges in one wave). */
    sl_mpi_array s[4], acc, four;
    sl_array p[4], pacc, pfour;
    for (int i = 0; i < 4; i++) {
        MOK(sl_mpi_shift(dx, i / 2, i % 2 ? 1 : -1, SL_BOUNDARY_FILL, 0, &s[i]));
        OK(sl_shift(x, i / 2, i % 2 ? 1 : -1, SL_BOUNDARY_FILL, 0, &p[i]));
    }
    MOK(sl_mpi_binary(SL_ADD, s[0], s[1], &acc));
    OK(sl_add(p[0], p[1], &pacc));
    for (int i = 2; i < 4; i++) {
        sl_mpi_array next;
        sl_array pnext;
        MOK(sl_mpi_binary(SL_ADD, acc, s[i], &next));
        OK(sl_add(pacc, p[i], &pnext));
        MOK(sl_mpi_release(acc));
        OK(sl_release(pacc));
        acc = next;
        pacc = pnext;
    }
    MOK(sl_mpi_binary_scalar(SL_MUL, dx, 4, &four));
    OK(sl_binary_scalar(SL_MUL, x, 4, &pfour));
    MOK(sl_mpi_binary(SL_SUB, acc, four, &got));
    OK(sl_sub(pacc, pfour, &want));
    same_bits("5-point stencil", got, want);
    /* A shift of a shift: two waves. */
    sl_mpi_array twice;
    MOK(sl_mpi_shift(s[0], 0, 2, SL_BOUNDARY_WRAP, 0, &twice));
    OK(sl_shift(p[0], 0, 2, SL_BOUNDARY_WRAP, 0, &want));
    same_bits("shift of a shift", twice, want);
    for (int i = 0; i < 4; i++) {
        MOK(sl_mpi_release(s[i]));
        OK(sl_release(p[i]));
    }
    MOK(sl_mpi_release(acc));
    MOK(sl_mpi_release(four));
    OK(sl_release(pacc));
    OK(sl_release(pfour));
    MOK(sl_mpi_release(dx));
    OK(sl_release(x));
}

/* A shift by one along the distributed dimension sends one slice to one neighbour per
 * rank that has one: the halo, nothing more. */
static void halo_volume(void) {
    const int64_t dims[2] = {40, 7};
    sl_array x = random_f64(2, dims, -1, 1);
    sl_mpi_array dx = distribute(x, 0), got;
    sl_mpi_stats before, after;
    MOK(sl_mpi_get_stats(&before));
    MOK(sl_mpi_shift(dx, 0, 1, SL_BOUNDARY_FILL, 0, &got));
    sl_array l;
    MOK(sl_mpi_local(got, &l));
    MOK(sl_mpi_get_stats(&after));
    long long mine[2] = {(long long)(after.messages - before.messages), (long long)(after.bytes - before.bytes)};
    long long all[2];
    MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(all[0] == ranks - 1 && all[1] == (long long)(ranks - 1) * 7 * 8,
           "a shift by 1 on %d ranks sent %lld messages of %lld bytes in all (want %d of %d)", ranks, all[0], all[1],
           ranks - 1, (ranks - 1) * 56);
    OK(sl_release(l));
    OK(sl_release(x));
    MOK(sl_mpi_release(dx));
    MOK(sl_mpi_release(got));
}

static void reductions(sl_dtype dtype, int dist) {
    const int64_t dims[2] = {13, 4};
    sl_array x = dtype == SL_I32 ? random_i32(2, dims, -9, 9) : random_f64(2, dims, 0.5, 1.5);
    if (dtype == SL_F32) {
        sl_array c;
        OK(sl_cast(x, SL_F32, &c));
        OK(sl_release(x));
        x = c;
    }
    int is_float = dtype != SL_I32;
    sl_mpi_array dx = distribute(x, dist);
    const sl_reduce_op ops[] = {SL_SUM,    SL_PROD, SL_MINVAL, SL_MAXVAL, SL_MEAN,   SL_ANY,   SL_ALL,   SL_COUNT,
                                SL_ARGMIN, SL_ARGMAX, SL_NANSUM, SL_NANMIN, SL_NANMAX, SL_NORM1, SL_NORM2, SL_NORMINF};
    const int dims_to_reduce[] = {SL_ALL_DIMS, dist, 1 - dist};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        for (int j = 0; j < 3; j++)
            for (sl_mpi_order order = SL_MPI_ORDER_FAST; order <= SL_MPI_ORDER_EXACT; order++) {
                int dim = dims_to_reduce[j];
                char what[96];
                snprintf(what, sizeof what, "reduction %d of dtype %d along %d (split along %d), order %d", ops[i],
                         dtype, dim, dist, order);
                sl_mpi_array got;
                sl_array want;
                MOK(sl_mpi_reduce(ops[i], dx, dim, order, &got));
                OK(sl_reduce(ops[i], x, dim, &want));
                if (dim == dist || dim == SL_ALL_DIMS) same_on_every_rank(what, got);
                /* Float sums, products and norms round in another order; an integer norm2
                 * is a float computation too. */
                int rounded = order != SL_MPI_ORDER_EXACT && dim != 1 - dist &&
                              ((is_float && (ops[i] == SL_SUM || ops[i] == SL_PROD || ops[i] == SL_MEAN ||
                                             ops[i] == SL_NANSUM || ops[i] == SL_NORM1)) ||
                               ops[i] == SL_NORM2);
                if (rounded) {
                    int64_t n;
                    double *scale = magnitude(x, dim, &n);
                    if (ops[i] == SL_MEAN)
                        for (int64_t e = 0; e < n; e++) scale[e] /= dim == SL_ALL_DIMS ? 52 : dims[dim];
                    close_to(what, got, want, dtype == SL_F32 ? 1e-6 : 1e-12, ops[i] == SL_PROD ? NULL : scale);
                    free(scale);
                } else {
                    same_bits(what, got, want);
                }
            }
    MOK(sl_mpi_release(dx));
    OK(sl_release(x));
}

/* Minima, maxima and their positions with NaNs in some columns: the first NaN wins, as on
 * one process. */
static void extremes_with_nan(int dist) {
    const int64_t dims[2] = {11, 5};
    double v[55];
    for (int i = 0; i < 55; i++) v[i] = uniform(-1, 1);
    v[3 + 11 * 1] = NAN;
    v[9 + 11 * 1] = NAN;
    v[10 + 11 * 4] = NAN;
    sl_array x;
    OK(sl_create(SL_F64, 2, dims, SL_COL_MAJOR, v, sizeof v, &x));
    sl_mpi_array dx = distribute(x, dist);
    const sl_reduce_op ops[] = {SL_MINVAL, SL_MAXVAL, SL_ARGMIN, SL_ARGMAX, SL_NANMIN, SL_NANMAX};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        for (int dim = -1; dim < 2; dim++) {
            sl_mpi_array got;
            sl_array want;
            MOK(sl_mpi_reduce(ops[i], dx, dim, SL_MPI_ORDER_FAST, &got));
            OK(sl_reduce(ops[i], x, dim, &want));
            same_bits("extreme with NaN", got, want);
        }
    MOK(sl_mpi_release(dx));
    OK(sl_release(x));
}

static void dots(sl_dtype dtype) {
    const int64_t n = 1001;
    sl_array x = random_f64(1, &n, -1, 1), y = random_f64(1, &n, -1, 1);
    if (dtype == SL_F32) {
        sl_array a, b;
        OK(sl_cast(x, SL_F32, &a));
        OK(sl_cast(y, SL_F32, &b));
        OK(sl_release(x));
        OK(sl_release(y));
        x = a;
        y = b;
    }
    sl_mpi_array dx = distribute(x, 0), dy = distribute(y, 0), ry = distribute(y, -1);
    for (sl_mpi_order order = SL_MPI_ORDER_FAST; order <= SL_MPI_ORDER_EXACT; order++) {
        sl_mpi_array got;
        sl_array want;
        MOK(sl_mpi_dot(dx, dy, order, &got));
        OK(sl_dot(x, y, &want));
        same_on_every_rank("dot", got);
        if (order == SL_MPI_ORDER_EXACT) {
            same_bits("dot, exact order", got, want);
        } else {
            sl_array xy;
            OK(sl_mul(x, y, &xy));
            int64_t one;
            double *scale = magnitude(xy, SL_ALL_DIMS, &one);
            close_to("dot", got, want, dtype == SL_F32 ? 1e-6 : 1e-12, scale);
            free(scale);
            OK(sl_release(xy));
        }
    }
    sl_mpi_array got;
    sl_array want;
    MOK(sl_mpi_dot(dx, ry, SL_MPI_ORDER_EXACT, &got));
    OK(sl_dot(x, y, &want));
    same_bits("dot with a replicated operand", got, want);
    MOK(sl_mpi_release(dx));
    MOK(sl_mpi_release(dy));
    MOK(sl_mpi_release(ry));
    OK(sl_release(x));
    OK(sl_release(y));
}

/* Row-block products: matrix x vector and matrix x matrix, the right side distributed or
 * replicated; and a left side not split by rows (gathered first). */
static void products(void) {
    const int64_t ad[2] = {13, 7}, bd[2] = {7, 4}, vd = 7;
    sl_array a = random_f64(2, ad, -1, 1), b = random_f64(2, bd, -1, 1), v = random_f64(1, &vd, -1, 1);
    sl_array want;
    OK(sl_matmul(a, v, &want));
    sl_array wantb;
    OK(sl_matmul(a, b, &wantb));
    int64_t n;
    double *scale = NULL;
    {
        sl_array aa, av, s;
        OK(sl_abs(a, &aa));
        OK(sl_abs(v, &av));
        OK(sl_matmul(aa, av, &s));
        scale = as_f64(s, &n);
        OK(sl_release(aa));
        OK(sl_release(av));
        OK(sl_release(s));
    }
    sl_mpi_array da = distribute(a, 0), dv = distribute(v, 0), rv = distribute(v, -1);
    sl_mpi_array db0 = distribute(b, 0), db1 = distribute(b, 1), da1 = distribute(a, 1), got;
    MOK(sl_mpi_matmul(da, dv, &got));
    sl_array w;
    OK(sl_retain(want, &w));
    close_to("matrix x distributed vector", got, w, 1e-13, scale);
    MOK(sl_mpi_matmul(da, rv, &got));
    OK(sl_retain(want, &w));
    close_to("matrix x replicated vector", got, w, 1e-13, scale);
    MOK(sl_mpi_matmul(da1, dv, &got));
    close_to("matrix split by columns x vector", got, want, 1e-13, scale);
    free(scale);
    scale = NULL;
    MOK(sl_mpi_matmul(da, db0, &got));
    OK(sl_retain(wantb, &w));
    close_to("matrix x matrix split by rows", got, w, 1e-13, NULL);
    MOK(sl_mpi_matmul(da, db1, &got));
    close_to("matrix x matrix split by columns", got, wantb, 1e-13, NULL);
    sl_mpi_array hs[] = {da, dv, rv, db0, db1, da1};
    for (size_t i = 0; i < sizeof hs / sizeof *hs; i++) MOK(sl_mpi_release(hs[i]));
    OK(sl_release(a));
    OK(sl_release(b));
    OK(sl_release(v));
}

static void redistributions(void) {
    const int64_t dims[3] = {5, 9, 3};
    sl_array x = random_f64(3, dims, -1, 1);
    const int moves[][2] = {{0, 1}, {1, 0}, {0, 2}, {2, 1}, {0, -1}, {-1, 1}, {1, 1}};
    for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
        sl_mpi_array from = distribute(x, moves[i][0]), got;
        MOK(sl_mpi_redistribute(from, moves[i][1], &got));
        sl_mpi_info info;
        MOK(sl_mpi_get_info(got, &info));
        EXPECT(info.dist == moves[i][1], "redistributed to %d, reports %d", moves[i][1], info.dist);
        sl_array want;
        OK(sl_retain(x, &want));
        same_bits("redistribution", got, want);
        MOK(sl_mpi_release(from));
    }
    /* A transpose made local: redistribute, then transpose each part. */
    const int64_t md[2] = {6, 11};
    sl_array m = random_f64(2, md, -1, 1);
    sl_mpi_array dm = distribute(m, 0), cols;
    MOK(sl_mpi_redistribute(dm, 1, &cols));
    sl_array part, t, tm;
    MOK(sl_mpi_local(cols, &part));
    OK(sl_transpose(part, &t));
    OK(sl_transpose(m, &tm));
    sl_mpi_array dt;
    const int64_t tdims[2] = {11, 6};
    MOK(sl_mpi_from_local(t, 2, tdims, 0, &dt));
    same_bits("transpose via redistribution", dt, tm);
    OK(sl_release(part));
    OK(sl_release(t));
    MOK(sl_mpi_release(dm));
    MOK(sl_mpi_release(cols));
    OK(sl_release(m));
    OK(sl_release(x));
}

static void scatter_gather(void) {
    const int64_t dims[2] = {7, 10};
    sl_array x = random_f64(2, dims, -1, 1);
    int root = ranks - 1;
    sl_mpi_array d;
    MOK(sl_mpi_scatter(me == root ? x : 0, root, 1, &d));
    sl_mpi_info info;
    MOK(sl_mpi_get_info(d, &info));
    int64_t start, count;
    MOK(sl_mpi_block(10, ranks, me, &start, &count));
    EXPECT(info.dist == 1 && info.local_start == start && info.local_count == count && info.rank == 2 &&
               info.dims[0] == 7 && info.dims[1] == 10,
           "scattered: dist %d block %lld+%lld", info.dist, (long long)info.local_start, (long long)info.local_count);
    sl_array to_root;
    MOK(sl_mpi_gather(d, 0, &to_root));
    EXPECT((me == 0) == (to_root != 0), "only the root gets the gathered array");
    if (to_root) OK(sl_release(to_root));
    sl_array want;
    OK(sl_retain(x, &want));
    same_bits("scatter then gather", d, want);
    /* Replicated: broadcast. */
    MOK(sl_mpi_scatter(me == root ? x : 0, root, SL_MPI_REPLICATED, &d));
    OK(sl_retain(x, &want));
    same_bits("scatter replicated", d, want);
    OK(sl_release(x));
}

/* Arrays with no elements anywhere, and more ranks than elements (empty blocks). */
static void empty_and_small(void) {
    const int64_t none[2] = {0, 4}, few[2] = {3, 4};
    sl_array x0 = random_f64(2, none, -1, 1), x3 = random_f64(2, few, -1, 1);
    sl_mpi_array d0 = distribute(x0, 0), d3 = distribute(x3, 0), got;
    sl_array want;
    MOK(sl_mpi_unary(SL_EXP, d0, &got));
    OK(sl_exp(x0, &want));
    same_bits("exp of nothing", got, want);
    for (int order = 0; order < 3; order++) {
        MOK(sl_mpi_reduce(SL_SUM, d0, 0, order, &got));
        OK(sl_sum(x0, 0, &want));
        same_bits("sum of nothing", got, want);
        MOK(sl_mpi_reduce(SL_ARGMAX, d0, SL_ALL_DIMS, order, &got));
        OK(sl_argmax(x0, SL_ALL_DIMS, &want));
        same_bits("argmax of nothing", got, want);
        MOK(sl_mpi_reduce(SL_MINVAL, d3, 0, order, &got));
        OK(sl_minval(x3, 0, &want));
        same_bits("min over 3 rows", got, want);
        MOK(sl_mpi_reduce(SL_ARGMIN, d3, SL_ALL_DIMS, order, &got));
        OK(sl_argmin(x3, SL_ALL_DIMS, &want));
        same_bits("argmin over 3 rows", got, want);
    }
    MOK(sl_mpi_shift(d3, 0, 2, SL_BOUNDARY_CLAMP, 0, &got));
    OK(sl_shift(x3, 0, 2, SL_BOUNDARY_CLAMP, 0, &want));
    same_bits("clamped shift of 3 rows", got, want);
    MOK(sl_mpi_redistribute(d3, 1, &got));
    OK(sl_retain(x3, &want));
    same_bits("redistribution of 3 rows", got, want);
    MOK(sl_mpi_release(d0));
    MOK(sl_mpi_release(d3));
    OK(sl_release(x0));
    OK(sl_release(x3));
}

/* Row-major application data, and a part that is a transposed view. */
static void layouts(void) {
    const int64_t dims[2] = {9, 4};
    double v[36];
    for (int i = 0; i < 36; i++) v[i] = uniform(-1, 1);
    sl_array x, xt, back;
    OK(sl_create(SL_F64, 2, dims, SL_ROW_MAJOR, v, sizeof v, &x));
    OK(sl_transpose(x, &xt));
    OK(sl_transpose(xt, &back)); /* a view of a view */
    sl_mpi_array d = distribute(back, 0), got;
    MOK(sl_mpi_shift(d, 0, 1, SL_BOUNDARY_WRAP, 0, &got));
    sl_array want;
    OK(sl_shift(x, 0, 1, SL_BOUNDARY_WRAP, 0, &want));
    same_bits("row-major data through views", got, want);
    MOK(sl_mpi_release(d));
    OK(sl_release(x));
    OK(sl_release(xt));
    OK(sl_release(back));
}

int main(int argc, char **argv) {
    start(&argc, &argv, "ops");
    int64_t sluice_before, live;
    OK(sl_live_handles(&sluice_before));
    for (int dist = 0; dist < 2; dist++) {
        elementwise(dist);
        shifts(13, dist);
        extremes_with_nan(dist);
        reductions(SL_F64, dist);
        reductions(SL_I32, dist);
        reductions(SL_F32, dist);
    }
    shifts(3, 0);
    halo_volume();
    dots(SL_F64);
    dots(SL_F32);
    products();
    redistributions();
    scatter_gather();
    empty_and_small();
    layouts();
    MOK(sl_mpi_live_handles(&live));
    EXPECT(live == 0, "%lld distributed handles left", (long long)live);
    OK(sl_live_handles(&live));
    EXPECT(live == sluice_before, "%lld Sluice handles left", (long long)(live - sluice_before));
    return finish("ops");
}
