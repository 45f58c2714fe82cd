/* The only code of libsluice_mpi that sees <mpi.h>: a small fixed C ABI over the MPI calls
 * the library makes, compiled with the system's mpicc (build.rs). MPI's handle types differ
 * between implementations (OpenMPI: pointers, MPICH: ints), so none crosses this ABI: a
 * communicator arrives as an MPI_Fint (which the header's inline sl_mpi_init makes with
 * MPI_Comm_c2f) and lives in an sm_comm; requests live in an sm_requests. Every function
 * returns an MPI error code (MPI_SUCCESS = 0); the library's communicator returns errors
 * rather than aborting (MPI_ERRORS_RETURN). Byte counts are checked to fit an int by the
 * caller. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct sm_comm {
    MPI_Comm comm;
} sm_comm;

typedef struct sm_requests {
    MPI_Request *r;
    int n, cap;
} sm_requests;

enum { SM_KIND_OK = 0, SM_KIND_NULL = 1, SM_KIND_INTER = 2 };
enum { SM_F64 = 0, SM_I64 = 1, SM_C128 = 2 };
enum { SM_SUM = 0, SM_PROD = 1, SM_MIN = 2, SM_MAX = 3 };

int sm_state(int *initialized, int *finalized) {
    int rc = MPI_Initialized(initialized);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Finalized(finalized);
}

/* Whether this thread may call MPI now: the thread level allows any serialised thread, or
 * this is the thread that initialised MPI. */
int sm_thread_ok(int *ok) {
    int level = MPI_THREAD_SINGLE, is_main = 0;
    int rc = MPI_Query_thread(&level);
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Is_thread_main(&is_main);
    if (rc != MPI_SUCCESS) return rc;
    *ok = level >= MPI_THREAD_SERIALIZED || is_main;
    return MPI_SUCCESS;
}

/* Duplicates the application's communicator (so the library's messages never match the
 * application's) after checking it is a valid intracommunicator; *kind says why not. */
int sm_comm_adopt(int32_t fcomm, int *kind, sm_comm **out) {
    *out = NULL;
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)fcomm);
#ifdef OPEN_MPI
    /* OpenMPI's f2c gives a null pointer for an index that names no communicator. */
    if ((void *)c == NULL) {
        *kind = SM_KIND_NULL;
        return MPI_SUCCESS;
    }
#endif
    if (c == MPI_COMM_NULL) {
        *kind = SM_KIND_NULL;
        return MPI_SUCCESS;
    }
    int inter = 0;
    int rc = MPI_Comm_test_inter(c, &inter);
    if (rc != MPI_SUCCESS) return rc;
    if (inter) {
        *kind = SM_KIND_INTER;
        return MPI_SUCCESS;
    }
    *kind = SM_KIND_OK;
    sm_comm *s = malloc(sizeof *s);
    if (!s) return MPI_ERR_NO_MEM;
    rc = MPI_Comm_dup(c, &s->comm);
    if (rc != MPI_SUCCESS) {
        free(s);
        return rc;
    }
    rc = MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&s->comm);
        free(s);
        return rc;
    }
    *out = s;
    return MPI_SUCCESS;
}

/* Frees the duplicate (collective in MPI's terms; with `release_only` the handle is
 * dropped without MPI calls, for after MPI_Finalize). */
int sm_comm_free(sm_comm *c, int release_only) {
    int rc = MPI_SUCCESS;
    if (!release_only) rc = MPI_Comm_free(&c->comm);
    free(c);
    return rc;
}

int sm_comm_rank(sm_comm *c, int *rank, int *size) {
    int rc = MPI_Comm_rank(c->comm, rank);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Comm_size(c->comm, size);
}

/* The largest tag the implementation allows (at least 32767). */
int sm_tag_ub(sm_comm *c, int *ub) {
    int *value = NULL, flag = 0;
    int rc = MPI_Comm_get_attr(c->comm, MPI_TAG_UB, &value, &flag);
    if (rc != MPI_SUCCESS) return rc;
    *ub = flag && value ? *value : 32767;
    return MPI_SUCCESS;
}

sm_requests *sm_requests_new(void) { return calloc(1, sizeof(sm_requests)); }

void sm_requests_free(sm_requests *q) {
    if (!q) return;
    free(q->r);
    free(q);
}

static MPI_Request *slot(sm_requests *q) {
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 8;
        MPI_Request *r = realloc(q->r, (size_t)cap * sizeof *r);
        if (!r) return NULL;
        q->r = r;
        q->cap = cap;
    }
    return &q->r[q->n++];
}

#define SLOT(q, r)                                \
    MPI_Request *r = slot(q);                     \
    if (!r) return MPI_ERR_NO_MEM;

int sm_isend(sm_comm *c, sm_requests *q, const void *buf, int bytes, int dest, int tag) {
    SLOT(q, r);
    return MPI_Isend(buf, bytes, MPI_BYTE, dest, tag, c->comm, r);
}

int sm_irecv(sm_comm *c, sm_requests *q, void *buf, int bytes, int source, int tag) {
    SLOT(q, r);
    return MPI_Irecv(buf, bytes, MPI_BYTE, source, tag, c->comm, r);
}

static MPI_Datatype datatype(int type) {
    switch (type) {
    case SM_F64: return MPI_DOUBLE;
    case SM_I64: return MPI_INT64_T;
    case SM_C128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
    }
}

static MPI_Op operation(int op) {
    switch (op) {
    case SM_SUM: return MPI_SUM;
    case SM_PROD: return MPI_PROD;
    case SM_MIN: return MPI_MIN;
    case SM_MAX: return MPI_MAX;
    default: return MPI_OP_NULL;
    }
}

int sm_iallreduce(sm_comm *c, sm_requests *q, const void *send, void *recv, int count, int type, int op) {
    if (datatype(type) == MPI_DATATYPE_NULL || operation(op) == MPI_OP_NULL) return MPI_ERR_ARG;
    SLOT(q, r);
    return MPI_Iallreduce(send, recv, count, datatype(type), operation(op), c->comm, r);
}

int sm_iallgatherv(sm_comm *c, sm_requests *q, const void *send, int bytes, void *recv, const int *counts,
                   const int *displs) {
    SLOT(q, r);
    return MPI_Iallgatherv(send, bytes, MPI_BYTE, recv, counts, displs, MPI_BYTE, c->comm, r);
}

int sm_igatherv(sm_comm *c, sm_requests *q, const void *send, int bytes, void *recv, const int *counts,
                const int *displs, int root) {
    SLOT(q, r);
    return MPI_Igatherv(send, bytes, MPI_BYTE, recv, counts, displs, MPI_BYTE, root, c->comm, r);
}

int sm_iscatterv(sm_comm *c, sm_requests *q, const void *send, const int *counts, const int *displs, void *recv,
                 int bytes, int root) {
    SLOT(q, r);
    return MPI_Iscatterv(send, counts, displs, MPI_BYTE, recv, bytes, MPI_BYTE, root, c->comm, r);
}

int sm_ialltoallv(sm_comm *c, sm_requests *q, const void *send, const int *send_counts, const int *send_displs,
                  void *recv, const int *recv_counts, const int *recv_displs) {
    SLOT(q, r);
    return MPI_Ialltoallv(send, send_counts, send_displs, MPI_BYTE, recv, recv_counts, recv_displs, MPI_BYTE,
                          c->comm, r);
}

int sm_ibcast(sm_comm *c, sm_requests *q, void *buf, int bytes, int root) {
    SLOT(q, r);
    return MPI_Ibcast(buf, bytes, MPI_BYTE, root, c->comm, r);
}

/* Whether every request of `q` has completed (then they are all freed by MPI). */
int sm_testall(sm_requests *q, int *done) {
    if (q->n == 0) {
        *done = 1;
        return MPI_SUCCESS;
    }
    return MPI_Testall(q->n, q->r, done, MPI_STATUSES_IGNORE);
}

void sm_error_string(int code, char *buf, int cap) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
    if (cap <= 0) return;
    if (len >= cap) len = cap - 1;
    memcpy(buf, text, (size_t)len);
    buf[len] = 0;
}
