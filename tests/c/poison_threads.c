/* A failure poisons only what depends on it, across threads (the API fuzzer's defect p):
 * one thread makes an element of a result the memory limit refuses (SLUICE_MEMORY_LIMIT,
 * set by CMake), another an unrelated value of the same shape from fresh random data, and
 * the main thread evaluates both in one flush, which computes them in one kernel. The
 * unrelated value must read back exactly; the element is poisoned with the refusal. Runs
 * on the CPU executor, and again on Vulkan (poison_threads_vulkan). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "check.h"

/* 2^26 f32 (256 MiB): beyond the limit of 64 MiB. */
#define HUGE_N ((int64_t)1 << 26)

static int64_t element;
static double value, scale;

/* One element of iota + 1 over HUGE_N points, whose evaluation was refused. */
static void *refused_element(void *out) {
    int64_t n = HUGE_N, count = 1, stride = 1;
    sl_array x, y;
    OK(sl_iota(SL_F32, 1, &n, 0, &x));
    OK(sl_add_scalar(x, 1.0, &y));
    OK(sl_eval(&y, 1));
    OK(sl_section(y, &element, &count, &stride, (sl_array *)out));
    OK(sl_release(x));
    OK(sl_release(y));
    return NULL;
}

/* value * scale, pending. */
static void *unrelated(void *out) {
    sl_array a = vector_f64(&value, 1);
    OK(sl_mul_scalar(a, scale, (sl_array *)out));
    OK(sl_release(a));
    return NULL;
}

int main(void) {
    seed_rng("poison_threads");
    element = rand() % HUGE_N;
    value = uniform(-100, 100);
    scale = uniform(-4, 4);
    sl_array roots[2] = {0, 0};
    pthread_t a, b;
    pthread_create(&a, NULL, refused_element, &roots[0]);
    pthread_create(&b, NULL, unrelated, &roots[1]);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    OK(sl_eval(roots, 2));

    double got = 0;
    OK(sl_read(roots[1], SL_COL_MAJOR, &got, sizeof got));
    /* One IEEE multiply: exact. */
    EXPECT(got == value * scale, "%.17g * %.17g read %.17g", value, scale, got);
    float element_value = 0;
    FAILS(sl_read(roots[0], SL_COL_MAJOR, &element_value, sizeof element_value), SL_ERR_POISONED, "out of memory");
    OK(sl_release(roots[0]));
    OK(sl_release(roots[1]));
    OK(sl_shutdown());
    if (failures) return 1;
    printf("poison_threads: ok\n");
    return 0;
}
