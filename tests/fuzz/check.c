/* The promises of every call, checked: a failed call returns a status, names itself and
 * a message in sl_last_error (with the call site the application named), runs the error
 * handlers once each, and leaves every out-handle null; a successful call returns live
 * outputs of the predicted shape and type; reads give the predicted values and touch
 * nothing beyond the bytes they need. Also the call log and the pool of handles. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the call log ---- */

static _Thread_local uint64_t handler_mark;

static void log_append(Fuzzer *f, const char *fmt, va_list ap) {
    int n = vsnprintf(f->line + f->line_len, sizeof f->line - (size_t)f->line_len, fmt, ap);
    if (n > 0) f->line_len += n;
    if (f->line_len >= (int)sizeof f->line) f->line_len = sizeof f->line - 1;
}

void log_begin(Fuzzer *f, const char *fmt, ...) {
    f->call++;
    f->epoch_begin = atomic_load(&f->shared->epoch);
    handler_mark = handler_calls;
    f->line_len = snprintf(f->line, sizeof f->line, "t%d #%llu ", f->tid, (unsigned long long)f->call);
    va_list ap;
    va_start(ap, fmt);
    log_append(f, fmt, ap);
    va_end(ap);
}

void log_more(Fuzzer *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    log_append(f, fmt, ap);
    va_end(ap);
}

void log_end(Fuzzer *f) {
    if (!f->log_n) return;
    snprintf(f->log[f->log_next], sizeof f->line, "%s", f->line);
    f->log_next = (f->log_next + 1) % f->log_n;
    if (f->trace || (f->shared->trace_from && f->call >= f->shared->trace_from)) {
        pthread_mutex_lock(&report_lock);
        printf("%s\n", f->line);
        fflush(stdout);
        pthread_mutex_unlock(&report_lock);
    }
}

void log_dump(Fuzzer *f, FILE *out) {
    fprintf(out, "--- the last calls of thread %d (oldest first) ---\n", f->tid);
    for (int k = 0; k < f->log_n; k++) {
        const char *l = f->log[(f->log_next + k) % f->log_n];
        if (l[0]) fprintf(out, "%s\n", l);
    }
    fprintf(out, "--- in progress: %s\n", f->line);
}

void broken(Fuzzer *f, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&report_lock);
    fprintf(stderr, "\nBROKEN PROMISE (seed %llu, thread %d, call %llu): %s\n", (unsigned long long)f->shared->seed, f->tid,
            (unsigned long long)f->call, msg);
    log_dump(f, stderr);
    fprintf(stderr, "reproduce: fuzz_api --seed %llu --threads %d --calls %llu%s%s (add --trace-from N to print calls)\n\n",
            (unsigned long long)f->shared->seed, f->shared->threads, (unsigned long long)f->call * (uint64_t)f->shared->threads,
            f->shared->tolerate ? " --tolerate " : "", f->shared->tolerate ? f->shared->tolerate_letters : "");
    fflush(stderr);
    pthread_mutex_unlock(&report_lock);
    f->failures++;
    if (!f->shared->keep_going || f->failures >= 1000) exit(1);
}

/* ---- expectations ---- */

void ex_init(Expect *e) { memset(e, 0, sizeof *e); }

void ex_bad(Expect *e, sl_status want) {
    e->problems++;
    e->want = want;
}

void ex_bad_any(Expect *e) {
    e->problems++;
    e->want = -1;
}

static const char *status_str(sl_status st) {
    static const char *names[] = {"OK", "INVALID_HANDLE", "INVALID_ARGUMENT", "SHAPE_MISMATCH", "DTYPE_MISMATCH", "OUT_OF_MEMORY",
                                  "NOT_SUPPORTED", "POISONED", "INVALID_STATE", "INTERNAL", "MISMATCH"};
    return st >= 0 && st <= SL_ERR_MISMATCH ? names[st] : "UNKNOWN";
}

/* Whether the current call overlapped a runtime restart by another thread: then any
 * clean outcome is right, and its results belong to no model. */
static int overlapped_restart(Fuzzer *f) {
    int now = atomic_load(&f->shared->epoch);
    if (now == f->epoch_begin && !(now & 1) && now == f->epoch_seen) return 0;
    f->restarted = 1;
    return 1;
}

int check_call(Fuzzer *f, const char *fn, sl_status st, const Expect *e, const sl_array *outs, int n_outs) {
    log_more(f, " -> %s", status_str(st));
    if (f->shared->threads > 1 && overlapped_restart(f)) {
        log_more(f, " [a restart overlapped]");
        for (int k = 0; k < n_outs && st == SL_OK; k++)
            if (outs[k] && outs[k] != OUT_SENTINEL) sl_release(outs[k]);
        return 0;
    }
    uint64_t handled = handler_calls - handler_mark;
    int single = f->shared->threads == 1;
    if (st != SL_OK) {
        sl_error_info info;
        if (sl_last_error(&info) != SL_OK) broken(f, "%s failed but sl_last_error failed too", fn);
        if (info.status != st) broken(f, "%s returned %s but sl_last_error says %s", fn, status_str(st), status_str(info.status));
        if (!info.message || !info.message[0]) broken(f, "%s failed (%s) without a message", fn, status_str(st));
        if (!info.function || strcmp(info.function, fn) != 0)
            broken(f, "%s failed but sl_last_error names the function %s", fn, info.function ? info.function : "NULL");
        if (f->site_set && (!info.call_file || strcmp(info.call_file, f->site_file) != 0 || info.call_line != f->site_line))
            broken(f, "%s failed at the named call site %s:%d, but the error says %s:%d", fn, f->site_file, f->site_line,
                   info.call_file ? info.call_file : "NULL", info.call_line);
        if (st < SL_ERR_INVALID_HANDLE || st > SL_ERR_MISMATCH) broken(f, "%s returned the unknown status %d", fn, st);
        uint64_t depth = (uint64_t)f->shared->handler_depth;
        int handled_ok = depth ? handled % depth == 0 && handled >= depth && handled / depth - 1 <= (uint64_t)e->inner : handled == 0;
        if (single && !handled_ok)
            broken(f, "%s failed; %d error handlers are pushed but %llu ran", fn, f->shared->handler_depth, (unsigned long long)handled);
        if (single && handled && handler_last_status != st)
            broken(f, "%s failed with %s but the error handler was given %s", fn, status_str(st), status_str(handler_last_status));
        for (int k = 0; k < n_outs; k++) {
            if (outs[k] == 0) continue;
            if (outs[k] == OUT_SENTINEL && (f->shared->tolerate & TOL_C)) continue;
            broken(f, "%s failed (%s: %s) but left out-handle %d as %#llx instead of the null handle", fn, status_str(st),
                   info.message ? info.message : "", k, (unsigned long long)outs[k]);
        }
        if (e->problems == 0 && !e->maybe) broken(f, "%s failed (%s) on valid arguments: %s", fn, status_str(st), info.message);
        if (e->problems == 1 && e->want >= 0 && !e->maybe && e->want != st)
            broken(f, "%s returned %s where %s was due: %s", fn, status_str(st), status_str(e->want), info.message);
        log_more(f, " (%.120s)", info.message ? info.message : "");
        return 0;
    }
    if (single && handled) broken(f, "%s succeeded but an error handler ran", fn);
    if (e->problems > 0) {
        broken(f, "%s accepted bad arguments (%d problem%s; %s was due)", fn, e->problems, e->problems > 1 ? "s" : "",
               e->problems == 1 && e->want >= 0 ? status_str(e->want) : "a refusal");
        for (int k = 0; k < n_outs; k++)
            if (outs[k] && outs[k] != OUT_SENTINEL) sl_release(outs[k]);
        return 0;
    }
    return 1;
}

int check_output(Fuzzer *f, const char *fn, sl_array h, const Shadow *s) {
    char want[160], got[160];
    if (h == 0 || h == OUT_SENTINEL) {
        broken(f, "%s succeeded without giving a handle (%#llx)", fn, (unsigned long long)h);
        return 0;
    }
    int32_t rank = -1;
    int64_t dims[SL_MAX_RANK] = {0}, numel = -1;
    sl_dtype dt = -1;
    if (sl_rank(h, &rank) || sl_shape(h, dims, SL_MAX_RANK) || sl_numel(h, &numel) || sl_get_dtype(h, &dt)) {
        sl_error_info info;
        sl_last_error(&info);
        if (f->shared->threads > 1 && overlapped_restart(f)) return 0;
        broken(f, "%s gave a handle the queries refuse: %s", fn, info.message);
        return 0;
    }
    shape_str(want, sizeof want, s->rank, s->dims);
    shape_str(got, sizeof got, rank, dims);
    log_more(f, " %s%s", dt_name(dt), got);
    if (rank != s->rank || memcmp(dims, s->dims, sizeof(int64_t) * (size_t)s->rank) != 0 || dt != s->dtype) {
        broken(f, "%s gave %s %s where the model says %s %s", fn, dt_name(dt), got, dt_name(s->dtype), want);
        return 0;
    }
    if (numel != s->numel) {
        broken(f, "%s gave shape %s but sl_numel says %lld (expected %lld)", fn, got, (long long)numel, (long long)s->numel);
        return 0;
    }
    return 1;
}

/* ---- reads ---- */

/* Column-major index of each element of a row-major buffer. */
static int64_t row_major_index(const Shadow *s, int64_t col) {
    int64_t c[SL_MAX_RANK];
    unravel(s->rank, s->dims, col, c);
    int64_t k = 0;
    for (int d = 0; d < s->rank; d++) k = k * s->dims[d] + c[d];
    return k;
}

/* The first elements of bytes read, for reports. */
static void describe_elems(const Shadow *s, const unsigned char *bytes, char *buf, size_t n) {
    Shadow got;
    sh_init(&got, s->dtype, s->rank, s->dims, 1);
    sh_from_bytes(&got, bytes);
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int64_t i = 0; i < got.numel && i < 12 && k < n; i++) {
        Val v = sh_get(&got, i);
        k += dt_float(s->dtype) ? (size_t)snprintf(buf + k, n - k, i ? ", %.9g" : "%.9g", v.f) : (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)v.i);
    }
    if (k < n) snprintf(buf + k, n - k, got.numel > 12 ? ", ...]" : "]");
    sh_free(&got);
}

void check_read(Fuzzer *f, int slot, int peek) {
    Arr *a = &f->pool[slot];
    Shadow *s = &a->s;
    size_t size = dt_size(s->dtype), need = (size_t)s->numel * size, extra = rand_pct(&f->r, 20) ? 24 : 0;
    int layout = rand_pct(&f->r, 25) ? SL_ROW_MAJOR : SL_COL_MAJOR;
    unsigned char *buf = malloc(need + 32), *col = malloc(need + 1);
    memset(buf, 0xCD, need + 32);
    const char *fn = peek ? "sl_debug_peek" : "sl_read";
    log_begin(f, "%s(a%d, %s, %zu bytes)", fn, a->label, layout == SL_ROW_MAJOR ? "row" : "col", need + extra);
    sl_status st = peek ? sl_debug_peek(a->h, layout, buf, need + extra) : sl_read(a->h, layout, buf, need + extra);
    Expect e;
    ex_init(&e);
    if (f->recording) ex_bad(&e, SL_ERR_INVALID_STATE);
    if (check_call(f, fn, st, &e, NULL, 0)) {
        for (size_t k = need; k < need + 32; k++)
            if (buf[k] != 0xCD) {
                broken(f, "%s of %zu bytes wrote byte %zu beyond them", fn, need, k);
                break;
            }
        if (layout == SL_ROW_MAJOR)
            for (int64_t i = 0; i < s->numel; i++) memcpy(col + i * (int64_t)size, buf + row_major_index(s, i) * (int64_t)size, size);
        else memcpy(col, buf, need);
        char why[256];
        if (sh_compare(s, col, why, sizeof why) >= 0) {
            char shape[160];
            shape_str(shape, sizeof shape, s->rank, s->dims);
            char got[400];
            describe_elems(s, col, got, sizeof got);
            broken(f, "%s of a%d (%s%s) differs from the model: %s; read %s", fn, a->label, dt_name(s->dtype), shape, why, got);
            sh_forget(s);
        } else if (!peek) {
            /* What Sluice computed is what later ops start from. */
            if (a->source) sh_from_bytes(s, col);
            else sh_observed(s, col);
        }
    }
    log_end(f);
    free(buf);
    free(col);
}

/* ---- the pool ---- */

void frame_push(Frame *fr, sl_array h) {
    if (fr->n == fr->cap) {
        fr->cap = fr->cap ? 2 * fr->cap : 64;
        fr->h = realloc(fr->h, (size_t)fr->cap * sizeof *fr->h);
    }
    fr->h[fr->n++] = h;
}

/* Records a new handle in the innermost scope frame, as Sluice does. */
static void register_handle(Fuzzer *f, sl_array h) {
    if (f->n_frames > 0) frame_push(&f->frames[f->n_frames - 1], h);
}

void pool_release(Fuzzer *f, int slot, int checked) {
    Arr *a = &f->pool[slot];
    if (checked) {
        log_begin(f, "sl_release(a%d)", a->label);
        Expect e;
        ex_init(&e);
        check_call(f, "sl_release", sl_release(a->h), &e, NULL, 0);
        log_end(f);
    } else if (sl_release(a->h) != SL_OK) {
        broken(f, "sl_release of the live a%d failed", a->label);
    }
    pool_forget(f, slot);
}

void pool_forget(Fuzzer *f, int slot) {
    Arr *a = &f->pool[slot];
    stale_add(f, a->h);
    sh_free(&a->s);
    memset(a, 0, sizeof *a);
}

int pool_add(Fuzzer *f, sl_array h, Shadow *s, int source) {
    register_handle(f, h);
    int huge_empty = 0;
    for (int d = 0; d < s->rank && (f->shared->tolerate & TOL_Z); d++) huge_empty |= s->numel == 0 && s->dims[d] > (1 << 16);
    if (s->numel > SHADOW_MAX_NUMEL || huge_empty) {
        /* Never computed: released at once (reading it would take the memory limit). */
        if (sl_release(h) != SL_OK) broken(f, "sl_release of a fresh large result failed");
        stale_add(f, h);
        sh_free(s);
        return -1;
    }
    int slot = -1;
    for (int i = 0; i < POOL_MAX && slot < 0; i++)
        if (!f->pool[i].h) slot = i;
    if (slot < 0) {
        slot = (int)rand_below(&f->r, POOL_MAX);
        /* Inside a recording, arrays the template still needs stay; shared ones too. */
        for (int tries = 0; tries < POOL_MAX; tries++) {
            int keep = f->pool[slot].shared;
            for (int k = 0; k < f->rec_n_in && f->recording; k++) keep |= f->rec_inputs[k] == slot;
            if (!keep) break;
            slot = (slot + 1) % POOL_MAX;
        }
        sl_release(f->pool[slot].h);
        pool_forget(f, slot);
    }
    Arr *a = &f->pool[slot];
    a->h = h;
    a->label = f->next_label++;
    a->s = *s;
    a->source = source;
    a->outside = 0;
    memset(s, 0, sizeof *s);
    log_more(f, " => a%d", a->label);
    return slot;
}

/* ---- error handlers ---- */

_Thread_local uint64_t handler_calls;
_Thread_local sl_status handler_last_status;

int fuzz_error_handler(sl_status status, const sl_error_info *info, void *user) {
    (void)info;
    (void)user;
    handler_calls++;
    handler_last_status = status;
    return 0;
}
