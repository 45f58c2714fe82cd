/* A fixed amount of small-array work, for counting instructions per API call (timings on
 * a shared machine are too noisy to see a 1% change; instruction counts are not):
 * `overhead_calls REPS MODE` runs REPS x 10,000 iterations on 1024 f32 of
 *   MODE 0: y = y*0.99 + x (2 calls and a release per iteration),
 *   MODE 1: an 8-op step made call by call (16 calls per iteration),
 *   MODE 2: the same step as a macro, replayed,
 *   MODE 3: a blocking read of a small result: sl_dot of two stored 80-element f64
 *           vectors, sl_read of the scalar, sl_release (the round trip of a solver's
 *           convergence test),
 *   MODE 4: y = y*0.99 + x as a macro, replayed,
 *   MODE 5: conjugate gradient on an 80 x 80 f64 system, REPS x 200 solves of 50
 *           iterations, each ending in a blocking read of the squared residual norm
 *           (the loop of benches/core.rs `roundtrip/cg_80_f64_x50`).
 * Build against a libsluice and run under `valgrind --tool=callgrind` (see BENCHMARKS.md). */
#include <stdio.h>
#include <stdlib.h>
#include "sluice.h"
#define CHECK(c) do { if ((c) != SL_OK) { fprintf(stderr, "failed: %s\n", #c); exit(1); } } while (0)
static sl_array mul_add(sl_array y, sl_array x) {
    sl_array t, out;
    CHECK(sl_mul_scalar(y, 0.99, &t));
    CHECK(sl_add(t, x, &out));
    CHECK(sl_release(t));
    return out;
}
static sl_array step8(sl_array y, sl_array x) {
    sl_array t[8];
    CHECK(sl_mul_scalar(y, 0.99, &t[0])); CHECK(sl_sin(x, &t[1])); CHECK(sl_add(t[0], t[1], &t[2]));
    CHECK(sl_mul_scalar(t[2], 0.5, &t[3])); CHECK(sl_abs(t[3], &t[4])); CHECK(sl_sqrt(t[4], &t[5]));
    CHECK(sl_sub(t[5], x, &t[6])); CHECK(sl_mul_scalar(t[6], 0.9, &t[7]));
    for (int i = 0; i < 7; i++) CHECK(sl_release(t[i]));
    return t[7];
}
static sl_array step8_macro(sl_array y, sl_array x) {
    sl_array in[2] = {y, x}, out[1];
    SL_MACRO("step8", in, 2, NULL, 0, out, 1) { out[0] = step8(in[0], in[1]); }
    return out[0];
}
static sl_array mul_add_macro(sl_array y, sl_array x) {
    sl_array in[2] = {y, x}, out[1];
    SL_MACRO("mul_add", in, 2, NULL, 0, out, 1) { out[0] = mul_add(in[0], in[1]); }
    return out[0];
}
static sl_array op2(sl_status (*f)(sl_array, sl_array, sl_array *), sl_array a, sl_array b) {
    sl_array out;
    CHECK(f(a, b, &out));
    return out;
}
static void release_all(const sl_array *hs, int n) {
    for (int i = 0; i < n; i++) CHECK(sl_release(hs[i]));
}
/* 50 CG iterations from x = 0, as benches/core.rs `cg_solve` writes them. */
static double cg_solve(sl_array a, sl_array rhs) {
    sl_array x, r, p, rs;
    double rs_host = 0;
    CHECK(sl_mul_scalar(rhs, 0.0, &x));
    CHECK(sl_retain(rhs, &r));
    CHECK(sl_retain(rhs, &p));
    CHECK(sl_dot(r, r, &rs));
    for (int it = 0; it < 50; it++) {
        sl_array ap = op2(sl_matmul, a, p), pap = op2(sl_dot, p, ap), alpha = op2(sl_div, rs, pap);
        sl_array step_x = op2(sl_mul, alpha, p), step_r = op2(sl_mul, alpha, ap);
        sl_array x2 = op2(sl_add, x, step_x), r2 = op2(sl_sub, r, step_r), rs2 = op2(sl_dot, r2, r2);
        CHECK(sl_read(rs2, SL_COL_MAJOR, &rs_host, sizeof rs_host));
        sl_array beta = op2(sl_div, rs2, rs), step_p = op2(sl_mul, beta, p), p2 = op2(sl_add, r2, step_p);
        sl_array dead[] = {ap, pap, alpha, step_x, step_r, beta, step_p, x, r, p, rs};
        release_all(dead, 11);
        x = x2, r = r2, p = p2, rs = rs2;
    }
    sl_array last[] = {x, r, p, rs};
    release_all(last, 4);
    return rs_host;
}
static double dot_read(sl_array a) {
    sl_array d;
    double v;
    CHECK(sl_dot(a, a, &d));
    CHECK(sl_read(d, SL_COL_MAJOR, &v, sizeof v));
    CHECK(sl_release(d));
    return v;
}
int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 5, which = argc > 2 ? atoi(argv[2]) : 0;
    static float xs[1024], out[1024];
    for (int i = 0; i < 1024; i++) xs[i] = i * 0.001f;
    int64_t n = 1024;
    sl_array x;
    CHECK(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, xs, sizeof xs, &x));
    if (which == 3) {
        static double as[80];
        for (int i = 0; i < 80; i++) as[i] = i * 0.01;
        int64_t m = 80;
        sl_array a;
        CHECK(sl_create(SL_F64, 1, &m, SL_COL_MAJOR, as, sizeof as, &a));
        double sum = 0;
        for (int k = 0; k < reps * 10000; k++) sum += dot_read(a);
        out[1] = (float)sum;
        CHECK(sl_release(a));
        reps = 0;
    }
    if (which == 5) {
        /* A symmetric positive definite system B^T B + 0.01 I, B from a fixed LCG. */
        static double b[80 * 80], m[80 * 80], rhs[80];
        uint64_t state = 20261124;
        for (int i = 0; i < 80 * 80 + 80; i++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(state >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
            if (i < 80 * 80) b[i] = u; else rhs[i - 80 * 80] = u;
        }
        for (int i = 0; i < 80; i++)
            for (int j = 0; j < 80; j++) {
                double s = i == j ? 0.01 : 0.0;
                for (int k = 0; k < 80; k++) s += b[k + i * 80] * b[k + j * 80];
                m[i + j * 80] = s;
            }
        int64_t dims[2] = {80, 80};
        sl_array a, h;
        CHECK(sl_create(SL_F64, 2, dims, SL_COL_MAJOR, m, sizeof m, &a));
        CHECK(sl_create(SL_F64, 1, dims, SL_COL_MAJOR, rhs, sizeof rhs, &h));
        double last = 0;
        for (int k = 0; k < reps * 200; k++) last = cg_solve(a, h);
        out[1] = (float)last;
        release_all((sl_array[]){a, h}, 2);
        reps = 0;
    }
    for (int r = 0; r < reps; r++) {
        sl_array y;
        CHECK(sl_retain(x, &y));
        for (int k = 0; k < 10000; k++) {
            sl_array next = which == 4   ? mul_add_macro(y, x)
                            : which == 2 ? step8_macro(y, x)
                            : which      ? step8(y, x)
                                         : mul_add(y, x);
            CHECK(sl_release(y));
            y = next;
        }
        CHECK(sl_read(y, SL_COL_MAJOR, out, sizeof out));
        CHECK(sl_release(y));
    }
    CHECK(sl_release(x));
    CHECK(sl_shutdown());
    printf("%g\n", out[1]);
    return 0;
}
