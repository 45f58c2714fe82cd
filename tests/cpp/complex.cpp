// std::complex<float> and std::complex<double> arrays: constructors, read, operators
// with complex and real scalars, the complex functions and reductions, against
// std::complex loops on random inputs.
#include <complex>
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

}  // namespace

int main() {
    check<float>(2e-5, sluice::DType::c64);
    check<double>(1e-13, sluice::DType::c128);
    return test::finish("complex");
}
