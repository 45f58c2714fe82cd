/* The API fuzzer: seeded random sequences of Sluice calls over pools of valid, released,
 * forged and foreign handles, with extreme and malformed arguments, each call checked
 * against its promise and, where the model can compute them, its values.
 *
 *   fuzz_api [--seed N] [--calls N] [--seconds S] [--threads N] [--memory-limit BYTES|none]
 *            [--tolerate LETTERS] [--keep-going] [--trace-from N] [--log N]
 *
 * It prints its seed first; on a broken promise it prints the seed, the call number and
 * the last calls, and exits with status 1. One thread is deterministic for a seed. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define HAVE_SANITIZER_CALLBACK 1
#endif
#endif

extern int model_flushes_subnormals;
extern double model_trig_limit;

#define MAX_THREADS 16
static Fuzzer *fuzzers[MAX_THREADS];
static int n_fuzzers;
static atomic_ullong progress;   /* calls made by every thread */
static atomic_int stop;
static double hang_seconds = 120;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* On a crash (the sanitizers' death callback) or a hang: the seed and the last calls. */
static void dump_all(const char *why) {
    fprintf(stderr, "\n%s (seed %llu)\n", why, n_fuzzers ? (unsigned long long)fuzzers[0]->shared->seed : 0ull);
    for (int i = 0; i < n_fuzzers; i++) log_dump(fuzzers[i], stderr);
    fflush(stderr);
}

#ifdef HAVE_SANITIZER_CALLBACK
static void on_death(void) { dump_all("CRASH: the sanitizer stopped the fuzzer; the calls before it follow"); }
#endif

/* Reports a hang: a thread whose call has not returned for `hang_seconds`. */
static void *watchdog(void *arg) {
    (void)arg;
    uint64_t last[MAX_THREADS] = {0};
    double since[MAX_THREADS];
    for (int i = 0; i < MAX_THREADS; i++) since[i] = now();
    while (!atomic_load(&stop)) {
        sleep(1);
        for (int i = 0; i < n_fuzzers; i++) {
            uint64_t c = fuzzers[i]->call;
            if (c != last[i] || fuzzers[i]->done) {
                last[i] = c;
                since[i] = now();
            } else if (now() - since[i] > hang_seconds) {
                char why[80];
                snprintf(why, sizeof why, "HANG: a call of thread %d has not returned for %.0f s", i, hang_seconds);
                dump_all(why);
                _exit(3);
            }
        }
    }
    return NULL;
}

static void usage(void) {
    fprintf(stderr,
            "usage: fuzz_api [--seed N] [--calls N] [--seconds S] [--threads N] [--memory-limit BYTES|none]\n"
            "                [--tolerate LETTERS] [--keep-going] [--trace-from N] [--log N] [--hang-seconds S]\n"
            "  --tolerate: skip inputs that trigger known defects: issue 13's a-g, i (i64 scalars\n"
            "              of 2^63 accepted), o (Vulkan shifts by offsets beyond 32 bits), v (Vulkan\n"
            "              sin/cos/tan of large arguments), z (scans of empty arrays with huge dimensions hang),\n"
            "              p (with threads, reads poisoned by another thread's huge result: no huge probes);\n"
            "              all fixed now\n");
    exit(2);
}

static uint64_t parse_u64(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end == 'K' || *end == 'k') v <<= 10;
    else if (*end == 'M' || *end == 'm') v <<= 20;
    else if (*end == 'G' || *end == 'g') v <<= 30;
    return v;
}

static void fuzzer_init(Fuzzer *f, Shared *sh, int tid) {
    memset(f, 0, sizeof *f);
    f->tid = tid;
    f->shared = sh;
    rand_seed(&f->r, sh->seed * 0x9E3779B97F4A7C15ull + (uint64_t)tid);
    f->log_n = sh->log_size;
    f->log = calloc((size_t)f->log_n, sizeof *f->log);
    for (int i = 0; i < f->log_n; i++) f->log[i] = calloc(1, sizeof f->line);
    f->rec_rng = -1;
}

/* One thread's calls until the budget is spent. */
static void run(Fuzzer *f, uint64_t calls, double deadline) {
    Shared *sh = f->shared;
    double last_report = now();
    uint64_t last_calls = 0;
    while (f->call < calls && !atomic_load(&stop)) {
        uint64_t before = f->call;
        if (f->desync) resync(f);
        if (sh->threads > 1 && (f->restarted || f->epoch_seen != atomic_load(&sh->epoch))) follow_restart(f);
        uint64_t k = rand_below(&f->r, 10000);
        int restarts = sh->shutdown_cycles && (sh->threads == 1 || (f->tid == 0 && !(sh->tolerate & TOL_G)));
        if (k < 9000) fuzz_step(f);
        else if (k < 9985) session_step(f);
        else if (k < 9990 && restarts) sh->threads == 1 ? runtime_cycle(f) : restart_under_threads(f);
        else if (k < 9993 && sh->huge_probes) huge_probe(f);
        else check_live_handles(f);
        atomic_fetch_add(&progress, f->call - before);
        if ((f->call >> 8) != (before >> 8)) {
            double t = now();
            if (t > deadline) break;
            if (f->tid == 0 && t - last_report > 10) {
                unsigned long long all = atomic_load(&progress);
                printf("fuzz_api: %llu calls, %.0f calls/s\n", all, (double)(all - last_calls) / (t - last_report));
                fflush(stdout);
                last_calls = all;
                last_report = t;
            }
        }
    }
}

typedef struct {
    Fuzzer *f;
    uint64_t calls;
    double deadline;
} ThreadArg;

static void *thread_main(void *p) {
    ThreadArg *a = p;
    run(a->f, a->calls, a->deadline);
    a->f->done = 1;
    return NULL;
}

int main(int argc, char **argv) {
    static Shared sh;
    sh.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
    sh.max_calls = 1000000;
    sh.seconds = 1e9;
    sh.threads = 1;
    sh.memory_limit = 512u << 20;
    sh.log_size = 40;
    sh.shutdown_cycles = 1;
    sh.huge_probes = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--keep-going")) {
            sh.keep_going = 1;
            continue;
        }
        if (!v) usage();
        i++;
        if (!strcmp(a, "--seed")) sh.seed = parse_u64(v);
        else if (!strcmp(a, "--calls")) sh.max_calls = parse_u64(v);
        else if (!strcmp(a, "--seconds")) sh.seconds = atof(v);
        else if (!strcmp(a, "--threads")) sh.threads = atoi(v);
        else if (!strcmp(a, "--memory-limit")) sh.memory_limit = !strcmp(v, "none") ? 0 : parse_u64(v);
        else if (!strcmp(a, "--trace-from")) sh.trace_from = parse_u64(v);
        else if (!strcmp(a, "--log")) sh.log_size = atoi(v);
        else if (!strcmp(a, "--hang-seconds")) hang_seconds = atof(v);
        else if (!strcmp(a, "--tolerate")) {
            snprintf(sh.tolerate_letters, sizeof sh.tolerate_letters, "%s", v);
            for (const char *c = v; *c; c++) {
                if ((*c < 'a' || *c > 'g') && !strchr("iopvz", *c)) usage();
                sh.tolerate |= 1 << (*c - 'a');
            }
        } else usage();
    }
    if (sh.threads < 1 || sh.threads > MAX_THREADS || sh.log_size < 1) usage();
    /* Without a memory limit the huge probes would only measure the machine (defect b). */
    if (!sh.memory_limit && (sh.tolerate & TOL_B)) sh.huge_probes = 0;
    /* Defect p (fixed): no huge probes under other threads. */
    if (sh.threads > 1 && (sh.tolerate & TOL_P)) sh.huge_probes = 0;
    /* A runtime started by any call (after a restart under other threads) has the limit too. */
    char limit[32];
    snprintf(limit, sizeof limit, "%llu", (unsigned long long)sh.memory_limit);
    if (sh.memory_limit) setenv("SLUICE_MEMORY_LIMIT", limit, 1);
    const char *backend = getenv("SLUICE_BACKEND");
    sh.vulkan = backend && !strcmp(backend, "vulkan");
    model_flushes_subnormals = sh.vulkan;
    if (sh.vulkan && (sh.tolerate & TOL_V)) model_trig_limit = 1e4;
    snprintf(sh.tmpdir, sizeof sh.tmpdir, "%s/sluice-fuzz-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(sh.tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    printf("fuzz_api: seed %llu, %llu calls, %d thread%s, memory limit %llu, backend %s%s%s\n", (unsigned long long)sh.seed,
           (unsigned long long)sh.max_calls, sh.threads, sh.threads > 1 ? "s" : "", (unsigned long long)sh.memory_limit, sh.vulkan ? "vulkan" : "cpu",
           sh.tolerate ? ", tolerating " : "", sh.tolerate ? sh.tolerate_letters : "");
    fflush(stdout);
#ifdef HAVE_SANITIZER_CALLBACK
    __sanitizer_set_death_callback(on_death);
#endif

    static Fuzzer fs[MAX_THREADS];
    for (int t = 0; t < sh.threads; t++) {
        fuzzer_init(&fs[t], &sh, t);
        fuzzers[n_fuzzers++] = &fs[t];
    }
    runtime_start(&fs[0]);
    /* The shared pool: the same handles in every thread's pool, released by none of them. */
    sl_array shared[SHARED_ARRAYS];
    int n_shared = 0;
    for (int k = 0; k < SHARED_ARRAYS && sh.threads > 1; k++) {
        int slot = make_shared_array(&fs[0]);
        if (slot < 0) continue;
        shared[n_shared++] = fs[0].pool[slot].h;
        for (int t = 1; t < sh.threads; t++) {
            Arr *a = &fs[t].pool[slot];
            *a = fs[0].pool[slot];
            sh_copy(&a->s, &fs[0].pool[slot].s);
        }
    }
    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, NULL);
    double start = now(), deadline = start + sh.seconds;
    uint64_t per_thread = (sh.max_calls + (uint64_t)sh.threads - 1) / (uint64_t)sh.threads;
    if (sh.threads == 1) {
        run(&fs[0], per_thread, deadline);
    } else {
        pthread_t th[MAX_THREADS];
        ThreadArg args[MAX_THREADS];
        for (int t = 0; t < sh.threads; t++) {
            args[t] = (ThreadArg){&fs[t], per_thread, deadline};
            pthread_create(&th[t], NULL, thread_main, &args[t]);
        }
        for (int t = 0; t < sh.threads; t++) pthread_join(th[t], NULL);
    }
    double elapsed = now() - start;
    for (int t = 0; t < sh.threads; t++) {
        fs[t].done = 1;
        teardown(&fs[t]);
    }
    if (atomic_load(&sh.epoch) == 0)
        for (int k = 0; k < n_shared; k++) sl_release(shared[k]);
    Expect e;
    ex_init(&e);
    log_begin(&fs[0], "sl_shutdown() [end]");
    check_call(&fs[0], "sl_shutdown", sl_shutdown(), &e, NULL, 0);
    log_end(&fs[0]);
    atomic_store(&stop, 1);
    pthread_join(dog, NULL);
    uint64_t calls = 0, failures = 0;
    for (int t = 0; t < sh.threads; t++) calls += fs[t].call, failures += fs[t].failures;
    printf("fuzz_api: seed %llu: %llu calls in %.1f s (%.0f calls/s), %llu broken promises\n", (unsigned long long)sh.seed, (unsigned long long)calls, elapsed,
           (double)calls / elapsed, (unsigned long long)failures);
    for (int t = 0; t < sh.threads; t++) {
        for (int i = 0; i < fs[t].log_n; i++) free(fs[t].log[i]);
        free(fs[t].log);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", sh.tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "fuzz_api: could not remove %s\n", sh.tmpdir);
    return failures ? 1 : 0;
}
