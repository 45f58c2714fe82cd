/* A legacy code that cannot be relinked: Sluice loaded at run time with dlopen/dlsym only
 * (this program does not link against the library). Usage: dlopen_test <libsluice.so> */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <path to libsluice.so>\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    version_fn version = (version_fn)need(lib, "sl_version");
    create_fn create = (create_fn)need(lib, "sl_create");
    unary_fn unary = (unary_fn)need(lib, "sl_unary");
    binary_scalar_fn binary_scalar = (binary_scalar_fn)need(lib, "sl_binary_scalar");
    reduce_fn reduce = (reduce_fn)need(lib, "sl_reduce");
    read_fn read = (read_fn)need(lib, "sl_read");
    release_fn release = (release_fn)need(lib, "sl_release");
    last_error_fn last_error = (last_error_fn)need(lib, "sl_last_error");
    shutdown_fn shutdown = (shutdown_fn)need(lib, "sl_shutdown");

    int32_t major = -1;
    if (version(&major, NULL, NULL) != SL_OK || major != SL_VERSION_MAJOR) {
        fprintf(stderr, "library major version %d, header %d\n", major, SL_VERSION_MAJOR);
        return 1;
    }
    /* sum over i of sin(i / 100)^2 ... computed as sum(sin(x) * sin(x)) with a scalar op */
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
    if (create(SL_F64, 1, &n, SL_COL_MAJOR, x, sizeof x, &a) != SL_OK || unary(SL_SIN, a, &s) != SL_OK ||
        binary_scalar(SL_MUL, s, 3.0, &t) != SL_OK || reduce(SL_SUM, t, SL_ALL_DIMS, &total) != SL_OK ||
        read(total, SL_COL_MAJOR, &got, sizeof got) != SL_OK) {
        sl_error_info e;
        last_error(&e);
        fprintf(stderr, "failed: %s\n", e.message);
        return 1;
    }
    release(a);
    release(s);
    release(t);
    release(total);
    /* an error through the loaded library: a released handle */
    sl_error_info e;
    if (release(a) != SL_ERR_INVALID_HANDLE || last_error(&e) != SL_OK || !e.message) {
        fprintf(stderr, "releasing twice was not reported\n");
        return 1;
    }
    shutdown();
    dlclose(lib);
    double err = fabs(got - want);
    printf("dlopen: sum(3 sin(x)) = %.12f (plain loop %.12f, difference %.1e)\n", got, want, err);
    if (err > 1e-9 * fabs(want)) {
        printf("FAIL\n");
        return 1;
    }
    printf("OK\n");
    return 0;
}
