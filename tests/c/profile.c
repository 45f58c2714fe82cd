/* Profiling from C: a loop whose lines have very different costs (sin and exp on a big
 * array against an add and a sum fused into the same kernel, and a multiply on a small
 * array at an explicit call site), profiled into files that check_profile.py then
 * reads. Also the bad inputs of the profiling calls, and an error message naming an
 * explicit call site. Usage: profile <output base path> */
#include <math.h>

#include "check.h"

#define BIG (1 << 20)
#define SMALL 4096
#define ROUNDS 6

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <profile output base>\n", argv[0]);
        return 2;
    }
    const char *base = argv[1];
    seed_rng("profile");
    static double x[BIG], y[SMALL], u[SMALL];
    for (int i = 0; i < BIG; i++) x[i] = uniform(-3.0, 3.0);
    for (int i = 0; i < SMALL; i++) y[i] = uniform(-1.0, 1.0);
    double want = 0;
    for (int i = 0; i < BIG; i++) want += exp(sin(x[i])) + x[i];

    FAILS(sl_profile_end(), SL_ERR_INVALID_STATE, "profiling is not on");
    FAILS(sl_profile_begin(NULL), SL_ERR_INVALID_ARGUMENT, "path is NULL");
    FAILS(sl_profile_begin("/nonexistent-directory/profile"), SL_ERR_INVALID_ARGUMENT, "cannot write the profile file");
    OK(sl_profile_begin(base));
    FAILS(sl_profile_begin(base), SL_ERR_INVALID_STATE, "already on");

    sl_array xb = vector_f64(x, BIG), ys = vector_f64(y, SMALL);
    int sin_even = 0, sin_odd = 0, exp_line = 0, add_line = 0, explicit_line = 0;
    for (int r = 0; r < ROUNDS; r++) {
        OK(sl_scope_begin());
        sl_array s, e, t, total, sq;
        /* Two lines making the same op: odd rounds replay the even rounds' trace-cache
         * entry, and their time must still go to their own line. */
        if (r % 2 == 0) {
            sin_even = __LINE__ + 1;
            OK(sl_sin(xb, &s));
        } else {
            sin_odd = __LINE__ + 1;
            OK(sl_sin(xb, &s));
        }
        exp_line = __LINE__ + 1;
        OK(sl_exp(s, &e));
        add_line = __LINE__ + 1;
        OK(sl_add(e, xb, &t));
        OK(sl_sum(t, SL_ALL_DIMS, &total));
        double got;
        OK(sl_read(total, SL_COL_MAJOR, &got, sizeof got));
        EXPECT(fabs(got - want) <= 1e-9 * BIG, "sum of exp(sin x) + x: %.17g, reference %.17g", got, want);

        explicit_line = __LINE__ + 1;
        OK(SL_AT(sl_mul(ys, ys, &sq)));
        OK(sl_read(sq, SL_COL_MAJOR, u, sizeof u));
        for (int i = 0; i < SMALL; i++) EXPECT(u[i] == y[i] * y[i], "y*y at %d: %g", i, u[i]);
        OK(sl_scope_end());
    }

    /* An error names the explicit site, and clearing it goes back to return addresses. */
    sl_array bad;
    char needle[64];
    snprintf(needle, sizeof needle, "profile.c:%d", __LINE__ + 1);
    FAILS(SL_AT(sl_add(xb, ys, &bad)), SL_ERR_SHAPE_MISMATCH, needle);
    snprintf(needle, sizeof needle, "profile.c:%d", __LINE__ + 1);
    FAILS(sl_add(xb, ys, &bad), SL_ERR_SHAPE_MISMATCH, needle);
    FAILS(sl_set_call_site("profile.c", -1), SL_ERR_INVALID_ARGUMENT, "line must not be negative");

    OK(sl_profile_end());
    FAILS(sl_profile_end(), SL_ERR_INVALID_STATE, "profiling is not on");
    OK(sl_release(xb));
    OK(sl_release(ys));

    /* What check_profile.py expects to find. */
    char path[4096];
    snprintf(path, sizeof path, "%s.expect.json", base);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    fprintf(f,
            "{\"file\": \"profile.c\", \"rounds\": %d, \"sin\": [%d, %d], \"exp\": %d, \"add\": %d, "
            "\"explicit\": %d}\n",
            ROUNDS, sin_even, sin_odd, exp_line, add_line, explicit_line);
    fclose(f);
    OK(sl_shutdown());
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
