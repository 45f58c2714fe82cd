/* Bad input to every call, reported with a clear status and message (on every rank where
 * the call is collective), the library usable afterwards: stale, null and foreign
 * handles, NULL pointers, out-of-range dimensions, orders, roots and distributions,
 * mismatched distributions and global shapes, a part of the wrong shape on one rank, ranks
 * that disagree about a call, and, last, a rank that never joins a communication (a
 * timeout naming the operation, on 2 ranks or more). */
#include <unistd.h>

#include "mpi_check.h"

static void bad_handles(sl_mpi_array good, sl_array plain) {
    sl_mpi_array out, stale;
    sl_array l;
    MOK(sl_mpi_retain(good, &stale));
    MOK(sl_mpi_release(stale));
    MFAILS(sl_mpi_unary(SL_EXP, stale, &out), SL_ERR_INVALID_HANDLE, "not a live distributed array");
    MFAILS(sl_mpi_release(stale), SL_ERR_INVALID_HANDLE, "not a live distributed array");
    MFAILS(sl_mpi_local(0, &l), SL_ERR_INVALID_HANDLE, "null handle");
    MFAILS(sl_mpi_binary(SL_ADD, good, (sl_mpi_array)plain, &out), SL_ERR_INVALID_HANDLE, "not a live");
    MFAILS(sl_mpi_keep(stale), SL_ERR_INVALID_HANDLE, "not a live");
    MFAILS(sl_mpi_retain(stale, &out), SL_ERR_INVALID_HANDLE, "not a live");
    MFAILS(sl_mpi_retain(good, NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL");
    MFAILS(sl_mpi_redistribute(stale, 0, &out), SL_ERR_INVALID_HANDLE, "not a live");
    MFAILS(sl_mpi_dot(good, stale, SL_MPI_ORDER_FAST, &out), SL_ERR_INVALID_HANDLE, "not a live");
    MFAILS(sl_mpi_matmul(stale, good, &out), SL_ERR_INVALID_HANDLE, "not a live");
    sl_mpi_info info;
    MFAILS(sl_mpi_get_info(stale, &info), SL_ERR_INVALID_HANDLE, "not a live");
    sl_mpi_array arrays[2] = {good, stale};
    MFAILS(sl_mpi_eval(arrays, 2), SL_ERR_INVALID_HANDLE, "not a live");
    /* A stale Sluice array as a part: every rank learns of it. */
    sl_array gone;
    OK(sl_retain(plain, &gone));
    OK(sl_release(gone));
    const int64_t dims[2] = {13, 5};
    if (ranks == 1) {
        MFAILS(sl_mpi_from_local(gone, 2, dims, SL_MPI_REPLICATED, &out), SL_ERR_INVALID_HANDLE, "");
    } else {
        sl_array part = me == 0 ? gone : plain;
        MFAILS(sl_mpi_from_local(part, 2, dims, SL_MPI_REPLICATED, &out), me == 0 ? SL_ERR_INVALID_HANDLE : SL_MPI_ERR_REMOTE,
               me == 0 ? "" : "rank 0 failed in this call");
    }
}

static void null_pointers(sl_mpi_array good) {
    const int64_t dims[1] = {4};
    MFAILS(sl_mpi_unary(SL_EXP, good, NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL");
    MFAILS(sl_mpi_reduce(SL_SUM, good, 0, SL_MPI_ORDER_FAST, NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL");
    MFAILS(sl_mpi_gather(good, 0, NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL"); /* collective: every rank */
    MFAILS(sl_mpi_from_local(1, 1, NULL, 0, NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL");
    sl_mpi_array out;
    MFAILS(sl_mpi_from_local(1, 1, NULL, 0, &out), SL_ERR_INVALID_ARGUMENT, "dims is NULL");
    MFAILS(sl_mpi_from_local(1, 9, dims, 0, &out), SL_ERR_INVALID_ARGUMENT, "above SL_MAX_RANK");
    MFAILS(sl_mpi_from_local(1, -1, dims, 0, &out), SL_ERR_INVALID_ARGUMENT, "negative");
    MFAILS(sl_mpi_eval(NULL, 1), SL_ERR_INVALID_ARGUMENT, "arrays is NULL");
    MFAILS(sl_mpi_get_info(good, NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL");
    MFAILS(sl_mpi_get_stats(NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL");
    MFAILS(sl_mpi_live_handles(NULL), SL_ERR_INVALID_ARGUMENT, "out is NULL");
    MFAILS(sl_mpi_status_name(SL_OK, NULL), SL_ERR_INVALID_ARGUMENT, "name is NULL");
    int64_t s, c;
    MFAILS(sl_mpi_block(10, 3, 0, NULL, &c), SL_ERR_INVALID_ARGUMENT, "NULL");
    MFAILS(sl_mpi_block(-1, 3, 0, &s, &c), SL_ERR_INVALID_ARGUMENT, "negative");
    MFAILS(sl_mpi_block(10, 3, 3, &s, &c), SL_ERR_INVALID_ARGUMENT, "is not one of 3 parts");
    MFAILS(sl_mpi_block(10, 0, 0, &s, &c), SL_ERR_INVALID_ARGUMENT, "is not one of 0 parts");
    EXPECT(sl_mpi_last_error(NULL) == SL_ERR_INVALID_ARGUMENT, "sl_mpi_last_error(NULL)");
}

static void bad_arguments(sl_mpi_array rows, sl_mpi_array cols, sl_mpi_array other, sl_array plain) {
    sl_mpi_array out;
    sl_array l, tmp;
    MFAILS(sl_mpi_binary(SL_ADD, rows, cols, &out), SL_ERR_SHAPE_MISMATCH, "distributed differently");
    MFAILS(sl_mpi_dot(rows, cols, SL_MPI_ORDER_FAST, &out), SL_ERR_SHAPE_MISMATCH, "distributed differently");
    MFAILS(sl_mpi_binary(SL_ADD, rows, other, &out), SL_ERR_SHAPE_MISMATCH, "");
    /* A distributed row of one element along the split dimension cannot broadcast. */
    const int64_t one_row[2] = {1, 5};
    sl_array r;
    OK(sl_constant(SL_F64, 2, one_row, 1, &r));
    sl_mpi_array dr = distribute(r, 0);
    MFAILS(sl_mpi_binary(SL_MUL, rows, dr, &out), SL_ERR_SHAPE_MISMATCH, "stretch the distributed dimension");
    MOK(sl_mpi_release(dr));
    OK(sl_release(r));
    /* Whatever Sluice says of an operation, the distributed one says too. */
    sl_status want = sl_binary(SL_AND, plain, plain, &tmp);
    EXPECT(want != SL_OK, "sl_binary(SL_AND) of f64 is refused");
    MFAILS(sl_mpi_binary(SL_AND, rows, rows, &out), want, "");
    MFAILS(sl_mpi_unary(99, rows, &out), SL_ERR_INVALID_ARGUMENT, "");
    MFAILS(sl_mpi_binary_scalar(99, rows, 1.0, &out), SL_ERR_INVALID_ARGUMENT, "");
    MFAILS(sl_mpi_scalar_binary(-1, 1.0, rows, &out), SL_ERR_INVALID_ARGUMENT, "");
    /* A global shape beyond Sluice's limit on elements, on every rank. */
    const int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
    MFAILS(sl_mpi_from_local(plain, 2, huge, SL_MPI_REPLICATED, &out), SL_ERR_INVALID_ARGUMENT, "");
    MFAILS(sl_mpi_cast(rows, 42, &out), SL_ERR_INVALID_ARGUMENT, "");
    MFAILS(sl_mpi_shift(rows, 2, 1, SL_BOUNDARY_FILL, 0, &out), SL_ERR_INVALID_ARGUMENT, "is not a dimension");
    MFAILS(sl_mpi_shift(rows, -1, 1, SL_BOUNDARY_FILL, 0, &out), SL_ERR_INVALID_ARGUMENT, "is not a dimension");
    MFAILS(sl_mpi_shift(rows, 0, 1, 7, 0, &out), SL_ERR_INVALID_ARGUMENT, "");
    MFAILS(sl_mpi_rotate(rows, 5, 1, &out), SL_ERR_INVALID_ARGUMENT, "is not a dimension");
    MFAILS(sl_mpi_reduce(SL_SUM, rows, 0, 3, &out), SL_ERR_INVALID_ARGUMENT, "is not SL_MPI_ORDER_FAST");
    MFAILS(sl_mpi_reduce(SL_SUM, rows, 2, SL_MPI_ORDER_FAST, &out), SL_ERR_INVALID_ARGUMENT, "is not a dimension");
    MFAILS(sl_mpi_reduce(99, rows, 0, SL_MPI_ORDER_FAST, &out), SL_ERR_INVALID_ARGUMENT, "");
    MFAILS(sl_mpi_reduce(SL_NANMEAN, rows, 0, SL_MPI_ORDER_FAST, &out), SL_ERR_NOT_SUPPORTED, "SL_NANMEAN");
    MFAILS(sl_mpi_dot(rows, rows, -1, &out), SL_ERR_INVALID_ARGUMENT, "is not SL_MPI_ORDER_FAST");
    MFAILS(sl_mpi_redistribute(rows, 2, &out), SL_ERR_INVALID_ARGUMENT, "is not a dimension");
    MFAILS(sl_mpi_redistribute(rows, -2, &out), SL_ERR_INVALID_ARGUMENT, "is not a dimension");
    MFAILS(sl_mpi_matmul(rows, rows, &out), SL_ERR_SHAPE_MISMATCH, "");
    MFAILS(sl_mpi_set_timeout(-1), SL_ERR_INVALID_ARGUMENT, "finite number >= 0");
    MFAILS(sl_mpi_set_timeout(NAN), SL_ERR_INVALID_ARGUMENT, "finite number >= 0");
    MFAILS(sl_mpi_scope_end(), SL_ERR_INVALID_STATE, "without a matching sl_mpi_scope_begin");
    MFAILS(sl_mpi_keep(rows), SL_ERR_INVALID_STATE, "outside any scope");
    /* Collective calls: the same bad argument on every rank fails on every rank. */
    MFAILS(sl_mpi_gather(rows, ranks, &l), SL_ERR_INVALID_ARGUMENT, "is neither a rank");
    MFAILS(sl_mpi_gather(rows, -2, &l), SL_ERR_INVALID_ARGUMENT, "is neither a rank");
    MFAILS(sl_mpi_scatter(plain, ranks, 0, &out), SL_ERR_INVALID_ARGUMENT, "is not a rank");
    MFAILS(sl_mpi_scatter(plain, 0, 2, &out), me == 0 ? SL_ERR_INVALID_ARGUMENT : SL_MPI_ERR_REMOTE,
           me == 0 ? "is not a dimension" : "rank 0 failed");
    const int64_t dims[2] = {13, 5}, negative[2] = {13, -5};
    MFAILS(sl_mpi_from_local(plain, 2, negative, 0, &out), SL_ERR_INVALID_ARGUMENT, "is negative");
    MFAILS(sl_mpi_from_local(plain, 2, dims, 2, &out), SL_ERR_INVALID_ARGUMENT, "is not a dimension");
    /* The whole array as every rank's part: wrong except on one rank. */
    if (ranks > 1) MFAILS(sl_mpi_from_local(plain, 2, dims, 0, &out), SL_ERR_SHAPE_MISMATCH, "this rank's part has shape");
    /* A part of the wrong shape on the last rank only: it says why, the others who. */
    int64_t start, count;
    MOK(sl_mpi_block(13, ranks, me, &start, &count));
    const int64_t s0[2] = {start, 0}, c0[2] = {count - (me == ranks - 1), 5}, one[2] = {1, 1};
    sl_array part;
    OK(sl_section(plain, s0, c0, one, &part));
    char who[64];
    snprintf(who, sizeof who, "rank %d failed in this call", ranks - 1);
    MFAILS(sl_mpi_from_local(part, 2, dims, 0, &out), me == ranks - 1 ? SL_ERR_SHAPE_MISMATCH : SL_MPI_ERR_REMOTE,
           me == ranks - 1 ? "this rank's part has shape" : who);
    OK(sl_release(part));
}

/* Ranks that make different calls or pass different arguments: reported on every rank,
 * before anything is sent; the library goes on. */
static void disagreements(sl_mpi_array rows, sl_array plain) {
    if (ranks < 2) return;
    sl_mpi_array out;
    sl_array l;
    /* Different shifts of the same array, read. */
    MOK(sl_mpi_shift(rows, 0, me == 0 ? 1 : 2, SL_BOUNDARY_FILL, 0, &out));
    MFAILS(sl_mpi_local(out, &l), SL_MPI_ERR_RANKS_DISAGREE, "the ranks disagree");
    MOK(sl_mpi_release(out));
    /* Different roots, different types of the parts. */
    MFAILS(sl_mpi_gather(rows, me == 0 ? 0 : 1, &l), SL_MPI_ERR_RANKS_DISAGREE, "the ranks disagree");
    sl_array part, cast;
    int64_t start, count;
    MOK(sl_mpi_block(13, ranks, me, &start, &count));
    const int64_t s0[2] = {start, 0}, c0[2] = {count, 5}, one[2] = {1, 1}, dims[2] = {13, 5};
    OK(sl_section(plain, s0, c0, one, &part));
    OK(sl_cast(part, me == ranks - 1 ? SL_F32 : SL_F64, &cast));
    MFAILS(sl_mpi_from_local(cast, 2, dims, 0, &out), SL_MPI_ERR_RANKS_DISAGREE, "the ranks disagree");
    OK(sl_release(part));
    OK(sl_release(cast));
}

/* Still working: a stencil equal to the one-process one. */
static void still_working(sl_mpi_array rows, sl_array plain) {
    sl_mpi_array s, got;
    sl_array p, want;
    MOK(sl_mpi_shift(rows, 0, -1, SL_BOUNDARY_CLAMP, 0, &s));
    MOK(sl_mpi_binary(SL_SUB, s, rows, &got));
    OK(sl_shift(plain, 0, -1, SL_BOUNDARY_CLAMP, 0, &p));
    OK(sl_sub(p, plain, &want));
    same_bits("after the errors", got, want);
    MOK(sl_mpi_release(s));
    OK(sl_release(p));
}

/* Rank 0 reads a shifted array; the others never join: rank 0 times out (1 s) with a
 * message naming the call and the operation; the others, arriving at sl_mpi_finalize 3 s
 * later, meet the agreement rank 0 left behind and report the disagreement. */
static int timeout_then_end(sl_mpi_array rows) {
    sl_mpi_array out;
    sl_array l;
    MOK(sl_mpi_shift(rows, 0, 1, SL_BOUNDARY_FILL, 0, &out));
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        MOK(sl_mpi_set_timeout(1));
        MFAILS(sl_mpi_local(out, &l), SL_MPI_ERR_TIMEOUT, "shift by 1");
        MFAILS(sl_mpi_local(out, &l), SL_ERR_INVALID_STATE, "an earlier communication timed out");
        MOK(sl_mpi_release(out));
        MOK(sl_mpi_release(rows));
        MOK(sl_mpi_finalize()); /* local after a timeout */
    } else {
        sleep(3);
        MOK(sl_mpi_release(out));
        MOK(sl_mpi_release(rows));
        MFAILS(sl_mpi_finalize(), SL_MPI_ERR_RANKS_DISAGREE, "sl_mpi_finalize: the ranks disagree");
    }
    int mine = failures;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("errors on %d ranks: %s (%d failures)\n", ranks, total ? "FAILED" : "passed", total);
    MPI_Finalize();
    return total ? 1 : 0;
}

int main(int argc, char **argv) {
    start(&argc, &argv, "errors");
    const int64_t dims[2] = {13, 5}, odims[2] = {12, 5};
    sl_array plain = random_f64(2, dims, -1, 1), oplain = random_f64(2, odims, -1, 1);
    sl_mpi_array rows = distribute(plain, 0), cols = distribute(plain, 1), other = distribute(oplain, 0);
    bad_handles(rows, plain);
    null_pointers(rows);
    bad_arguments(rows, cols, other, plain);
    disagreements(rows, plain);
    still_working(rows, plain);
    const char *name = NULL;
    MOK(sl_mpi_status_name(SL_MPI_ERR_REMOTE, &name));
    EXPECT(strcmp(name, "SL_MPI_ERR_REMOTE") == 0, "status name %s", name);
    MOK(sl_mpi_status_name(SL_ERR_POISONED, &name));
    EXPECT(strcmp(name, "SL_ERR_POISONED") == 0, "status name %s", name);
    MOK(sl_mpi_release(cols));
    MOK(sl_mpi_release(other));
    OK(sl_release(plain));
    OK(sl_release(oplain));
    if (ranks >= 2) return timeout_then_end(rows);
    MOK(sl_mpi_release(rows));
    return finish("errors");
}
