// Complex and Fourier work, profiled by check_sites.py: every row of the profile must name a
// line of this file. A c128 signal is turned in frequency space (fft, a complex product,
// conj, ifft, abs) and a real one goes through rfft and irfft; the round trip is checked
// against the input, the filter against Parseval's theorem.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <sluice.hpp>

int main() {
    using C = std::complex<double>;
    constexpr int64_t n = 1 << 12;
    std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<C> x(n);
    for (C& v : x) v = C(uniform(rng), uniform(rng));
    std::vector<double> r(n);
    for (double& v : r) v = uniform(rng);

    const sluice::Array signal(x, {n});
    const sluice::Array spectrum = sluice::fft(signal, {0});
    const sluice::Array turned = sluice::conj(spectrum * C(0.6, 0.8));
    const sluice::Array back = sluice::ifft(turned, {0});
    // A unit factor and conj keep |X|; Parseval: sum |X|^2 = n sum |x|^2.
    const double energy = sluice::sum(sluice::abs(back) * sluice::abs(back)).item<double>();
    const double spectral = sluice::sum(sluice::abs(spectrum) * sluice::abs(spectrum)).item<double>();

    const sluice::Array real_signal(r, {n});
    const sluice::Array twice = sluice::irfft(sluice::rfft(real_signal, {0}) * 2.0, {0}, n);
    const std::vector<double> got = twice.read<double>();

    double want_energy = 0, worst = 0;
    for (const C& v : x) want_energy += std::norm(v);
    for (int64_t i = 0; i < n; i++) worst = std::max(worst, std::abs(got[i] - 2 * r[i]));
    const bool ok = std::abs(energy - want_energy) <= 1e-10 * want_energy &&
                    std::abs(spectral - n * want_energy) <= 1e-10 * n * want_energy && worst <= 1e-12;
    std::printf("spectral (C++): %s (energy %g, want %g; round trip error %g)\n", ok ? "ok" : "FAILED", energy,
                want_energy, worst);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
