/* Calls about the session rather than arrays: scopes (begin, end, keep, unscope), macro sections
 * (recorded from templates the model can replay, with illegal calls inside), error
 * handlers, call sites, settings and statistics, profiling, shutting the runtime down and
 * starting a new one, the final teardown, and probes of results beyond the memory limit. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define COUNT(a) (int)(sizeof(a) / sizeof *(a))

static void no_problems(Expect *e) { ex_init(e); }

/* ---- scopes ---- */

static void frame_release_all(Fuzzer *f, Frame *fr, const sl_array *keep, int n_keep) {
    for (int i = 0; i < fr->n; i++) {
        int kept = 0;
        for (int k = 0; k < n_keep; k++) kept |= keep[k] == fr->h[i];
        if (kept) {
            if (f->n_frames >= 2) frame_push(&f->frames[f->n_frames - 2], fr->h[i]);
            continue;
        }
        int slot = pool_find(f, fr->h[i]);
        if (slot >= 0) pool_forget(f, slot);
    }
}

static void frame_pop(Fuzzer *f, const sl_array *keep, int n_keep) {
    Frame *fr = &f->frames[f->n_frames - 1];
    frame_release_all(f, fr, keep, n_keep);
    free(fr->h);
    memset(fr, 0, sizeof *fr);
    f->n_frames--;
}

static void s_scope(Fuzzer *f) {
    Expect e;
    no_problems(&e);
    uint64_t k = rand_below(&f->r, 100);
    if (k < 40 && f->n_frames < 8) {
        log_begin(f, "sl_scope_begin()");
        if (check_call(f, "sl_scope_begin", sl_scope_begin(), &e, NULL, 0)) {
            memset(&f->frames[f->n_frames], 0, sizeof(Frame));
            f->n_frames++;
        }
    } else if (k < 80) {
        if (f->n_frames == 0) ex_bad(&e, SL_ERR_INVALID_STATE);
        log_begin(f, "sl_scope_end()");
        if (check_call(f, "sl_scope_end", sl_scope_end(), &e, NULL, 0)) frame_pop(f, NULL, 0);
    } else if (k < 90) {
        /* sl_unscope: out of every frame at once (in no frame: nothing to do). */
        int slot;
        sl_array h = pick_handle(f, &slot, 90);
        char lb[40];
        if (slot < 0) ex_bad(&e, SL_ERR_INVALID_HANDLE);
        if (f->recording) ex_bad(&e, SL_ERR_INVALID_STATE);
        log_begin(f, "sl_unscope(%s)", handle_label(f, h, lb, sizeof lb));
        if (check_call(f, "sl_unscope", sl_unscope(h), &e, NULL, 0) && slot >= 0) {
            for (int d = 0; d < f->n_frames; d++) {
                Frame *fr = &f->frames[d];
                int kept = 0;
                for (int i = 0; i < fr->n; i++)
                    if (fr->h[i] != h) fr->h[kept++] = fr->h[i];
                fr->n = kept;
            }
        }
    } else {
        int slot;
        sl_array h = pick_handle(f, &slot, 90);
        char lb[40];
        if (slot < 0) ex_bad(&e, SL_ERR_INVALID_HANDLE);
        else if (f->n_frames == 0) ex_bad(&e, SL_ERR_INVALID_STATE);
        int pos = -1;
        if (slot >= 0 && f->n_frames > 0) {
            Frame *top = &f->frames[f->n_frames - 1];
            for (int i = top->n - 1; i >= 0 && pos < 0; i--)
                if (top->h[i] == h) pos = i;
            if (pos < 0) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
        }
        log_begin(f, "sl_keep(%s)", handle_label(f, h, lb, sizeof lb));
        if (check_call(f, "sl_keep", sl_keep(h), &e, NULL, 0) && pos >= 0) {
            Frame *top = &f->frames[f->n_frames - 1];
            memmove(top->h + pos, top->h + pos + 1, (size_t)(top->n - pos - 1) * sizeof *top->h);
            top->n--;
            if (f->n_frames >= 2) frame_push(&f->frames[f->n_frames - 2], h);
        }
    }
    log_end(f);
}

/* ---- macro sections ---- */

/* The templates: small section bodies the model can evaluate on any inputs, so a replay's
 * outputs are predicted like a recording's. */
enum { T_AXPX, T_SUM, T_PASS_NEG, T_ADD_OR_SUB, T_RANDOM, T_ROTATE, N_TEMPLATES };
static const int template_inputs[N_TEMPLATES] = {1, 1, 1, 2, 1, 1};
static const int template_outputs[N_TEMPLATES] = {1, 1, 2, 1, 1, 1};

static int template_accepts(Fuzzer *f, int t, const int *in) {
    const Shadow *a = &f->pool[in[0]].s;
    switch (t) {
    case T_AXPX:
    case T_SUM:
    case T_PASS_NEG:
        return a->dtype != SL_BOOL;
    case T_ADD_OR_SUB: {
        const Shadow *b = &f->pool[in[1]].s;
        int r;
        int64_t d[SL_MAX_RANK];
        return a->dtype == b->dtype && a->dtype != SL_BOOL && broadcast_shapes(a->rank, a->dims, b->rank, b->dims, &r, d);
    }
    case T_RANDOM:
        return f->rec_rng >= 0;
    default:
        return a->rank >= 1;
    }
}

/* The model of a template: outputs from input shadows (sh_init'ed here). */
static void template_model(Fuzzer *f, int t, const Shadow *const *in, const double *ctrl, Shadow *out) {
    const Shadow *a = in[0];
    int64_t none[1] = {0};
    Shadow c, tmp;
    switch (t) {
    case T_AXPX: {
        /* The control value is a weak double scalar: an integer `a` gives f64. */
        int t = weak_float_type(a->dtype);
        sh_init(&c, t, 0, none, 1);
        sh_put(&c, 0, scalar_val(t, ctrl[0]));
        sh_init(&tmp, t, a->rank, a->dims, a->known);
        sv_binary_as(SL_MUL, a, &c, t, &tmp);
        sh_init(&out[0], t, a->rank, a->dims, a->known);
        sv_binary_as(SL_ADD, &tmp, a, t, &out[0]);
        sh_free(&c);
        sh_free(&tmp);
        break;
    }
    case T_SUM:
        sh_init(&out[0], reduce_result(SL_SUM, a->dtype), 0, none, a->known);
        sv_reduce(SL_SUM, a, -1, &out[0]);
        break;
    case T_PASS_NEG:
        sh_copy(&out[0], a);
        sh_init(&out[1], a->dtype, a->rank, a->dims, a->known);
        sv_unary(SL_NEG, a, &out[1]);
        break;
    case T_ADD_OR_SUB: {
        int r;
        int64_t d[SL_MAX_RANK];
        broadcast_shapes(a->rank, a->dims, in[1]->rank, in[1]->dims, &r, d);
        sh_init(&out[0], a->dtype, r, d, a->known && in[1]->known);
        sv_binary(ctrl[0] > 0 ? SL_ADD : SL_SUB, a, in[1], &out[0]);
        break;
    }
    case T_RANDOM:
        sh_init(&out[0], SL_F32, a->rank, a->dims, 0);
        break;
    default: {
        int64_t off[SL_MAX_RANK] = {0};
        off[0] = (int64_t)ctrl[0];
        sh_init(&out[0], a->dtype, a->rank, a->dims, a->known);
        sv_offset(a, off, SL_BOUNDARY_WRAP, scalar_val(a->dtype, 0), &out[0]);
        break;
    }
    }
    (void)f;
}

/* A few calls made inside the recording between the template's steps. */
static void interleave(Fuzzer *f) {
    while (rand_pct(&f->r, 25)) fuzz_recording_step(f);
}

/* Whether pool slot `slot` still holds handle `h` (interleaved calls may release it). */
static int holds(Fuzzer *f, int slot, sl_array h) { return slot >= 0 && f->pool[slot].h == h; }

/* Records the template's body with the API; outputs into `outs` (pool slots). Returns 0
 * when a step failed or interleaved calls released what the body needs. */
static int template_record(Fuzzer *f, int t, const int *in, const sl_array *hin, const double *ctrl, int *outs) {
    int a = in[0];
    switch (t) {
    case T_AXPX: {
        int m = x_scalar_op(f, SL_MUL, a, hin[0], ctrl[0], 0, 0);
        sl_array hm = m >= 0 ? f->pool[m].h : 0;
        interleave(f);
        if (!holds(f, m, hm) || !holds(f, a, hin[0])) return 0;
        outs[0] = x_binary(f, SL_ADD, m, hm, a, hin[0], 0);
        return outs[0] >= 0;
    }
    case T_SUM:
        outs[0] = x_reduce(f, SL_SUM, a, hin[0], SL_ALL_DIMS, 0);
        return outs[0] >= 0;
    case T_PASS_NEG: {
        outs[0] = x_retain(f, a, hin[0]);
        sl_array h0 = outs[0] >= 0 ? f->pool[outs[0]].h : 0;
        interleave(f);
        if (!holds(f, outs[0], h0) || !holds(f, a, hin[0])) return 0;
        outs[1] = x_unary(f, SL_NEG, a, hin[0], 0);
        return outs[1] >= 0 && holds(f, outs[0], h0);
    }
    case T_ADD_OR_SUB:
        outs[0] = x_binary(f, ctrl[0] > 0 ? SL_ADD : SL_SUB, a, hin[0], in[1], hin[1], 0);
        return outs[0] >= 0;
    case T_RANDOM: {
        const Shadow *s = &f->pool[a].s;
        int rs = f->rec_rng;
        int r = x_random(f, rs, f->rngs[rs].id, 0, SL_F32, s->rank, s->dims);
        sl_array hr = r >= 0 ? f->pool[r].h : 0;
        interleave(f);
        if (!holds(f, r, hr) || !holds(f, a, hin[0])) return 0;
        int c = x_cast(f, a, hin[0], SL_F32);
        sl_array hc = c >= 0 ? f->pool[c].h : 0;
        if (c < 0 || !holds(f, r, hr)) return 0;
        outs[0] = x_binary(f, SL_ADD, c, hc, r, hr, 0);
        return outs[0] >= 0;
    }
    default:
        outs[0] = x_rotate(f, a, hin[0], 0, (int64_t)ctrl[0]);
        return outs[0] >= 0;
    }
}

/* Closes the model's view of the section: the section frame ends, `kept` outputs move
 * to the enclosing frame, everything else the section made is released. */
static void close_section(Fuzzer *f, const sl_array *kept, int n_kept) {
    if (f->n_frames > 0 && f->frames[f->n_frames - 1].macro) frame_pop(f, kept, n_kept);
    f->recording = 0;
    for (int i = 0; i < POOL_MAX; i++) f->pool[i].outside = 0;
}

/* Bad arguments to sl_macro_begin: it must fail and leave every output null. */
static void macro_begin_bad(Fuzzer *f, const char *name, const sl_array *in, int n_in, const double *ctrl, int n_ctrl, int n_out) {
    Expect e;
    ex_init(&e);
    sl_array outs[4] = {OUT_SENTINEL, OUT_SENTINEL, OUT_SENTINEL, OUT_SENTINEL};
    sl_macro_mode mode = 77;
    sl_array bad_in[4];
    memcpy(bad_in, in, sizeof bad_in);
    const sl_array *ip = in;
    const double *cp = ctrl;
    sl_array *op = outs;
    sl_macro_mode *mp = &mode;
    const char *np = name;
    static const char not_utf8[] = {'f', 'z', (char)0xC3, (char)0x28, 0};
    switch (rand_below(&f->r, 7)) {
    case 0:
        np = NULL;
        break;
    case 1:
        mp = NULL;
        break;
    case 2:
        n_out = -1;
        break;
    case 3:
        op = NULL;
        break;
    case 4: {
        int s;
        do bad_in[0] = pick_handle(f, &s, 0);
        while (s >= 0);
        ip = bad_in;
        e.problems++;
        e.want = SL_ERR_INVALID_HANDLE;
        break;
    }
    case 5:
        if (n_ctrl > 0) cp = NULL;
        else ip = NULL, n_in = n_in ? n_in : 1;
        break;
    default:
        np = not_utf8;
        break;
    }
    if (!e.problems) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
    log_begin(f, "sl_macro_begin(%s, in %d%s, ctrl %d%s, out %d%s%s) [bad]", np ? (np == not_utf8 ? "not-utf8" : np) : "NULL", n_in, ip ? "" : " NULL",
              n_ctrl, cp ? "" : " NULL", n_out, op ? "" : " NULL", mp ? "" : ", NULL mode");
    sl_status st = sl_macro_begin(np, ip, n_in, cp, n_ctrl, op, n_out, mp);
    if (st == SL_OK && mode == SL_MACRO_RECORD) {
        check_call(f, "sl_macro_begin", st, &e, NULL, 0);
        sl_macro_cancel();
    } else {
        check_call(f, "sl_macro_begin", st, &e, op && n_out > 0 ? outs : NULL, op && n_out > 0 ? n_out : 0);
    }
    log_end(f);
}

void macro_record_or_replay(Fuzzer *f) {
    int t = (int)rand_below(&f->r, N_TEMPLATES), in[2] = {-1, -1};
    f->rec_rng = -1;
    for (int i = 0; i < RNG_MAX; i++)
        if (f->rngs[i].id) f->rec_rng = i;
    for (int k = 0; k < template_inputs[t]; k++) {
        in[k] = pool_pick_small(f, 256);
        if (in[k] < 0) return;
    }
    if (t == T_ADD_OR_SUB) {
        /* a partner of the same type that broadcasts */
        for (int i = 0; i < POOL_MAX; i++) {
            const Shadow *a = &f->pool[in[0]].s, *b = &f->pool[i].s;
            int r;
            int64_t d[SL_MAX_RANK];
            if (f->pool[i].h && b->dtype == a->dtype && b->numel <= 256 && broadcast_shapes(a->rank, a->dims, b->rank, b->dims, &r, d) && rand_pct(&f->r, 50))
                in[1] = i;
        }
    }
    if (!template_accepts(f, t, in)) return;
    int n_in = template_inputs[t], n_out = template_outputs[t], n_ctrl = t == T_AXPX || t == T_ADD_OR_SUB || t == T_ROTATE;
    double ctrl[1] = {(double)((int64_t)rand_below(&f->r, 7) - 3)};
    char name[32];
    /* A recorded section draws from the generator it was recorded with: the name says which. */
    /* Each thread records its own sections (one key cannot be recorded on two at once). */
    if (t == T_RANDOM) snprintf(name, sizeof name, "fz%d.t%d.r%d", f->tid, t, f->rngs[f->rec_rng].label);
    else snprintf(name, sizeof name, "fz%d.t%d", f->tid, t);
    sl_array hin[4] = {0, 0, 0, 0};
    for (int k = 0; k < n_in; k++) hin[k] = f->pool[in[k]].h;
    /* Whether a section replays depends on whether its inputs' flush has finished (the
     * key holds their layouts): one thread reads them first, so a seed replays exactly. */
    for (int k = 0; k < n_in && f->shared->threads == 1; k++) {
        check_read(f, in[k], 0);
        if (!pool_live(f, in[k]) || f->pool[in[k]].h != hin[k]) return;
    }
    if (rand_pct(&f->r, 5)) {
        macro_begin_bad(f, name, hin, n_in, ctrl, n_ctrl, n_out);
        return;
    }
    sl_array outs[2] = {OUT_SENTINEL, OUT_SENTINEL};
    sl_macro_mode mode = 77;
    Expect e;
    ex_init(&e);
    log_begin(f, "sl_macro_begin(\"%s\", [a%d%s], ctrl %g, %d outputs)", name, f->pool[in[0]].label, n_in > 1 ? ", ..." : "", ctrl[0], n_out);
    sl_status st = sl_macro_begin(name, hin, n_in, ctrl, n_ctrl, outs, n_out, &mode);
    if (!check_call(f, "sl_macro_begin", st, &e, outs, n_out)) {
        log_end(f);
        return;
    }
    log_more(f, " %s", mode == SL_MACRO_RECORD ? "RECORD" : mode == SL_MACRO_REPLAY ? "REPLAY" : "bad mode");
    const Shadow *ins[2] = {&f->pool[in[0]].s, in[1] >= 0 ? &f->pool[in[1]].s : NULL};
    if (mode == SL_MACRO_REPLAY) {
        Shadow pred[2];
        memset(pred, 0, sizeof pred);
        template_model(f, t, ins, ctrl, pred);
        if (t == T_RANDOM) f->rngs[f->rec_rng].draw++;
        for (int k = 0; k < n_out; k++) {
            int source = t == T_PASS_NEG && k == 0 ? f->pool[in[0]].source : 1; /* a passed-through input is itself */
            if (check_output(f, "sl_macro_begin", outs[k], &pred[k])) pool_add(f, outs[k], &pred[k], source);
            else sl_release(outs[k]);
            sh_free(&pred[k]);
        }
        log_end(f);
        return;
    }
    if (mode != SL_MACRO_RECORD) {
        broken(f, "sl_macro_begin set the mode to %d", mode);
        log_end(f);
        return;
    }
    for (int k = 0; k < n_out; k++)
        if (outs[k] != 0) broken(f, "sl_macro_begin in record mode left output %d as %#llx", k, (unsigned long long)outs[k]);
    log_end(f);

    /* Recording: the section has a scope of its own; arrays from before it are outside. */
    f->recording = 1;
    f->rec_template = t;
    f->rec_n_in = n_in;
    memcpy(f->rec_inputs, in, sizeof in);
    if (f->n_frames < FRAME_MAX) {
        memset(&f->frames[f->n_frames], 0, sizeof(Frame));
        f->frames[f->n_frames++].macro = 1;
    }
    for (int i = 0; i < POOL_MAX; i++) f->pool[i].outside = f->pool[i].h && i != in[0] && i != in[1];

    /* A stray sl_scope_end: the section's own scope is not the application's to end. */
    if (!(f->shared->tolerate & TOL_E) && rand_pct(&f->r, 5)) {
        Expect se;
        ex_init(&se);
        ex_bad(&se, SL_ERR_INVALID_STATE);
        log_begin(f, "sl_scope_end() [inside the recording, no scope of its own]");
        sl_status sst = sl_scope_end();
        check_call(f, "sl_scope_end", sst, &se, NULL, 0);
        log_end(f);
        if (sst == SL_OK) { /* the model cannot follow: start over */
            f->desync = 1;
            return;
        }
    }
    /* A nested begin of the same section is refused. */
    if (rand_pct(&f->r, 3)) {
        Expect ne;
        ex_init(&ne);
        ex_bad(&ne, SL_ERR_INVALID_STATE);
        sl_array nouts[2] = {OUT_SENTINEL, OUT_SENTINEL};
        sl_macro_mode nm;
        log_begin(f, "sl_macro_begin(\"%s\") [the same section again, inside it]", name);
        check_call(f, "sl_macro_begin", sl_macro_begin(name, hin, n_in, ctrl, n_ctrl, nouts, n_out, &nm), &ne, nouts, n_out);
        log_end(f);
    }
    interleave(f);
    int out_slots[2] = {-1, -1};
    int ok = holds(f, in[0], hin[0]) && (n_in < 2 || holds(f, in[1], hin[1])) && template_record(f, t, in, hin, ctrl, out_slots);
    sl_array done[2] = {0, 0};
    for (int k = 0; k < n_out && ok; k++) {
        ok = !f->pool[out_slots[k]].outside;
        done[k] = f->pool[out_slots[k]].h;
    }
    interleave(f);
    for (int k = 0; k < n_out && ok; k++) ok = holds(f, out_slots[k], done[k]);
    Expect ee;
    ex_init(&ee);
    if (!ok || rand_pct(&f->r, 8)) {
        log_begin(f, "sl_macro_cancel()");
        check_call(f, "sl_macro_cancel", sl_macro_cancel(), &ee, NULL, 0);
        log_end(f);
        close_section(f, NULL, 0);
        return;
    }
    int given = n_out;
    if (rand_pct(&f->r, 3)) {
        given = n_out == 1 ? 2 : 1;
        if (given == 2) done[1] = done[0];
        ex_bad(&ee, SL_ERR_INVALID_ARGUMENT);
    }
    log_begin(f, "sl_macro_end([a%d%s], %d)", f->pool[out_slots[0]].label, given > 1 ? ", .." : "", given);
    check_call(f, "sl_macro_end", sl_macro_end(done, given), &ee, NULL, 0);
    log_end(f);
    close_section(f, done, given);
}

/* ---- error handlers and call sites ---- */

static void s_handlers(Fuzzer *f) {
    Expect e;
    no_problems(&e);
    Shared *sh = f->shared;
    if (f->tid != 0) return; /* the handler stack is global: one thread changes it */
    if (rand_pct(&f->r, 50) && sh->handler_depth < 3) {
        int null = rand_pct(&f->r, 5);
        if (null) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
        log_begin(f, "sl_push_error_handler(%s)", null ? "NULL" : "counter");
        if (check_call(f, "sl_push_error_handler", sl_push_error_handler(null ? NULL : fuzz_error_handler, NULL), &e, NULL, 0)) sh->handler_depth++;
    } else {
        if (sh->handler_depth == 0) ex_bad(&e, SL_ERR_INVALID_STATE);
        log_begin(f, "sl_pop_error_handler()");
        /* The handler being popped may run for this call's own failure. */
        if (check_call(f, "sl_pop_error_handler", sl_pop_error_handler(), &e, NULL, 0)) sh->handler_depth--;
    }
    log_end(f);
}

static void s_call_site(Fuzzer *f) {
    Expect e;
    no_problems(&e);
    uint64_t k = rand_below(&f->r, 10);
    if (k < 4) {
        const char *file = k < 2 ? NULL : "";
        log_begin(f, "sl_set_call_site(%s, 0)", file ? "\"\"" : "NULL");
        /* The site is the thread's: a restart by another thread does not change it. */
        sl_status st = sl_set_call_site(file, 0);
        check_call(f, "sl_set_call_site", st, &e, NULL, 0);
        if (st == SL_OK) f->site_set = 0;
    } else {
        int line = k < 9 ? (int)rand_below(&f->r, 5000) : -1 - (int)rand_below(&f->r, 10);
        if (line < 0) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
        char file[32];
        snprintf(file, sizeof file, "fuzz_site_%d.c", (int)rand_below(&f->r, 10));
        log_begin(f, "sl_set_call_site(\"%s\", %d)", file, line);
        sl_status st = sl_set_call_site(file, line);
        check_call(f, "sl_set_call_site", st, &e, NULL, 0);
        if (st == SL_OK) {
            f->site_set = 1;
            snprintf(f->site_file, sizeof f->site_file, "%s", file);
            f->site_line = line;
        }
    }
    log_end(f);
}

/* ---- settings, statistics and information ---- */

void check_live_handles(Fuzzer *f) {
    if (f->shared->threads != 1) return;
    int64_t n = -1;
    Expect e;
    no_problems(&e);
    log_begin(f, "sl_live_handles()");
    if (check_call(f, "sl_live_handles", sl_live_handles(&n), &e, NULL, 0) && n != pool_count(f))
        broken(f, "sl_live_handles says %lld; the fuzzer holds %d handles", (long long)n, pool_count(f));
    log_end(f);
}

static void s_info(Fuzzer *f) {
    Expect e;
    no_problems(&e);
    int null = rand_pct(&f->r, 5);
    if (null) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
    switch (rand_below(&f->r, 9)) {
    case 0: {
        sl_stats s;
        log_begin(f, "sl_get_stats(%s)", null ? "NULL" : "&s");
        if (check_call(f, "sl_get_stats", sl_get_stats(null ? NULL : &s), &e, NULL, 0)) {
            if (s.peak_live_bytes < s.live_bytes) broken(f, "sl_stats: peak_live_bytes %llu < live_bytes %llu", (unsigned long long)s.peak_live_bytes, (unsigned long long)s.live_bytes);
            if (f->shared->threads == 1 && s.live_handles != (uint64_t)pool_count(f))
                broken(f, "sl_stats.live_handles is %llu; the fuzzer holds %d handles", (unsigned long long)s.live_handles, pool_count(f));
            if (f->shared->memory_limit && s.live_bytes > f->shared->memory_limit)
                broken(f, "sl_stats.live_bytes %llu exceeds the memory limit %llu", (unsigned long long)s.live_bytes, (unsigned long long)f->shared->memory_limit);
        }
        break;
    }
    case 1:
        if (null) {
            log_begin(f, "sl_live_handles(NULL)");
            check_call(f, "sl_live_handles", sl_live_handles(NULL), &e, NULL, 0);
        } else {
            check_live_handles(f);
            return;
        }
        break;
    case 2: {
        sl_device_info d;
        memset(&d, 0x7F, sizeof d);
        log_begin(f, "sl_get_device_info(%s)", null ? "NULL" : "&d");
        if (check_call(f, "sl_get_device_info", sl_get_device_info(null ? NULL : &d), &e, NULL, 0)) {
            int want = f->shared->vulkan ? SL_BACKEND_VULKAN : SL_BACKEND_CPU;
            if (d.backend != want) broken(f, "sl_get_device_info says backend %d, expected %d", d.backend, want);
            if (!memchr(d.name, 0, sizeof d.name) || !memchr(d.reason, 0, sizeof d.reason)) broken(f, "sl_get_device_info: strings not NUL-terminated");
        }
        break;
    }
    case 3: {
        int which = rand_pct(&f->r, 95) ? (int)rand_below(&f->r, 3) : (rand_pct(&f->r, 50) ? 3 : -1);
        if (which < 0 || which > SL_CACHE_PROGRAM) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
        sl_cache_stats c;
        log_begin(f, "sl_get_cache_stats(%d, %s)", which, null ? "NULL" : "&c");
        if (check_call(f, "sl_get_cache_stats", sl_get_cache_stats(which, null ? NULL : &c), &e, NULL, 0)) {
            /* The program cache's room is an environment setting the fuzzer does not choose. */
            int cap = which == SL_CACHE_TRACE ? f->shared->config_trace_entries : which == SL_CACHE_MACRO ? f->shared->config_macro_entries : -1;
            if (which == SL_CACHE_PROGRAM && !f->shared->vulkan && (c.lookups || c.entries))
                broken(f, "the program cache counts %llu lookups and %llu entries on the CPU executor", (unsigned long long)c.lookups, (unsigned long long)c.entries);
            if (c.hits > c.lookups || c.misses > c.lookups) broken(f, "cache %d: %llu hits and %llu misses of %llu lookups", which, (unsigned long long)c.hits, (unsigned long long)c.misses, (unsigned long long)c.lookups);
            if (cap >= 0 && c.entries > (uint64_t)cap) broken(f, "cache %d holds %llu entries; it was given room for %d", which, (unsigned long long)c.entries, cap);
        }
        break;
    }
    case 4: {
        int32_t v[3] = {-1, -1, -1};
        log_begin(f, "sl_version()");
        no_problems(&e);
        if (check_call(f, "sl_version", sl_version(&v[0], rand_pct(&f->r, 20) ? NULL : &v[1], &v[2]), &e, NULL, 0) &&
            (v[0] != SL_VERSION_MAJOR || v[2] != SL_VERSION_PATCH))
            broken(f, "sl_version says %d.%d.%d", v[0], v[1], v[2]);
        break;
    }
    case 5: {
        static const char *names[] = {"SL_OK", "SL_ERR_INVALID_HANDLE", "SL_ERR_INVALID_ARGUMENT", "SL_ERR_SHAPE_MISMATCH", "SL_ERR_DTYPE_MISMATCH", "SL_ERR_OUT_OF_MEMORY",
                                      "SL_ERR_NOT_SUPPORTED", "SL_ERR_POISONED", "SL_ERR_INVALID_STATE", "SL_ERR_INTERNAL", "SL_ERR_MISMATCH", "SL_ERR_SINGULAR"};
        const int known = (int)(sizeof names / sizeof names[0]);
        int s = (int)rand_below(&f->r, known + 4) - 2;
        const char *name = NULL;
        log_begin(f, "sl_status_name(%d)", s);
        if (check_call(f, "sl_status_name", sl_status_name(s, null ? NULL : &name), &e, NULL, 0)) {
            const char *want = s >= 0 && s < known ? names[s] : "unknown status";
            if (!name || strcmp(name, want) != 0) broken(f, "sl_status_name(%d) is \"%s\"", s, name ? name : "NULL");
        }
        break;
    }
    case 6: {
        sl_config c;
        memset(&c, 0x5A, sizeof c);
        log_begin(f, "sl_config_default(%s)", null ? "NULL" : "&c");
        if (check_call(f, "sl_config_default", sl_config_default(null ? NULL : &c), &e, NULL, 0) &&
            (c.threads != 0 || c.memory_limit != 0 || c.fusion >= 0 || c.queue_limit != 0 || c.trace_cache_entries >= 0 || c.macro_cache_entries >= 0 ||
             c.backend != SL_BACKEND_DEFAULT))
            broken(f, "sl_config_default does not ask for the defaults");
        break;
    }
    case 7: { /* result comparison: settings are checked; comparison itself stays off */
        sl_compare_settings s = {SL_COMPARE_OFF, (int)rand_below(&f->r, 3), rand_pct(&f->r, 50) ? -1 : rand_unit(&f->r), rand_pct(&f->r, 50) ? -1 : rand_unit(&f->r)};
        uint64_t k = rand_below(&f->r, 10);
        if (k == 0) s.mode = 3 + (int)rand_below(&f->r, 5);
        else if (k == 1) s.action = -1;
        else if (k == 2) s.abs_tol = NAN;
        if (k < 3) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
        log_begin(f, "sl_set_compare(mode %d, action %d, %g, %g%s)", s.mode, s.action, s.abs_tol, s.rel_tol, null ? ", NULL" : "");
        /* The settings are the process's: with other threads setting them too, what is read
         * back may be theirs. */
        if (check_call(f, "sl_set_compare", sl_set_compare(null ? NULL : &s), &e, NULL, 0) && f->shared->threads == 1) {
            sl_compare_settings g;
            if (sl_get_compare(&g) != SL_OK || g.mode != s.mode || g.action != s.action || g.abs_tol != (s.abs_tol >= 0 ? s.abs_tol : -1) ||
                g.rel_tol != (s.rel_tol >= 0 ? s.rel_tol : -1))
                broken(f, "sl_get_compare does not give back what sl_set_compare set");
        }
        break;
    }
    default: {
        sl_compare_stats c;
        log_begin(f, "sl_get_compare_stats(%s)", null ? "NULL" : "&c");
        if (check_call(f, "sl_get_compare_stats", sl_get_compare_stats(null ? NULL : &c), &e, NULL, 0) && c.mismatches > c.values_checked)
            broken(f, "sl_get_compare_stats: more mismatches than values checked");
        break;
    }
    }
    log_end(f);
}

/* sl_init while a runtime runs; sl_last_error(NULL). */
static void s_init_misuse(Fuzzer *f) {
    Expect e;
    no_problems(&e);
    if (rand_pct(&f->r, 30)) {
        log_begin(f, "sl_last_error(NULL)");
        sl_status st = sl_last_error(NULL);
        if (st != SL_ERR_INVALID_ARGUMENT) broken(f, "sl_last_error(NULL) returned %d", st);
        log_end(f);
        return;
    }
    sl_config c;
    sl_config_default(&c);
    uint64_t k = rand_below(&f->r, 4);
    if (k == 0) c.fusion = 2 + (int)rand_below(&f->r, 5);
    else if (k == 1) c.backend = 4 + (int)rand_below(&f->r, 5);
    if (k < 2) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
    else ex_bad(&e, SL_ERR_INVALID_STATE);
    int null = k == 3;
    log_begin(f, "sl_init(%s) [while running]", null ? "NULL" : "config");
    check_call(f, "sl_init", sl_init(null ? NULL : &c), &e, NULL, 0);
    log_end(f);
}

static void s_profile(Fuzzer *f) {
    if (f->tid != 0) return; /* profiling is global */
    Expect e;
    no_problems(&e);
    Shared *sh = f->shared;
    if (rand_pct(&f->r, 50)) {
        char path[300];
        uint64_t k = rand_below(&f->r, 10);
        const char *p = path;
        if (k == 0) p = NULL;
        else if (k == 1) snprintf(path, sizeof path, "/nonexistent-dir/profile");
        else snprintf(path, sizeof path, "%s/profile-%d", sh->tmpdir, f->tid);
        if (k < 2) ex_bad(&e, SL_ERR_INVALID_ARGUMENT);
        if (sh->profiling) ex_bad(&e, SL_ERR_INVALID_STATE);
        log_begin(f, "sl_profile_begin(%s)", p ? p : "NULL");
        if (check_call(f, "sl_profile_begin", sl_profile_begin(p), &e, NULL, 0)) sh->profiling = 1;
    } else {
        if (!sh->profiling) ex_bad(&e, SL_ERR_INVALID_STATE);
        log_begin(f, "sl_profile_end()");
        if (check_call(f, "sl_profile_end", sl_profile_end(), &e, NULL, 0)) sh->profiling = 0;
    }
    log_end(f);
}

/* ---- runtime lifecycle ---- */

void runtime_start(Fuzzer *f) {
    Shared *sh = f->shared;
    sl_config c;
    sl_config_default(&c);
    c.memory_limit = sh->memory_limit;
    c.threads = (int)rand_below(&f->r, 4);
    c.fusion = (int)rand_below(&f->r, 3) - 1;
    static const int queue[] = {0, 0, 1, 7, 64, 1024};
    c.queue_limit = queue[rand_below(&f->r, COUNT(queue))];
    static const int entries[] = {-1, -1, 0, 1, 4};
    c.trace_cache_entries = entries[rand_below(&f->r, COUNT(entries))];
    c.macro_cache_entries = entries[rand_below(&f->r, COUNT(entries))];
    sh->config_trace_entries = c.trace_cache_entries;
    sh->config_macro_entries = c.macro_cache_entries;
    Expect e;
    no_problems(&e);
    log_begin(f, "sl_init(threads %d, memory %llu, fusion %d, queue %d, trace cache %d, macro cache %d)", c.threads, (unsigned long long)c.memory_limit, c.fusion,
              c.queue_limit, c.trace_cache_entries, c.macro_cache_entries);
    check_call(f, "sl_init", sl_init(&c), &e, NULL, 0);
    log_end(f);
    sh->running = 1;
}

/* Moves every handle of this thread to the list of an earlier runtime's. */
static void forget_runtime(Fuzzer *f) {
    for (int i = 0; i < POOL_MAX; i++) {
        if (!f->pool[i].h) continue;
        if (f->n_old < STALE_MAX) f->old[f->n_old++] = f->pool[i].h;
        else f->old[rand_below(&f->r, STALE_MAX)] = f->pool[i].h;
        sh_free(&f->pool[i].s);
        memset(&f->pool[i], 0, sizeof f->pool[i]);
    }
    for (int i = 0; i < RNG_MAX + f->n_dead_rngs; i++) {
        sl_rng id = i < RNG_MAX ? f->rngs[i].id : f->dead_rngs[i - RNG_MAX];
        if (!id) continue;
        if (f->n_old_rngs < STALE_MAX) f->old_rngs[f->n_old_rngs++] = id;
        else f->old_rngs[rand_below(&f->r, STALE_MAX)] = id;
        if (i < RNG_MAX) f->rngs[i].id = 0;
    }
    f->n_dead_rngs = 0;
}

void runtime_cycle(Fuzzer *f) {
    Expect e;
    no_problems(&e);
    if (f->shared->profiling) {
        log_begin(f, "sl_profile_end() [before shutdown]");
        if (check_call(f, "sl_profile_end", sl_profile_end(), &e, NULL, 0)) f->shared->profiling = 0;
        log_end(f);
    }
    log_begin(f, "sl_shutdown()");
    check_call(f, "sl_shutdown", sl_shutdown(), &e, NULL, 0);
    log_end(f);
    forget_runtime(f);
    runtime_start(f);
    /* Generators of the new runtime must not answer to the old ones' ids (defect d). */
    if (f->n_old_rngs && !(f->shared->tolerate & TOL_D)) {
        sl_rng id = 0;
        log_begin(f, "sl_rng_create(0, 1) [after a restart]");
        if (check_call(f, "sl_rng_create", sl_rng_create(SL_RNG_PHILOX, 1, &id), &e, NULL, 0)) {
            for (int i = 0; i < f->n_old_rngs; i++)
                if (f->old_rngs[i] == id) broken(f, "after sl_shutdown, sl_rng_create gave %#llx, the id of a generator of the previous runtime", (unsigned long long)id);
            f->rngs[0].id = id;
            f->rngs[0].label = f->next_label++;
            f->rngs[0].kind = SL_RNG_PHILOX;
            f->rngs[0].seed = 1;
            f->rngs[0].draw = 0;
        }
        log_end(f);
    }
}

/* Resets the model after a defect that it cannot follow (--keep-going). */
void resync(Fuzzer *f) {
    /* A section whose scope was ended by the application cannot be cancelled without one. */
    for (int k = 0; k < 8 && sl_macro_cancel() != SL_OK; k++) sl_scope_begin();
    while (sl_scope_end() == SL_OK) {
    }
    for (int i = 0; i < f->n_frames; i++) free(f->frames[i].h);
    memset(f->frames, 0, sizeof f->frames);
    f->n_frames = 0;
    f->recording = 0;
    f->desync = 0;
    for (int i = 0; i < POOL_MAX; i++) f->pool[i].outside = 0;
    runtime_cycle(f);
}

void teardown(Fuzzer *f) {
    if (f->shared->profiling && f->tid == 0) sl_profile_end();
    for (int i = 0; i < POOL_MAX; i++)
        if (f->pool[i].h && !f->pool[i].shared) pool_release(f, i, 1);
    for (int i = 0; i < RNG_MAX; i++)
        if (f->rngs[i].id) sl_rng_destroy(f->rngs[i].id), f->rngs[i].id = 0;
    Expect e;
    no_problems(&e);
    log_begin(f, "sl_sync() [teardown]");
    check_call(f, "sl_sync", sl_sync(), &e, NULL, 0);
    log_end(f);
    if (f->shared->threads == 1) {
        check_live_handles(f);
        /* Nothing holds array memory once every handle is gone and the work is done. */
        sl_stats st;
        log_begin(f, "sl_get_stats() [teardown]");
        if (check_call(f, "sl_get_stats", sl_get_stats(&st), &e, NULL, 0) && st.live_bytes != 0)
            broken(f, "%llu bytes of array memory are still in use after every handle was released", (unsigned long long)st.live_bytes);
        log_end(f);
    }
    for (int i = 0; i < f->n_frames; i++) free(f->frames[i].h);
    f->n_frames = 0;
}

/* ---- restarts under other threads (defect g) ---- */

void restart_under_threads(Fuzzer *f) {
    Shared *sh = f->shared;
    Expect e;
    no_problems(&e);
    if (sh->profiling) {
        log_begin(f, "sl_profile_end() [before a restart]");
        if (check_call(f, "sl_profile_end", sl_profile_end(), &e, NULL, 0)) sh->profiling = 0;
        log_end(f);
    }
    atomic_fetch_add(&sh->epoch, 1); /* odd: the others' calls may meet no runtime */
    f->epoch_seen = atomic_load(&sh->epoch);
    log_begin(f, "sl_shutdown() [while %d other threads call]", sh->threads - 1);
    sl_status st = sl_shutdown();
    log_more(f, " -> %d", st);
    if (st != SL_OK) broken(f, "sl_shutdown failed (%d) while other threads called", st);
    log_end(f);
    /* Another thread's call may have started a runtime with the defaults already. */
    sl_config c;
    sl_config_default(&c);
    c.memory_limit = sh->memory_limit;
    log_begin(f, "sl_init() [after a restart under other threads]");
    st = sl_init(&c);
    log_more(f, " -> %d", st);
    if (st != SL_OK && st != SL_ERR_INVALID_STATE) broken(f, "sl_init after a restart failed (%d)", st);
    log_end(f);
    sh->config_trace_entries = sh->config_macro_entries = -1;
    atomic_fetch_add(&sh->epoch, 1);
    follow_restart(f);
}

void follow_restart(Fuzzer *f) {
    /* A section this thread was recording, and its scopes, outlive the runtime (they are
     * the thread's): close them, unchecked. */
    for (int k = 0; k < 8 && sl_macro_cancel() != SL_OK && f->recording; k++) sl_scope_begin();
    while (sl_scope_end() == SL_OK) {
    }
    for (int i = 0; i < f->n_frames; i++) free(f->frames[i].h);
    memset(f->frames, 0, sizeof f->frames);
    f->n_frames = 0;
    f->recording = 0;
    forget_runtime(f);
    f->restarted = 0;
    f->epoch_seen = atomic_load(&f->shared->epoch);
}

/* ---- results beyond memory (defect b) ---- */

static const char *S(int rank, const int64_t *dims) {
    static _Thread_local char b[80];
    shape_str(b, sizeof b, rank, dims);
    return b;
}

/* A result of 2^31..2^40 elements is evaluated on its own: with a memory limit it must be
 * refused cleanly (out of memory, or a poisoned read), or computed only where needed. */
void huge_probe(Fuzzer *f) {
    int k = 31 + (int)rand_below(&f->r, 10);
    int64_t dims[2] = {(int64_t)1 << k, 1}, idx = (int64_t)rand_below(&f->r, (uint64_t)1 << k);
    int rank = 1, dt = SL_F32;
    if (rand_pct(&f->r, 30)) {
        dims[0] = dims[1] = (int64_t)1 << (k / 2 + 1);
        rank = 2;
    } else if (rand_pct(&f->r, 20) && !(f->shared->tolerate & TOL_B)) {
        /* The most elements whose bytes still count in 64 bits (2^64 - 8 of them). */
        dims[0] = ((int64_t)1 << 61) - 1;
        dt = SL_F64;
    }
    sl_array x = 0, y = 0, s = 0;
    Expect e;
    no_problems(&e);
    log_begin(f, "sl_iota(%s, %s, 0) [memory probe]", dt_name(dt), S(rank, dims));
    e.maybe = 1; /* an eager refusal is fine too */
    if (!check_call(f, "sl_iota", sl_iota(dt, rank, dims, 0, &x), &e, &x, 1)) {
        log_end(f);
        return;
    }
    log_end(f);
    log_begin(f, "sl_add_scalar(huge, 1)");
    if (check_call(f, "sl_add_scalar", sl_add_scalar(x, 1, &y), &e, &y, 1)) {
        log_end(f);
        log_begin(f, "sl_eval([huge])");
        check_call(f, "sl_eval", sl_eval(&y, 1), &e, NULL, 0);
        log_end(f);
        int64_t start[2] = {idx % dims[0], 0}, count[2] = {1, 1}, stride[2] = {1, 1};
        log_begin(f, "sl_section(huge, one element)");
        if (check_call(f, "sl_section", sl_section(y, start, count, stride, &s), &e, &s, 1)) {
            log_end(f);
            double v = -1, want = dt == SL_F32 ? (double)((float)start[0] + 1.0f) : (double)start[0] + 1.0;
            float v32 = -1;
            log_begin(f, "sl_read(one element of the huge result)");
            sl_status st = dt == SL_F32 ? sl_read(s, SL_COL_MAJOR, &v32, sizeof v32) : sl_read(s, SL_COL_MAJOR, &v, sizeof v);
            if (dt == SL_F32) v = v32;
            if (st == SL_OK && v != want) broken(f, "the huge result's element %lld reads %.17g, not %.17g", (long long)start[0], v, want);
            if (st != SL_OK && st != SL_ERR_OUT_OF_MEMORY && st != SL_ERR_POISONED) {
                Expect any;
                ex_init(&any);
                ex_bad(&any, SL_ERR_OUT_OF_MEMORY);
                check_call(f, "sl_read", st, &any, NULL, 0);
            } else if (st != SL_OK) {
                Expect refused;
                ex_init(&refused);
                ex_bad_any(&refused);
                check_call(f, "sl_read", st, &refused, NULL, 0);
            }
            sl_release(s);
        }
        log_end(f);
        sl_release(y);
    } else {
        log_end(f);
    }
    sl_release(x);
}

/* ---- the mix ---- */

void session_step(Fuzzer *f) {
    uint64_t k = rand_below(&f->r, 100);
    if (k < 20) s_scope(f);
    else if (k < 45) macro_record_or_replay(f);
    else if (k < 52) s_handlers(f);
    else if (k < 60) s_call_site(f);
    else if (k < 90) s_info(f);
    else if (k < 96) s_init_misuse(f);
    else s_profile(f);
}
