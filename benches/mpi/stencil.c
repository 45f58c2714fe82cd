/* Weak scaling of a distributed 2-D heat stencil: every rank holds `rows` x `cols` (f64),
 * split by rows, and runs `steps` steps of u += 0.2 (4-neighbour sum - 4u), evaluating
 * each step (its halo exchange and its local work). In the same run, on each rank, the
 * same steps on a plain Sluice array of the local size with no communication: the
 * baseline the distributed step is compared with. Prints one JSON line (rank 0, the
 * slowest rank's figures): the median seconds per step of each; per step, the time spent
 * waiting for the exchange once it is posted and the interior started, the time in the
 * agreement before it (mostly waiting for the other rank to arrive), the messages and bytes
 * sent, and how many parts started computing before the wait.
 *
 *     mpirun -np 2 stencil [rows cols steps]       SLUICE_MPI_OVERLAP=0 turns overlap off */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice_mpi.h"

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        sl_status st_ = (call);                                                                       \
        if (st_ != SL_OK) {                                                                           \
            sl_error_info i_;                                                                         \
            sl_mpi_last_error(&i_);                                                                   \
            fprintf(stderr, "%s failed (%d): %s\n", #call, st_, i_.message ? i_.message : "");       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                             \
        }                                                                                             \
    } while (0)

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare);
    return v[n / 2];
}

/* One step of plain Sluice arrays. */
static sl_array plain_step(sl_array u) {
    sl_array s[4], acc, t, four, lap, scaled, next;
    for (int i = 0; i < 4; i++) CHECK(sl_shift(u, i / 2, i % 2 ? 1 : -1, SL_BOUNDARY_FILL, 0, &s[i]));
    CHECK(sl_add(s[0], s[1], &acc));
    CHECK(sl_add(acc, s[2], &t));
    CHECK(sl_release(acc));
    CHECK(sl_add(t, s[3], &acc));
    CHECK(sl_release(t));
    CHECK(sl_mul_scalar(u, 4, &four));
    CHECK(sl_sub(acc, four, &lap));
    CHECK(sl_mul_scalar(lap, 0.2, &scaled));
    CHECK(sl_add(u, scaled, &next));
    sl_array dead[] = {s[0], s[1], s[2], s[3], acc, four, lap, scaled};
    for (int i = 0; i < 8; i++) CHECK(sl_release(dead[i]));
    return next;
}

/* The same step on a distributed array. */
static sl_mpi_array dist_step(sl_mpi_array u) {
    sl_mpi_array s[4], acc, t, four, lap, scaled, next;
    for (int i = 0; i < 4; i++) CHECK(sl_mpi_shift(u, i / 2, i % 2 ? 1 : -1, SL_BOUNDARY_FILL, 0, &s[i]));
    CHECK(sl_mpi_binary(SL_ADD, s[0], s[1], &acc));
    CHECK(sl_mpi_binary(SL_ADD, acc, s[2], &t));
    CHECK(sl_mpi_release(acc));
    CHECK(sl_mpi_binary(SL_ADD, t, s[3], &acc));
    CHECK(sl_mpi_release(t));
    CHECK(sl_mpi_binary_scalar(SL_MUL, u, 4, &four));
    CHECK(sl_mpi_binary(SL_SUB, acc, four, &lap));
    CHECK(sl_mpi_binary_scalar(SL_MUL, lap, 0.2, &scaled));
    CHECK(sl_mpi_binary(SL_ADD, u, scaled, &next));
    sl_mpi_array dead[] = {s[0], s[1], s[2], s[3], acc, four, lap, scaled};
    for (int i = 0; i < 8; i++) CHECK(sl_mpi_release(dead[i]));
    return next;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int64_t rows = argc > 1 ? atoll(argv[1]) : 1024, cols = argc > 2 ? atoll(argv[2]) : 1024;
    int steps = argc > 3 ? atoi(argv[3]) : 40;
    CHECK(sl_mpi_init(MPI_COMM_WORLD));
    const int64_t local[2] = {rows, cols}, global[2] = {rows * ranks, cols};
    double *times = malloc((size_t)steps * sizeof *times);

    /* Plain Sluice, the local size, no communication. */
    sl_array u;
    CHECK(sl_constant(SL_F64, 2, local, 1.0, &u));
    for (int s = -3; s < steps; s++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        sl_array next = plain_step(u);
        CHECK(sl_release(u));
        u = next;
        CHECK(sl_eval(&u, 1));
        CHECK(sl_sync());
        if (s >= 0) times[s] = MPI_Wtime() - t0;
    }
    double plain = median(times, steps);
    CHECK(sl_release(u));

    /* Distributed: each rank's part the same size. */
    sl_array part;
    CHECK(sl_constant(SL_F64, 2, local, 1.0, &part));
    sl_mpi_array d;
    CHECK(sl_mpi_from_local(part, 2, global, 0, &d));
    CHECK(sl_release(part));
    sl_mpi_stats before, after;
    for (int s = -3; s < steps; s++) {
        if (s == 0) CHECK(sl_mpi_get_stats(&before));
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        sl_mpi_array next = dist_step(d);
        CHECK(sl_mpi_release(d));
        d = next;
        CHECK(sl_mpi_eval(&d, 1));
        CHECK(sl_sync());
        if (s >= 0) times[s] = MPI_Wtime() - t0;
    }
    CHECK(sl_mpi_get_stats(&after));
    double dist = median(times, steps);
    /* Every rank's numbers: the slowest rank sets the pace. */
    double mine[6] = {plain,
                      dist,
                      (after.wait_seconds - before.wait_seconds) / steps,
                      (after.agreement_seconds - before.agreement_seconds) / steps,
                      (double)(after.messages - before.messages) / steps,
                      (double)(after.overlapped - before.overlapped) / steps};
    double worst[6];
    MPI_Reduce(mine, worst, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    long long bytes = (long long)(after.bytes - before.bytes) / steps, all_bytes = 0;
    MPI_Reduce(&bytes, &all_bytes, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    const char *overlap = getenv("SLUICE_MPI_OVERLAP");
    if (me == 0)
        printf("{\"ranks\": %d, \"local\": [%lld, %lld], \"steps\": %d, \"overlap\": %s, \"plain_step_s\": %.6f, "
               "\"dist_step_s\": %.6f, \"exchange_wait_per_step_s\": %.6f, \"agreement_per_step_s\": %.6f, "
               "\"messages_per_step_per_rank\": %.1f, \"bytes_per_step_all_ranks\": %lld, "
               "\"parts_started_before_wait_per_step\": %.1f}\n",
               ranks, (long long)rows, (long long)cols, steps, overlap && strcmp(overlap, "0") == 0 ? "false" : "true",
               worst[0], worst[1], worst[2], worst[3], worst[4], all_bytes, worst[5]);
    CHECK(sl_mpi_release(d));
    free(times);
    CHECK(sl_mpi_finalize());
    MPI_Finalize();
    return 0;
}
