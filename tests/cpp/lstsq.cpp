// Least squares and QR from C++: a quadratic fitted in f32 to noisy samples of a known
// polynomial (the coefficients must come back within the stated tolerance), a batch of
// complex line fits y = c0 + c1 t with complex coefficients, and the complete QR of a
// complex matrix (Q^H Q = I, Q R = A) checked with std::complex loops; a rank-deficient
// fit throws SL_ERR_SINGULAR where x is read.
#include <complex>

#include "check.hpp"

using sluice::Array;
using Z = std::complex<double>;

int main() {
    // f32: y = c0 + c1 t + c2 t^2 at m points, noise at most 1e-4; the fit's error is
    // about ||A^+|| sqrt(m) 1e-4 plus f32 rounding: 2e-3 allows for both.
    const int64_t m = 300, deg = 3;
    const std::vector<double> t = test::uniform(m, -1, 1), noise = test::uniform(m, -1e-4, 1e-4);
    const std::vector<double> c = test::uniform(deg, -2, 2);
    std::vector<float> a(m * deg), y(m);
    for (int64_t i = 0; i < m; i++) {
        double p = 1, s = 0;
        for (int64_t j = 0; j < deg; j++, p *= t[i]) {
            a[i + j * m] = float(p);
            s += c[j] * p;
        }
        y[i] = float(s + noise[i]);
    }
    const std::vector<float> fit = sluice::lstsq(Array(a, {m, deg}), Array(y, {m})).read<float>();
    EXPECT_CLOSE("quadratic fit in f32", fit, c, 2e-3);

    // A batch of complex line fits: y = c0 + c1 t exactly plus complex noise 1e-9.
    const int64_t batch = 6, n = 50;
    std::vector<Z> al(n * 2 * batch), yl(n * batch), cl(2 * batch);
    const std::vector<double> parts = test::uniform(4 * batch + 3 * n * batch, -1, 1);
    std::size_t next = 0;
    for (int64_t k = 0; k < batch; k++) {
        cl[2 * k] = {parts[next], parts[next + 1]};
        cl[2 * k + 1] = {parts[next + 2], parts[next + 3]};
        next += 4;
        for (int64_t i = 0; i < n; i++) {
            const double ti = parts[next++];
            al[k * 2 * n + i] = 1.0;
            al[k * 2 * n + i + n] = ti;
            yl[k * n + i] = cl[2 * k] + cl[2 * k + 1] * ti + 1e-9 * Z(parts[next], parts[next + 1]);
            next += 2;
        }
    }
    const std::vector<Z> got = sluice::lstsq(Array(al, {n, 2, batch}), Array(yl, {n, 1, batch})).read<Z>();
    double worst = 0;
    for (int64_t i = 0; i < 2 * batch; i++) worst = std::max(worst, std::abs(got[i] - cl[i]));
    EXPECT(worst < 1e-7, "complex line fits: worst coefficient error " << worst);

    // Complete QR of a complex 7x4 matrix.
    const int64_t r = 7, s = 4;
    std::vector<Z> q7(r * s);
    for (int64_t i = 0; i < r * s; i++) q7[i] = {parts[i], parts[parts.size() - 1 - i]};
    const sluice::QR f = sluice::qr(Array(q7, {r, s}), sluice::QrMode::complete);
    EXPECT(f.q.shape() == sluice::Shape({r, r}) && f.r.shape() == sluice::Shape({r, s}), "complete QR shapes");
    const std::vector<Z> qv = f.q.read<Z>(), rv = f.r.read<Z>();
    double orth = 0, rebuilt = 0;
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < r; j++) {
            Z dot = 0;
            for (int64_t p = 0; p < r; p++) dot += std::conj(qv[p + i * r]) * qv[p + j * r];
            orth = std::max(orth, std::abs(dot - Z(i == j ? 1.0 : 0.0)));
        }
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < s; j++) {
            Z sum = 0;
            for (int64_t p = 0; p < r; p++) sum += qv[i + p * r] * rv[p + j * r];
            rebuilt = std::max(rebuilt, std::abs(sum - q7[i + j * r]));
        }
    EXPECT(orth < 1e-14, "Q^H Q = I: " << orth);
    EXPECT(rebuilt < 1e-14, "Q R = A: " << rebuilt);
    const sluice::QR only_r = sluice::qr(Array(q7, {r, s}), sluice::QrMode::r);
    EXPECT(!only_r.q.handle() && only_r.r.shape() == sluice::Shape({s, s}), "R alone");

    // Column 1 a copy of column 0: rank-deficient.
    std::vector<float> dup = a;
    for (int64_t i = 0; i < m; i++) dup[i + m] = dup[i];
    const Array bad = sluice::lstsq(Array(dup, {m, deg}), Array(y, {m}));
    EXPECT_ERROR(SL_ERR_SINGULAR, "rank-deficient", bad.read<float>());
    return test::finish("lstsq");
}
