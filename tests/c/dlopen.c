/* A legacy code that cannot be relinked: Sluice loaded at run time with dlopen/dlsym only
 * (this program does not link against the library), used, shut down and unloaded, ten
 * times over. Usage: dlopen_test <libsluice.so> */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sluice.h" /* types and constants only: no function is called directly */

typedef sl_status (*create_fn)(sl_dtype, int32_t, const int64_t *, sl_layout, const void *, size_t, sl_array *);
typedef sl_status (*unary_fn)(sl_unary_op, sl_array, sl_array *);
typedef sl_status (*binary_scalar_fn)(sl_binary_op, sl_array, double, sl_array *);
typedef sl_status (*reduce_fn)(sl_reduce_op, sl_array, int32_t, sl_array *);
typedef sl_status (*read_fn)(sl_array, sl_layout, void *, size_t);
typedef sl_status (*release_fn)(sl_array);
typedef sl_status (*last_error_fn)(sl_error_info *);
typedef sl_status (*version_fn)(int32_t *, int32_t *, int32_t *);
typedef sl_status (*shutdown_fn)(void);

static void *need(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
        exit(1);
    }
    return f;
}

/* The functions of one load of the library. */
struct api {
    version_fn version;
    create_fn create;
    unary_fn unary;
    binary_scalar_fn binary_scalar;
    reduce_fn reduce;
    read_fn read;
    release_fn release;
    last_error_fn last_error;
    shutdown_fn shutdown;
};

/* Threads of this process (this one included). */
static int threads(void) {
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* Runs a computation and shuts the runtime down; returns 0, or 1 for a failure. */
static int compute(const struct api *f) {
    int32_t major = -1;
    if (f->version(&major, NULL, NULL) != SL_OK || major != SL_VERSION_MAJOR) {
        fprintf(stderr, "library major version %d, header %d\n", major, SL_VERSION_MAJOR);
        return 1;
    }
    /* sum over i of 3 sin(i / 100), with a scalar op */
    enum { N = 10000 };
    static double x[N];
    double want = 0;
    for (int i = 0; i < N; i++) {
        x[i] = i / 100.0;
        want += sin(x[i]) * 3.0;
    }
    int64_t n = N;
    sl_array a, s, t, total;
    double got = 0;
    if (f->create(SL_F64, 1, &n, SL_COL_MAJOR, x, sizeof x, &a) != SL_OK || f->unary(SL_SIN, a, &s) != SL_OK ||
        f->binary_scalar(SL_MUL, s, 3.0, &t) != SL_OK || f->reduce(SL_SUM, t, SL_ALL_DIMS, &total) != SL_OK ||
        f->read(total, SL_COL_MAJOR, &got, sizeof got) != SL_OK) {
        sl_error_info e;
        f->last_error(&e);
        fprintf(stderr, "failed: %s\n", e.message);
        return 1;
    }
    f->release(a);
    f->release(s);
    f->release(t);
    f->release(total);
    /* an error through the loaded library: a released handle */
    sl_error_info e;
    if (f->release(a) != SL_ERR_INVALID_HANDLE || f->last_error(&e) != SL_OK || !e.message) {
        fprintf(stderr, "releasing twice was not reported\n");
        return 1;
    }
    double err = fabs(got - want);
    printf("dlopen: sum(3 sin(x)) = %.12f (plain loop %.12f, difference %.1e)\n", got, want, err);
    if (err > 1e-9 * fabs(want)) return 1;
    if (f->shutdown() != SL_OK) return 1;
    /* Right after sl_shutdown: the main thread, waiting for this one, and this one. */
    int left = threads() - 2;
    if (left != 0) fprintf(stderr, "%d threads are left right after sl_shutdown\n", left);
    return left != 0;
}

static void *compute_on_thread(void *f) {
    return (void *)(intptr_t)compute(f);
}

/* Whether a file whose path contains `name` is mapped into this process. */
static int mapped(const char *name) {
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps && fgets(line, sizeof line, maps)) found |= strstr(line, name) != NULL;
    if (maps) fclose(maps);
    return found;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <path to libsluice.so>\n", argv[0]);
        return 2;
    }
    const char *base = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
    /* Load, compute and shut down (twice, on two threads one after the other), unload,
     * ten times: after sl_shutdown no thread of the library may be left to run code that
     * dlclose unmapped. */
    for (int cycle = 0; cycle < 10; cycle++) {
        void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            fprintf(stderr, "dlopen: %s\n", dlerror());
            return 1;
        }
        struct api f = {
            (version_fn)need(lib, "sl_version"),
            (create_fn)need(lib, "sl_create"),
            (unary_fn)need(lib, "sl_unary"),
            (binary_scalar_fn)need(lib, "sl_binary_scalar"),
            (reduce_fn)need(lib, "sl_reduce"),
            (read_fn)need(lib, "sl_read"),
            (release_fn)need(lib, "sl_release"),
            (last_error_fn)need(lib, "sl_last_error"),
            (shutdown_fn)need(lib, "sl_shutdown"),
        };
        /* The library's calls are made on other threads, so that no thread that ran its
         * code is left when it is closed and the loader really unmaps it. */
        for (int k = 0; k < 2; k++) {
            pthread_t t;
            void *failed;
            if (pthread_create(&t, NULL, compute_on_thread, &f) != 0 || pthread_join(t, &failed) != 0 || failed) {
                printf("FAIL (cycle %d)\n", cycle);
                return 1;
            }
        }
        if (threads() != 1) {
            printf("FAIL: %d threads are left after sl_shutdown (cycle %d)\n", threads() - 1, cycle);
            return 1;
        }
        dlclose(lib);
        if (mapped(base)) {
            printf("FAIL: %s is still mapped after dlclose\n", base);
            return 1;
        }
        /* A thread of the library still running now would crash the process. */
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    printf("OK\n");
    return 0;
}
