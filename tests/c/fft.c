/* Fourier transforms from C: circular convolutions computed by FFT (real signals through
 * sl_rfft/sl_irfft, a complex C99 `double _Complex` image through sl_fft/sl_ifft along
 * two dimensions) against the direct sums, on random inputs. */
#include <complex.h>
#include <math.h>

#include "check.h"

/* A length with a prime factor (7 * 11 * 13), so mixed radix and Bluestein both run. */
#define N 1001

static void real_convolution(void) {
    static double x[N], k[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = uniform(-1, 1);
        k[i] = uniform(-1, 1);
    }
    OK(sl_scope_begin());
    sl_array hx = vector_f64(x, N), hk = vector_f64(k, N), fx, fk, prod, conv;
    int32_t dim = 0;
    OK(sl_rfft(hx, 1, &dim, SL_FFT_BACKWARD, &fx));
    OK(sl_rfft(hk, 1, &dim, SL_FFT_BACKWARD, &fk));
    int64_t half;
    OK(sl_shape(fx, &half, 1));
    EXPECT(half == N / 2 + 1, "rfft of %d points keeps %d, got %lld", N, N / 2 + 1, (long long)half);
    OK(sl_mul(fx, fk, &prod));
    OK(sl_irfft(prod, 1, &dim, N, SL_FFT_BACKWARD, &conv));
    OK(sl_read(conv, SL_COL_MAJOR, y, sizeof y));
    double err = 0, norm = 0;
    for (int i = 0; i < N; i++) {
        double want = 0;
        for (int j = 0; j < N; j++) want += x[j] * k[(i - j + N) % N];
        err += (y[i] - want) * (y[i] - want);
        norm += want * want;
    }
    /* Relative RMS error within 8 eps log2(N): three transforms of 1001 points. */
    EXPECT(sqrt(err / norm) <= 8 * 2.2e-16 * log2(N), "relative RMS error %g", sqrt(err / norm));
    /* The wrong output length is refused, naming it. */
    sl_array bad;
    FAILS(sl_irfft(prod, 1, &dim, N + 2, SL_FFT_BACKWARD, &bad), SL_ERR_SHAPE_MISMATCH, "n = 1003");
    OK(sl_scope_end());
}

static void complex_image_convolution(void) {
    enum { R = 24, C = 20 };
    static double complex a[C][R], b[C][R], out[C][R]; /* column-major R x C */
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) {
            a[j][i] = uniform(-1, 1) + uniform(-1, 1) * I;
            b[j][i] = uniform(-1, 1) + uniform(-1, 1) * I;
        }
    OK(sl_scope_begin());
    int64_t dims[2] = {R, C};
    int32_t both[2] = {0, 1};
    sl_array ha, hb, fa, fb, p, c;
    OK(sl_create(SL_C128, 2, dims, SL_COL_MAJOR, a, sizeof a, &ha));
    OK(sl_create(SL_C128, 2, dims, SL_COL_MAJOR, b, sizeof b, &hb));
    OK(sl_fft(ha, 2, both, SL_FFT_ORTHO, &fa));
    OK(sl_fft(hb, 2, both, SL_FFT_ORTHO, &fb));
    OK(sl_mul(fa, fb, &p));
    /* Each ortho transform is scaled by 1/sqrt(R C), so the product carries 1/(R C): the
     * scale of the plain inverse, which the unscaled (SL_FFT_FORWARD) inverse leaves. */
    OK(sl_ifft(p, 2, both, SL_FFT_FORWARD, &c));
    OK(sl_read(c, SL_COL_MAJOR, out, sizeof out));
    double err = 0, norm = 0;
    for (int j = 0; j < C; j++)
        for (int i = 0; i < R; i++) {
            double complex want = 0;
            for (int q = 0; q < C; q++)
                for (int r = 0; r < R; r++) want += a[q][r] * b[(j - q + C) % C][(i - r + R) % R];
            err += cabs(out[j][i] - want) * cabs(out[j][i] - want);
            norm += cabs(want) * cabs(want);
        }
    EXPECT(sqrt(err / norm) <= 8 * 2.2e-16 * log2(R * C), "relative RMS error %g", sqrt(err / norm));
    OK(sl_scope_end());
}

int main(void) {
    seed_rng("fft");
    real_convolution();
    complex_image_convolution();
    sl_shutdown();
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
