// std::complex<float> and std::complex<double> arrays: constructors, read, operators
// with complex and real scalars, the complex functions and reductions, against
// std::complex loops on random inputs.
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "check.hpp"

using sluice::Array;

namespace {

template <class T> std::vector<std::complex<T>> random_complex(std::size_t n) {
    const std::vector<double> re = test::uniform(n, -2, 2), im = test::uniform(n, -2, 2);
    std::vector<std::complex<T>> v(n);
    for (std::size_t i = 0; i < n; i++) v[i] = {static_cast<T>(re[i]), static_cast<T>(im[i])};
    return v;
}

// |got - want| <= tol * max(1, |want|) element-wise.
template <class T>
void expect_close(const std::string& what, const std::vector<std::complex<T>>& got,
                  const std::vector<std::complex<double>>& want, double tol) {
    EXPECT(got.size() == want.size(), what << ": " << got.size() << " elements");
    for (std::size_t i = 0; i < got.size() && i < want.size(); i++) {
        const std::complex<double> g(got[i].real(), got[i].imag());
        if (std::abs(g - want[i]) > tol * std::fmax(1.0, std::abs(want[i]))) {
            EXPECT(false, what << ": element " << i << " is " << g << ", wanted " << want[i]);
            return;
        }
    }
}

template <class T> void check(double tol, sluice::DType dtype) {
    using C = std::complex<T>;
    const std::string name = sluice::dtype_name(dtype);
    const std::size_t n = 1000;
    const std::vector<C> x = random_complex<T>(n), y = random_complex<T>(n);
    const Array a(x, {static_cast<int64_t>(n)}), b(y, {static_cast<int64_t>(n)});
    EXPECT(a.dtype() == dtype, name << " arrays from std::complex");
    const C s(static_cast<T>(0.5), static_cast<T>(-1.5));
    const Array z = (a * b + sluice::conj(a)) / (b - s) * 2.0 + C(1, 1);
    std::vector<std::complex<double>> want(n);
    std::complex<double> total = 0;
    for (std::size_t i = 0; i < n; i++) {
        const std::complex<double> xi(x[i]), yi(y[i]), si(s);
        want[i] = (xi * yi + std::conj(xi)) / (yi - si) * 2.0 + std::complex<double>(1, 1);
        total += want[i];
    }
    expect_close(name + " expression", z.template read<C>(), want, tol);
    expect_close(name + " sum", sluice::sum(z).template read<C>(), {total}, tol * n);
    // Parts, modulus and phase are real arrays of the parts' type.
    const std::vector<T> re = sluice::real(z).template read<T>(), im = sluice::imag(z).template read<T>();
    const std::vector<T> modulus = sluice::abs(z).template read<T>(), phase = sluice::arg(z).template read<T>();
    for (std::size_t i = 0; i < n; i++) {
        EXPECT(std::fabs(re[i] - want[i].real()) <= tol * std::fmax(1.0, std::abs(want[i])), name << " real " << i);
        EXPECT(std::fabs(im[i] - want[i].imag()) <= tol * std::fmax(1.0, std::abs(want[i])), name << " imag " << i);
        // abs and arg of the computed z, not of the exact one: near z = 0 the expression's
        // rounding moves arg(z) by any amount.
        const std::complex<double> zi(re[i], im[i]);
        EXPECT(std::fabs(modulus[i] - std::abs(zi)) <= tol * std::abs(zi), name << " abs " << i);
        EXPECT(std::fabs(phase[i] - std::arg(zi)) <= tol, name << " arg " << i);
    }
    // Made from parts, and compared.
    const Array rebuilt = sluice::complex(sluice::real(a), sluice::imag(a));
    const std::vector<bool> same = (rebuilt == a).template read<bool>();
    for (std::size_t i = 0; i < n; i++) EXPECT(same[i], name << " complex(real, imag) == a at " << i);
    const std::vector<C> e = sluice::exp(a * 0.5).template read<C>();
    std::vector<std::complex<double>> want_exp(n);
    for (std::size_t i = 0; i < n; i++) want_exp[i] = std::exp(std::complex<double>(x[i]) * 0.5);
    expect_close(name + " exp", e, want_exp, 4 * tol);
    // Complex to real is refused; real casts to complex.
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "imaginary part", sluice::cast(a, sluice::DType::f64));
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "no order", sluice::lt(a, b));
    const Array widened = sluice::cast(sluice::real(a), dtype);
    EXPECT(widened.dtype() == dtype, name << " cast to complex");
    EXPECT(sluice::scalar(dtype, s).template item<C>() == s, name << " complex scalar");
}

// sin, cos, tan, sinh, cosh, tanh and pow against std::complex<long double> (glibc's
// long double functions, far more precise than T). README's bounds: each part of
// sin/cos/sinh/cosh within 8 eps of itself, of tan/tanh within 25 eps, so the complex
// error is within sqrt(2) times that of |want|; pow's bound grows with |y log x|.
template <class T> void check_functions(sluice::DType dtype) {
    using C = std::complex<T>;
    using L = std::complex<long double>;
    const std::string name = sluice::dtype_name(dtype);
    const double eps = std::numeric_limits<T>::epsilon(), tiny = std::numeric_limits<T>::min();
    const std::size_t n = 800;
    std::vector<C> x = random_complex<T>(n), y = random_complex<T>(n);
    for (C& v : x) v *= 3;  // parts in (-6, 6): cosh up to 200, tan near its poles
    const Array a(x, {static_cast<int64_t>(n)}), b(y, {static_cast<int64_t>(n)});
    const auto expect_within = [&](const std::string& what, const std::vector<C>& got, auto want, auto units) {
        for (std::size_t i = 0; i < n; i++) {
            const L w = want(i);
            const long double err = std::abs(L(got[i].real(), got[i].imag()) - w);
            if (err > units(i) * std::sqrt(2.0L) * eps * (std::abs(w) + tiny)) {
                EXPECT(false, name << " " << what << " at " << i << ": got " << got[i] << ", want " << w);
                return;
            }
        }
    };
    struct Case {
        const char* name;
        Array (*f)(const Array&);
        L (*ref)(const L&);
        double units;
    };
    const Case cases[] = {
        {"sin", [](const Array& v) { return sluice::sin(v); }, [](const L& z) { return std::sin(z); }, 8},
        {"cos", [](const Array& v) { return sluice::cos(v); }, [](const L& z) { return std::cos(z); }, 8},
        {"tan", [](const Array& v) { return sluice::tan(v); }, [](const L& z) { return std::tan(z); }, 25},
        {"sinh", [](const Array& v) { return sluice::sinh(v); }, [](const L& z) { return std::sinh(z); }, 8},
        {"cosh", [](const Array& v) { return sluice::cosh(v); }, [](const L& z) { return std::cosh(z); }, 8},
        {"tanh", [](const Array& v) { return sluice::tanh(v); }, [](const L& z) { return std::tanh(z); }, 25},
    };
    for (const Case& c : cases) {
        expect_within(
            c.name, c.f(a).template read<C>(), [&](std::size_t i) { return c.ref(L(x[i].real(), x[i].imag())); },
            [&](std::size_t) { return c.units; });
    }
    // x^y = exp(y log x): the exponent's parts carry a few eps of |y log x| into the
    // result (the bound of tests/complex.rs).
    const auto pow_units = [&](const C& base, const C& e) {
        const double l = std::fabs(std::log(std::abs(std::complex<double>(base))));
        const double t = std::fabs(std::arg(std::complex<double>(base)));
        const double p = std::fabs(e.real()), q = std::fabs(e.imag());
        return 4 * (p * l + q * t + p * t + q * l) + 3 * (p + q) + 5.5;
    };
    const auto exact_pow = [](const C& base, const C& e) {
        return std::exp(L(e.real(), e.imag()) * std::log(L(base.real(), base.imag())));
    };
    expect_within(
        "pow", sluice::pow(a, b).template read<C>(), [&](std::size_t i) { return exact_pow(x[i], y[i]); },
        [&](std::size_t i) { return pow_units(x[i], y[i]); });
    const C s(static_cast<T>(1.25), static_cast<T>(-0.5));
    expect_within(
        "pow by a complex scalar", sluice::pow(a, std::complex<double>(s)).template read<C>(),
        [&](std::size_t i) { return exact_pow(x[i], s); }, [&](std::size_t i) { return pow_units(x[i], s); });
    expect_within(
        "complex scalar to a power", sluice::pow(std::complex<double>(s), b).template read<C>(),
        [&](std::size_t i) { return exact_pow(s, y[i]); }, [&](std::size_t i) { return pow_units(s, y[i]); });
    expect_within(
        "pow by a real scalar", sluice::pow(a, 2.5).template read<C>(),
        [&](std::size_t i) { return exact_pow(x[i], C(2.5)); }, [&](std::size_t i) { return pow_units(x[i], 2.5); });

    // Scatter adding into a complex constant: repeated indices add up.
    const int64_t m = 37;
    const C start(static_cast<T>(0.5), static_cast<T>(-2));
    const std::vector<int64_t> idx = test::integers<int64_t>(n, 0, m - 1);
    const Array added = sluice::scatter(sluice::constant(dtype, {m}, std::complex<double>(start)),
                                        {Array(idx, {static_cast<int64_t>(n)})}, b, sluice::ScatterMode::add);
    std::vector<std::complex<double>> want(m, std::complex<double>(start));
    std::vector<double> size(m, std::abs(std::complex<double>(start)));
    for (std::size_t i = 0; i < n; i++) {
        want[idx[i]] += std::complex<double>(y[i]);
        size[idx[i]] += std::abs(std::complex<double>(y[i]));
    }
    const std::vector<C> got = added.template read<C>();
    for (int64_t i = 0; i < m; i++) {
        // One rounding per addition, in any order, per part.
        const double bound = 2 * eps * (n + 1) * size[i];
        EXPECT(std::abs(std::complex<double>(got[i]) - want[i]) <= bound,
               name << " scatter add at " << i << ": " << got[i] << " vs " << want[i]);
    }
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "no order",
                 sluice::scatter(a, {Array(idx, {static_cast<int64_t>(n)})}, b, sluice::ScatterMode::max));

    // Complex normals: E|z|^2 = 1, within six standard errors (|z|^2 is exponential).
    sluice::Rng gen(test::integers<uint64_t>(1, 0, 1 << 30)[0]);
    const std::size_t draws = 1 << 16;
    const std::vector<C> z = gen.normal(dtype, {static_cast<int64_t>(draws)}).template read<C>();
    double power = 0;
    for (const C& v : z) power += std::norm(std::complex<double>(v));
    power /= draws;
    EXPECT(std::fabs(power - 1) < 6 / std::sqrt(static_cast<double>(draws)), name << " normal E|z|^2 " << power);
}

}  // namespace

int main() {
    check<float>(2e-5, sluice::DType::c64);
    check<double>(1e-13, sluice::DType::c128);
    check_functions<float>(sluice::DType::c64);
    check_functions<double>(sluice::DType::c128);
    return test::finish("complex");
}
