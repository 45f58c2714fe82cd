// Fourier transforms from C++: a spectral Poisson solve on a periodic grid with
// std::complex<double> data (sluice::fft, division by the 5-point Laplacian's eigenvalues,
// sluice::ifft), checked by applying that Laplacian directly to the solution; and the
// real transforms' round trip and argument errors.
#include <cmath>
#include <complex>
#include <string>

#include "check.hpp"

using sluice::Array;
using C = std::complex<double>;

namespace {

const double pi = std::acos(-1.0);

void poisson() {
    // Column-major N x M grid; a composite and a prime length.
    const int64_t N = 48, M = 37;
    const std::vector<double> re = test::uniform(N * M, -1, 1), im = test::uniform(N * M, -1, 1);
    std::vector<C> f(N * M);
    C mean = 0;
    for (int64_t i = 0; i < N * M; i++) mean += (f[i] = C(re[i], im[i]));
    mean /= static_cast<double>(N * M);
    for (C& v : f) v -= mean;  // solvable: zero mean
    // Eigenvalues of the periodic 5-point Laplacian; 1 at the zero frequency, where the
    // right-hand side's transform is 0.
    std::vector<C> eig(N * M);
    for (int64_t l = 0; l < M; l++)
        for (int64_t k = 0; k < N; k++) {
            const double e = 2 * std::cos(2 * pi * k / N) + 2 * std::cos(2 * pi * l / M) - 4;
            eig[k + N * l] = (k == 0 && l == 0) ? 1.0 : e;
        }
    const Array rhs(f, {N, M}), lambda(eig, {N, M});
    const Array u = sluice::ifft(sluice::fft(rhs, {0, 1}) / lambda, {0, 1});
    const std::vector<C> got = u.read<C>();
    double err = 0, norm = 0;
    for (int64_t l = 0; l < M; l++)
        for (int64_t k = 0; k < N; k++) {
            const auto at = [&](int64_t i, int64_t j) { return got[(i + N) % N + N * ((j + M) % M)]; };
            const C lap = at(k - 1, l) + at(k + 1, l) + at(k, l - 1) + at(k, l + 1) - 4.0 * at(k, l);
            err += std::norm(lap - f[k + N * l]);
            norm += std::norm(f[k + N * l]);
        }
    // The solve divides by eigenvalues down to about (2 pi / 48)^2, which amplifies the
    // transforms' rounding by up to 1 / |lambda|min times |lambda|max (about 470).
    EXPECT(std::sqrt(err / norm) <= 1e-11, "Poisson residual " << std::sqrt(err / norm));
}

void real_round_trip() {
    const int64_t N = 30, M = 7;
    const std::vector<double> x = test::uniform(N * M, -1, 1);
    const Array a(x, {N, M});
    const Array h = sluice::rfft(a, {1, 0}, sluice::FftNorm::ortho);
    EXPECT(h.dtype() == sluice::DType::c128 && h.shape() == sluice::Shape({N / 2 + 1, M}), "rfft shape");
    EXPECT_CLOSE("irfft(rfft)", sluice::irfft(h, {1, 0}, N, sluice::FftNorm::ortho).read<double>(), x, 1e-14);
    EXPECT_ERROR(SL_ERR_SHAPE_MISMATCH, "n = 5", sluice::irfft(h, {1, 0}, 5));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "dims[1] = 2", sluice::fft(a, {0, 2}));
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "a is i32", sluice::fft(Array(std::vector<int32_t>{1, 2}, {2}), {0}));
}

}  // namespace

int main() {
    poisson();
    real_round_trip();
    return test::finish("fft");
}
