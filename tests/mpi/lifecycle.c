/* The library's life around MPI's: calls before MPI_Init, a communicator of the wrong kind,
 * initialising twice, handles after sl_mpi_finalize and a new sl_mpi_init, and calls after
 * MPI_Finalize (clear statuses, no crash, no hang). */
#include "mpi_check.h"

int main(int argc, char **argv) {
    sl_mpi_array a = 0;
    sl_array l;
    /* Before MPI_Init. */
    MFAILS(sl_mpi_init_fint(0), SL_ERR_INVALID_STATE, "MPI is not initialised");
    MFAILS(sl_mpi_local(a, &l), SL_ERR_INVALID_STATE, "not initialised");
    int32_t r, s;
    sl_mpi_stats stats;
    int64_t live_before;
    MFAILS(sl_mpi_comm_rank(&r, &s), SL_ERR_INVALID_STATE, "not initialised");
    MFAILS(sl_mpi_get_stats(&stats), SL_ERR_INVALID_STATE, "not initialised");
    MFAILS(sl_mpi_live_handles(&live_before), SL_ERR_INVALID_STATE, "not initialised");
    MFAILS(sl_mpi_set_timeout(1), SL_ERR_INVALID_STATE, "not initialised");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    /* Communicators of the wrong kind. */
    MFAILS(sl_mpi_init(MPI_COMM_NULL), SL_ERR_INVALID_ARGUMENT, "MPI_COMM_NULL");
    if (ranks >= 2) {
        MPI_Comm half, inter;
        int colour = me % 2;
        MPI_Comm_split(MPI_COMM_WORLD, colour, me, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - colour, 7, &inter);
        MFAILS(sl_mpi_init(inter), SL_ERR_INVALID_ARGUMENT, "intercommunicator");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* Twice. */
    MOK(sl_mpi_init(MPI_COMM_WORLD));
    MFAILS(sl_mpi_init(MPI_COMM_WORLD), SL_ERR_INVALID_STATE, "already");
    const int64_t dims[1] = {10};
    sl_array x;
    OK(sl_constant(SL_F64, 1, dims, 1.5, &x));
    a = distribute(x, 0);
    /* A handle from before sl_mpi_finalize, before and after a new sl_mpi_init. */
    MOK(sl_mpi_finalize());
    MFAILS(sl_mpi_local(a, &l), SL_ERR_INVALID_STATE, "not initialised");
    MFAILS(sl_mpi_finalize(), SL_ERR_INVALID_STATE, "without sl_mpi_init");
    MOK(sl_mpi_init(MPI_COMM_WORLD));
    MFAILS(sl_mpi_local(a, &l), SL_ERR_INVALID_HANDLE, "not a live distributed array");
    /* Working again; then MPI_Finalize before sl_mpi_finalize. */
    sl_mpi_array b = distribute(x, 0), c;
    MOK(sl_mpi_shift(b, 0, 1, SL_BOUNDARY_FILL, 0, &c));
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    MFAILS(sl_mpi_local(c, &l), SL_ERR_INVALID_STATE, "MPI has been finalised");
    MFAILS(sl_mpi_binary(SL_ADD, b, c, &a), SL_ERR_INVALID_STATE, "MPI has been finalised");
    MOK(sl_mpi_release(c)); /* local: still works */
    MFAILS(sl_mpi_finalize(), SL_ERR_INVALID_STATE, "MPI was finalised before sl_mpi_finalize");
    MFAILS(sl_mpi_init_fint(0), SL_ERR_INVALID_STATE, "finalised");
    OK(sl_release(x));
    int64_t live;
    OK(sl_live_handles(&live));
    EXPECT(live == 0, "%lld Sluice handles left", (long long)live);
    if (me == 0) printf("lifecycle on %d ranks: %s\n", ranks, total + failures ? "FAILED" : "passed");
    return total + failures ? 1 : 0;
}
