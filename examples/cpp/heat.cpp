// Explicit 2-D heat diffusion, checked against a plain loop.
//
// u <- u + alpha * (u[i-1,j] + u[i+1,j] + u[i,j-1] + u[i,j+1] - 4 u[i,j]) on an n x n grid
// held at zero outside (shifts fill with 0), for several hundred steps. A step is a macro:
// recorded the first time (a few shifts and element-wise ops fused into one kernel) and
// replayed on the new grid in one call after that. A Scope per step releases that step's
// handles, and keep() carries the new grid out of it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <sluice.hpp>

namespace {

constexpr int64_t n = 256;
constexpr int steps = 500;
constexpr double alpha = 0.2;  // stable for alpha <= 1/4

sluice::Array step(const sluice::Array& u) {
    return sluice::macro("heat_step", {u}, [](const std::vector<sluice::Array>& in) {
        using sluice::shift;
        const sluice::Array& v = in[0];
        const sluice::Array laplacian = shift(v, 0, 1) + shift(v, 0, -1) + shift(v, 1, 1) + shift(v, 1, -1) - 4.0 * v;
        return v + alpha * laplacian;
    });
}

// The same steps as plain loops over a column-major grid.
std::vector<double> reference(std::vector<double> u) {
    std::vector<double> next(u.size());
    auto at = [&](int64_t i, int64_t j) { return i < 0 || i >= n || j < 0 || j >= n ? 0.0 : u[i + n * j]; };
    for (int s = 0; s < steps; s++) {
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                const double laplacian = at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j);
                next[i + n * j] = at(i, j) + alpha * laplacian;
            }
        std::swap(u, next);
    }
    return u;
}

// A few hot spots on a noisy background (fixed seed: the run is reproducible).
std::vector<double> initial() {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> noise(0.0, 0.1);
    std::vector<double> u(n * n);
    const double spots[][3] = {{64, 64, 1.0}, {180, 100, 2.0}, {120, 200, 1.5}};
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double v = noise(rng);
            for (const auto& s : spots)
                v += s[2] * std::exp(-((i - s[0]) * (i - s[0]) + (j - s[1]) * (j - s[1])) / 200.0);
            u[i + n * j] = v;
        }
    return u;
}

}  // namespace

int main() {
    try {
        const std::vector<double> u0 = initial();
        const int64_t handles_before = sluice::live_handles();

        sluice::Array u(u0, {n, n});
        for (int s = 0; s < steps; s++) {
            sluice::Scope scope;
            u = sluice::keep(step(u));
        }
        const std::vector<double> result = u.read<double>();
        const double total = sluice::sum(u).item<double>();
        const int64_t handles_after = sluice::live_handles();

        const std::vector<double> want = reference(u0);
        double max_error = 0;
        for (std::size_t k = 0; k < want.size(); k++) max_error = std::max(max_error, std::fabs(result[k] - want[k]));

        std::printf("heat: %lld x %lld grid, %d steps, alpha %.2f\n", static_cast<long long>(n),
                    static_cast<long long>(n), steps, alpha);
        std::printf("total heat %.6f, centre %.6f, hottest %.6f\n", total, result[n / 2 + n * (n / 2)],
                    *std::max_element(result.begin(), result.end()));
        std::printf("max error against a plain loop: %.3g\n", max_error);
        std::printf("live handles: %lld before, %lld after (u)\n", static_cast<long long>(handles_before),
                    static_cast<long long>(handles_after));
        // Each step adds a few roundings of values below 3; 1e-12 leaves room for a different
        // association in fused kernels, and catches any wrong neighbour or boundary.
        if (max_error > 1e-12 || handles_after != handles_before + 1) {
            std::fprintf(stderr, "heat: WRONG\n");
            return 1;
        }
        std::printf("heat: OK\n");
        return 0;
    } catch (const sluice::Error& e) {
        std::fprintf(stderr, "heat: %s: %s\n", e.status_name(), e.what());
        return 1;
    }
}
