/* The API fuzzer's shared declarations: the shadow model of arrays, the per-thread fuzzing
 * state (pools of handles, scopes, macro recording), the call log and the promise checks.
 *
 * shadow.c  computes what Sluice must give: result shapes and types, and values (exact,
 *           within a per-element tolerance, or unknown) from the values of the inputs.
 * gen.c     draws arguments: shapes, values, extreme integers, handles of every kind.
 * check.c   the promises of one call: status, message, out-handles, outputs, reads.
 * calls.c   one fuzzer per API call (arguments, expectation, call, check, pool update).
 * complex.c chains of complex calls, checked against a C99 complex model.
 * session.c scopes, macros, error handlers, settings, stats, shutdown and re-init.
 * fuzz_api.c the driver: options, the call loop, threads, reports. */
#ifndef SLUICE_FUZZ_H
#define SLUICE_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sluice.h"

/* ---- deterministic random numbers (xoshiro256**) ---- */
typedef struct {
    uint64_t s[4];
} Rand;

void rand_seed(Rand *r, uint64_t seed);
uint64_t rand_u64(Rand *r);
uint64_t rand_below(Rand *r, uint64_t n); /* uniform in [0, n), n > 0 */
int rand_pct(Rand *r, int percent);       /* true with probability percent/100 */
double rand_unit(Rand *r);                /* uniform in [0, 1) */

/* ---- element types ---- */
size_t dt_size(int dt);
int dt_float(int dt);
int dt_int(int dt); /* i32, i64, u8 (not bool) */
int dt_valid(int dt);
const char *dt_name(int dt);

/* ---- the shadow model of one array ---- */

/* Tolerance meaning "any value" (the model cannot predict the element). */
#define ANY_VALUE INFINITY

typedef struct {
    int dtype, rank;
    int64_t dims[SL_MAX_RANK];
    int64_t numel;
    /* Values are known: `vals` holds the elements (column-major, as sl_read gives them) and
     * `tol` the allowed |got - want| per element (0: exact; ANY_VALUE: unknown). */
    int known;
    unsigned char *vals;
    double *tol;
    /* Unknown values may still be bounded (random arrays): every element in [lo, hi). */
    int bounded;
    double lo, hi;
} Shadow;

/* The largest array whose values the model keeps (and the fuzzer reads). */
#define SHADOW_MAX_NUMEL 4096

/* One element, wide: `f` for floats, `i` for integers and bool; `e` its tolerance. */
typedef struct {
    double f;
    int64_t i;
    double e;
} Val;

void sh_init(Shadow *s, int dtype, int rank, const int64_t *dims, int known);
void sh_free(Shadow *s);
void sh_copy(Shadow *dst, const Shadow *src);
void sh_forget(Shadow *s); /* values become unknown */
Val sh_get(const Shadow *s, int64_t i);
void sh_put(Shadow *s, int64_t i, Val v); /* rounds or wraps into the type */
int sh_same_shape(const Shadow *a, const Shadow *b);
void sh_from_bytes(Shadow *s, const void *bytes); /* observed values: exact */
/* Observed values of a computed float array: a later fused kernel may recompute them
 * without rounding to the type in between, so they carry one ulp. */
void sh_observed(Shadow *s, const void *bytes);

/* Shapes. `numel_of` gives 0 when the shape is addressable (count * 8 bytes fits in an
 * int64), 1 when it is too large; every dim must be >= 0. */
int numel_of(int rank, const int64_t *dims, int64_t *numel);
int broadcast_shapes(int ra, const int64_t *a, int rb, const int64_t *b, int *rank, int64_t *dims);
void unravel(int rank, const int64_t *dims, int64_t i, int64_t *c);
int64_t ravel(int rank, const int64_t *dims, const int64_t *c);
void shape_str(char *buf, size_t n, int rank, const int64_t *dims);

/* Result types of the ops (-1: not defined for that input type). */
int unary_result(int op, int dt);
int binary_result(int op, int dt);
int reduce_result(int op, int dt);
int promote_types(int a, int b);
int weak_float_type(int dt);
int weak_int_type(int dt);
int scan_result(int dt);
int integer_dtype(int dt);
/* Whether `v` converts to `dt` exactly (floats: always; they round). */
int scalar_fits(int dt, double v);
Val scalar_val(int dt, double v);

/* Values. Each fills `out` (already shaped by the caller with sh_init) from the inputs. */
void sv_unary(int op, const Shadow *a, Shadow *out);
void sv_binary(int op, const Shadow *a, const Shadow *b, Shadow *out);
void sv_select(const Shadow *c, const Shadow *a, const Shadow *b, Shadow *out);
void sv_binary_as(int op, const Shadow *a, const Shadow *b, int dt, Shadow *out);
void sv_select_as(const Shadow *c, const Shadow *a, const Shadow *b, Shadow *out);
void sv_fma_as(const Shadow *a, const Shadow *b, const Shadow *c, Shadow *out);
void sv_cast(const Shadow *a, Shadow *out);
void sv_reduce(int op, const Shadow *a, int dim, Shadow *out); /* dim -1: everything */
void sv_scan(int prod, const Shadow *a, int dim, Shadow *out);
void sv_matmul(const Shadow *a, const Shadow *b, Shadow *out);
void sv_iota(int dim, Shadow *out);
void sv_identity(Shadow *out);
void sv_fill(Shadow *out, Val v);
void sv_permute(const Shadow *a, const int *perm, Shadow *out);
void sv_reshape(const Shadow *a, Shadow *out);
void sv_section(const Shadow *a, const int64_t *start, const int64_t *stride, Shadow *out);
void sv_project(const Shadow *a, int dim, int64_t index, Shadow *out);
/* Offset views: source coordinate out[d] - offset[d], resolved by `boundary` (shift,
 * rotate, pad, tile); `fill` for SL_BOUNDARY_FILL. */
void sv_offset(const Shadow *a, const int64_t *offset, int boundary, Val fill, Shadow *out);
void sv_broadcast(const Shadow *a, Shadow *out);
void sv_concat(const Shadow *const *parts, int n, int dim, Shadow *out);
void sv_gather(const Shadow *src, const Shadow *const *idx, Shadow *out);
void sv_scatter(const Shadow *dst, const Shadow *const *idx, const Shadow *values, int mode, Shadow *out);

/* Compares bytes read from Sluice with the model: -1 when they agree, else the index
 * of the first element that differs (described into `why`). */
int64_t sh_compare(const Shadow *s, const void *got, char *why, size_t n);

/* ---- handles the fuzzer holds ---- */

#define POOL_MAX 40
#define STALE_MAX 64
#define FRAME_MAX 64

typedef struct {
    sl_array h; /* 0: free slot */
    int label;  /* a<label> in the log */
    Shadow s;
    int source; /* made from application data (sl_reference works without comparison) */
    int fill;   /* made by sl_constant or sl_scalar, with this value: */
    double fill_value;
    int outside; /* made before the macro section being recorded, and not one of its inputs */
    int shared;  /* a handle every thread holds (the shared pool): never released by one */
} Arr;

typedef struct {
    sl_rng id; /* 0: free slot */
    int label;
    int kind;
    uint64_t seed, draw;
} RngSlot;

#define RNG_MAX 6

/* Scope frames as the model sees them (the macro section's own frame is marked). */
typedef struct {
    int macro;
    int n, cap;
    sl_array *h;
} Frame;

/* Known defect classes of issue 13 a driver may be told to tolerate (`--tolerate`). */
enum {
    TOL_A = 1 << 0, /* overflowing sizes, offsets and strides */
    TOL_B = 1 << 1, /* huge results without a refusal */
    TOL_C = 1 << 2, /* failed calls that leave *out as it was */
    TOL_D = 1 << 3, /* generator handles that survive sl_shutdown */
    TOL_E = 1 << 4, /* a stray sl_scope_end inside a macro recording */
    TOL_F = 1 << 5, /* pow of a rank-0 base by a constant array of 2 or -1 */
    TOL_G = 1 << 6, /* shutdown while other threads work */
    TOL_I = 1 << 8, /* (found by this fuzzer) the scalar 2^63 taken by i64 arrays as INT64_MAX */
    TOL_O = 1 << 14, /* (found by this fuzzer) Vulkan shifts and rotations by offsets beyond 32 bits */
    TOL_P = 1 << 15, /* (found by this fuzzer) with threads, a read poisoned by another thread's refused huge result */
    TOL_V = 1 << 21, /* (found by this fuzzer) Vulkan sin/cos/tan of large arguments */
    TOL_Z = 1 << 25, /* (found by this fuzzer) scans of empty arrays with huge dimensions hang */
};

typedef struct Shared Shared;

/* One fuzzing thread. */
typedef struct {
    int tid;
    Rand r;
    uint64_t call;     /* calls made by this thread */
    uint64_t failures; /* broken promises found */
    Arr pool[POOL_MAX];
    int next_label;
    RngSlot rngs[RNG_MAX];
    sl_array released[STALE_MAX]; /* released handles (stale) */
    int n_released;
    sl_array old[STALE_MAX]; /* array handles of earlier runtimes */
    int n_old;
    sl_rng old_rngs[STALE_MAX]; /* generator ids of earlier runtimes */
    int n_old_rngs;
    sl_rng dead_rngs[STALE_MAX]; /* destroyed generator ids */
    int n_dead_rngs;
    Shadow huge[2]; /* lazy arrays of huge shapes (c_huge_shapes) */
    Frame frames[FRAME_MAX];
    int n_frames;
    /* The macro section being recorded: its template, inputs (pool slots), rng. */
    int recording;
    int rec_template;
    int rec_inputs[4];
    int rec_n_in;
    double rec_ctrl[2];
    int rec_n_ctrl;
    int rec_rng;
    /* Error handlers this thread has pushed (only thread 0 pushes) and counts seen. */
    int site_set; /* a call site is named: failures must report it */
    char site_file[32];
    int site_line;
    Shared *shared;
    /* The log of recent calls. */
    char **log;
    int log_n, log_next;
    char line[1024];
    int line_len;
    int trace; /* print every call */
    int desync; /* a defect left the model unable to follow (--keep-going resyncs) */
    int epoch_begin;  /* the runtime epoch when the current call began */
    int epoch_seen;   /* the epoch this thread's pool belongs to */
    int restarted;    /* the current call overlapped a restart by another thread */
    volatile int done;
} Fuzzer;

/* Options and state shared by every thread. */
struct Shared {
    uint64_t seed;
    uint64_t max_calls;
    double seconds;
    int threads;
    int tolerate;
    char tolerate_letters[16];
    int keep_going;
    uint64_t memory_limit; /* 0: none */
    int vulkan;            /* the runtime runs on Vulkan */
    int handler_depth;     /* error handlers the fuzzer has pushed */
    int profiling;
    int running;           /* the model thinks a runtime is running */
    int config_trace_entries, config_macro_entries;
    int shutdown_cycles;   /* allowed (single thread or coordinated) */
    int huge_probes;
    uint64_t trace_from;   /* print calls from this number on */
    char tmpdir[256];
    int log_size;
    _Atomic int epoch; /* odd while thread 0 restarts the runtime under the others */
};

/* The shared pool, made by the main thread before the others start. */
#define SHARED_ARRAYS 6

/* ---- the call log ---- */
void log_begin(Fuzzer *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_more(Fuzzer *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_end(Fuzzer *f);
void log_dump(Fuzzer *f, FILE *out);

/* A broken promise: prints it with the seed, the call number and the log's tail, then
 * exits (or counts it with --keep-going). */
void broken(Fuzzer *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- expectations of one call ---- */
typedef struct {
    int problems;   /* bad arguments found; 0: the call must succeed */
    sl_status want; /* with exactly one problem, the status it must give */
    int maybe;      /* the model cannot tell whether it succeeds */
    int inner;      /* at most this many failed calls of its own (an applied function's), each running the handlers */
} Expect;

void ex_init(Expect *e);
void ex_bad(Expect *e, sl_status want);
void ex_bad_any(Expect *e); /* a problem whose status the model does not predict */

/* Sentinel the fuzzer stores in out-handles before a call. */
#define OUT_SENTINEL ((sl_array)0xA5A5A5A5DEADBEEFull)

/* Checks the status of a call made by function `fn`; `outs` are its out-handles.
 * Returns 1 when the call succeeded. */
int check_call(Fuzzer *f, const char *fn, sl_status st, const Expect *e, const sl_array *outs, int n_outs);
/* Checks that `h` is a live array of the shape and type of `s`. */
int check_output(Fuzzer *f, const char *fn, sl_array h, const Shadow *s);
/* Reads pool slot `slot` and compares with its model (values become observed). */
void check_read(Fuzzer *f, int slot, int peek);

/* ---- the pool ---- */
int pool_live(const Fuzzer *f, int slot);
int pool_pick(Fuzzer *f);              /* a live slot, -1 if none */
int pool_pick_small(Fuzzer *f, int64_t max_numel);
int pool_count(const Fuzzer *f);
/* Takes a new result: into a free slot (releasing one if full); huge results are
 * released at once. Returns the slot or -1. `s` is moved. */
int pool_add(Fuzzer *f, sl_array h, Shadow *s, int source);
void pool_release(Fuzzer *f, int slot, int checked); /* sl_release it (checked: a logged call) */
void pool_forget(Fuzzer *f, int slot);              /* the runtime released it (scope end) */
int pool_find(const Fuzzer *f, sl_array h);
void stale_add(Fuzzer *f, sl_array h);

/* An array handle argument: mostly a live slot (returned in *slot), sometimes a null,
 * stale, forged, wrong-generation, old-runtime or generator handle (*slot = -1). */
sl_array pick_handle(Fuzzer *f, int *slot, int valid_percent);
const char *handle_label(Fuzzer *f, sl_array h, char *buf, size_t n);

/* ---- argument generators ---- */
int gen_dtype(Fuzzer *f);                /* sometimes invalid */
int gen_valid_dtype(Fuzzer *f);
int gen_rank(Fuzzer *f);                 /* small, valid */
void gen_dims(Fuzzer *f, int rank, int64_t *dims, int64_t max_numel);
int64_t gen_extreme(Fuzzer *f);          /* 0, 1, -1, INT64_MIN, INT64_MAX, 2^32, 2^62, ... */
int64_t gen_offset(Fuzzer *f, int64_t n); /* mostly in range, sometimes extreme */
double gen_scalar(Fuzzer *f, int dt);    /* a value for dtype dt, sometimes not representable */
void gen_values(Fuzzer *f, Shadow *s);   /* fills s with values drawn from a palette */

/* ---- the calls ---- */
typedef void (*CallFn)(Fuzzer *f);

/* Executors with explicit arguments, used by generators and macro templates. Each
 * returns the new pool slot, or -1. */
int x_unary(Fuzzer *f, int op, int a_slot, sl_array a, int form);
int x_binary(Fuzzer *f, int op, int a_slot, sl_array a, int b_slot, sl_array b, int form);
int x_scalar_op(Fuzzer *f, int op, int a_slot, sl_array a, double s, int scalar_first, int form);
int x_reduce(Fuzzer *f, int op, int a_slot, sl_array a, int dim, int form);
int x_retain(Fuzzer *f, int a_slot, sl_array a);
int x_rotate(Fuzzer *f, int a_slot, sl_array a, int dim, int64_t offset);
int x_cast(Fuzzer *f, int a_slot, sl_array a, int dtype);
int x_random(Fuzzer *f, int rng_slot, sl_rng id, int normal, int dtype, int rank, const int64_t *dims);

void fuzz_step(Fuzzer *f);             /* one random call (or a short sequence) */
void c_complex(Fuzzer *f);             /* a short chain of complex calls, then a read */
int make_shared_array(Fuzzer *f);      /* main thread, before the others start */
void fuzz_recording_step(Fuzzer *f);   /* one call inside a macro recording */
void session_step(Fuzzer *f);          /* scopes, macros, handlers, settings, runtime */
void macro_record_or_replay(Fuzzer *f);
void macro_finish(Fuzzer *f);          /* ends (or cancels) the recording */
void runtime_cycle(Fuzzer *f);         /* sl_shutdown and a new runtime */
void runtime_start(Fuzzer *f);         /* sl_init with a random configuration */
void check_live_handles(Fuzzer *f);
void teardown(Fuzzer *f);              /* releases everything and checks for leftovers */
void huge_probe(Fuzzer *f);
void resync(Fuzzer *f);                /* starts over after a defect the model cannot follow */
void restart_under_threads(Fuzzer *f); /* thread 0: sl_shutdown and sl_init while others call */
void follow_restart(Fuzzer *f);        /* another thread restarted the runtime: forget handles */
void frame_push(Frame *fr, sl_array h);

/* Handler bookkeeping (thread-local counters the fuzzer's error handler bumps). */
extern _Thread_local uint64_t handler_calls;
extern _Thread_local sl_status handler_last_status;
int fuzz_error_handler(sl_status status, const sl_error_info *info, void *user);

#endif
