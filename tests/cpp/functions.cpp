// A broad sample of the free functions against plain loops on random inputs: creation and
// reading in both layouts, element-wise math, reductions and scans along every dimension,
// data movement, gather/scatter, matmul and dot.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include "check.hpp"

using sluice::Array;
using sluice::DType;
using sluice::Shape;

namespace {

// f64 math is within a few ulps of glibc (documented per function in the library); f32
// within a few ulps of the correctly rounded value.
constexpr double f64_tol = 1e-14, f32_tol = 1e-6;

// Column-major linear index of a multi-index.
int64_t linear(const Shape& dims, const Shape& idx) {
    int64_t at = 0, stride = 1;
    for (std::size_t d = 0; d < dims.size(); d++) {
        at += idx[d] * stride;
        stride *= dims[d];
    }
    return at;
}

// Index v moved into [0, n): to the nearest edge, or cyclically.
int64_t clamp_to(int64_t v, int64_t n) { return std::min<int64_t>(std::max<int64_t>(v, 0), n - 1); }
int64_t wrap_to(int64_t v, int64_t n) { return ((v % n) + n) % n; }

// Calls f(idx) for every multi-index of `dims`, in column-major order.
void for_each_index(const Shape& dims, const std::function<void(const Shape&)>& f) {
    const int64_t total = test::numel(dims);
    Shape idx(dims.size(), 0);
    for (int64_t k = 0; k < total; k++) {
        f(idx);
        for (std::size_t d = 0; d < dims.size() && ++idx[d] == dims[d]; d++) idx[d] = 0;
    }
}

// out[idx] = f(idx) over `dims`, column-major.
template <class F> auto tabulate(const Shape& dims, F f) {
    std::vector<decltype(f(dims))> out;
    out.reserve(static_cast<std::size_t>(test::numel(dims)));
    for_each_index(dims, [&](const Shape& idx) { out.push_back(f(idx)); });
    return out;
}

void creation() {
    const Shape dims = {3, 4};
    const std::vector<double> x = test::uniform(12, -5, 5);
    const double c = x[0];
    EXPECT_CLOSE("constant", sluice::constant(DType::f64, dims, c).read<double>(), std::vector<double>(12, c), 0);
    EXPECT_NEAR("scalar", sluice::scalar(DType::f64, c).item<double>(), c, 0);
    for (int32_t dim = 0; dim < 2; dim++)
        EXPECT_CLOSE("iota along " + std::to_string(dim), sluice::iota(DType::i64, dims, dim).read<int64_t>(),
                     tabulate(dims, [&](const Shape& i) { return i[static_cast<std::size_t>(dim)]; }), 0);
    EXPECT_CLOSE("identity", sluice::identity(DType::f32, 3, 4).read<float>(),
                 tabulate(dims, [](const Shape& i) { return i[0] == i[1] ? 1.0f : 0.0f; }), 0);

    // Row-major data: element (i, j) is x[i * 4 + j]; read back either way.
    const Array m(x, dims, sluice::Layout::row_major);
    EXPECT(m.shape() == dims && m.rank() == 2 && m.numel() == 12 && m.dtype() == DType::f64, "queries");
    EXPECT_CLOSE("row-major in, column-major out", m.read<double>(),
                 tabulate(dims, [&](const Shape& i) { return x[static_cast<std::size_t>(i[0] * 4 + i[1])]; }), 0);
    EXPECT_CLOSE("row-major round trip", m.read<double>(sluice::Layout::row_major), x, 0);
    std::vector<double> buffer(12);
    m.read(buffer.data(), buffer.size(), sluice::Layout::row_major);
    EXPECT_CLOSE("read into a caller buffer", buffer, x, 0);
    const Array from_pointer(x.data(), dims);
    EXPECT_CLOSE("from a pointer", from_pointer.read<double>(), x, 0);

    // Every element type round-trips.
    const std::vector<int64_t> ints = test::integers<int64_t>(12, -100000, 100000);
    const std::vector<uint8_t> bytes = test::integers<uint8_t>(12, 0, 255);
    std::vector<bool> flags(12);
    for (std::size_t i = 0; i < 12; i++) flags[i] = bytes[i] % 2 != 0;
    const std::vector<float> floats(x.begin(), x.end());
    const std::vector<int32_t> int32s(ints.begin(), ints.end());
    EXPECT_CLOSE("f32", Array(floats, dims).read<float>(), floats, 0);
    EXPECT_CLOSE("i32", Array(int32s, dims).read<int32_t>(), int32s, 0);
    EXPECT_CLOSE("i64", Array(ints, dims).read<int64_t>(), ints, 0);
    EXPECT_CLOSE("u8", Array(bytes, dims).read<uint8_t>(), bytes, 0);
    EXPECT_CLOSE("bool", Array(flags, dims).read<bool>(), flags, 0);
    EXPECT(Array(flags, dims).dtype() == DType::b8, "bool dtype");
}

// The inverse error function (the C++ library has none): bisection to where erfc (for
// |x| >= 1/2, whose 1 - |x| is exact) or erf crosses, then a Newton step.
double erfinv_reference(double x) {
    const double a = std::fabs(x);
    auto g = [a](double y) { return a >= 0.5 ? std::erfc(y) - (1 - a) : a - std::erf(y); };
    double lo = 0, hi = 6;
    for (int i = 0; i < 100; i++) (g(0.5 * (lo + hi)) > 0 ? lo : hi) = 0.5 * (lo + hi);
    const double y = 0.5 * (lo + hi);
    return std::copysign(y + g(y) / (2 / std::sqrt(M_PI) * std::exp(-y * y)), x);
}

struct UnaryCase {
    const char* name;
    Array (*op)(const Array&);
    double (*ref)(double);
    double lo, hi;
};

const UnaryCase unary_cases[] = {
    {"neg", sluice::neg, [](double v) { return -v; }, -10, 10},
    {"abs", sluice::abs, [](double v) { return std::fabs(v); }, -10, 10},
    {"sign", sluice::sign, [](double v) { return static_cast<double>((v > 0) - (v < 0)); }, -1, 1},
    {"sqrt", sluice::sqrt, [](double v) { return std::sqrt(v); }, 0, 100},
    {"rsqrt", sluice::rsqrt, [](double v) { return 1 / std::sqrt(v); }, 0.01, 100},
    {"cbrt", sluice::cbrt, [](double v) { return std::cbrt(v); }, -100, 100},
    {"rcp", sluice::rcp, [](double v) { return 1 / v; }, 0.1, 10},
    {"exp", sluice::exp, [](double v) { return std::exp(v); }, -20, 20},
    {"exp2", sluice::exp2, [](double v) { return std::exp2(v); }, -20, 20},
    {"expm1", sluice::expm1, [](double v) { return std::expm1(v); }, -1, 1},
    {"log", sluice::log, [](double v) { return std::log(v); }, 1e-3, 1e3},
    {"log2", sluice::log2, [](double v) { return std::log2(v); }, 1e-3, 1e3},
    {"log10", sluice::log10, [](double v) { return std::log10(v); }, 1e-3, 1e3},
    {"log1p", sluice::log1p, [](double v) { return std::log1p(v); }, -0.9, 10},
    {"sin", sluice::sin, [](double v) { return std::sin(v); }, -100, 100},
    {"cos", sluice::cos, [](double v) { return std::cos(v); }, -100, 100},
    {"tan", sluice::tan, [](double v) { return std::tan(v); }, -1.5, 1.5},
    {"asin", sluice::asin, [](double v) { return std::asin(v); }, -1, 1},
    {"acos", sluice::acos, [](double v) { return std::acos(v); }, -1, 1},
    {"atan", sluice::atan, [](double v) { return std::atan(v); }, -50, 50},
    {"sinh", sluice::sinh, [](double v) { return std::sinh(v); }, -5, 5},
    {"cosh", sluice::cosh, [](double v) { return std::cosh(v); }, -5, 5},
    {"tanh", sluice::tanh, [](double v) { return std::tanh(v); }, -5, 5},
    {"asinh", sluice::asinh, [](double v) { return std::asinh(v); }, -50, 50},
    {"acosh", sluice::acosh, [](double v) { return std::acosh(v); }, 1, 50},
    {"atanh", sluice::atanh, [](double v) { return std::atanh(v); }, -0.99, 0.99},
    {"erf", sluice::erf, [](double v) { return std::erf(v); }, -3, 3},
    {"erfc", sluice::erfc, [](double v) { return std::erfc(v); }, -3, 9},
    {"erfinv", sluice::erfinv, erfinv_reference, -0.999, 0.999},
    {"lgamma", sluice::lgamma, [](double v) { return std::lgamma(v); }, 0.05, 30},
    {"tgamma", sluice::tgamma, [](double v) { return std::tgamma(v); }, -4.5, 20},
    {"floor", sluice::floor, [](double v) { return std::floor(v); }, -10, 10},
    {"ceil", sluice::ceil, [](double v) { return std::ceil(v); }, -10, 10},
    {"round", sluice::round, [](double v) { return std::round(v); }, -10, 10},
    {"trunc", sluice::trunc, [](double v) { return std::trunc(v); }, -10, 10},
};

// Every unary math function in T against the f64 host function on the same inputs.
template <class T> void unary_math(double tol) {
    const Shape dims = {33, 17};
    for (const UnaryCase& c : unary_cases) {
        const std::vector<double> u = test::uniform(33 * 17, c.lo, c.hi);
        const std::vector<T> x(u.begin(), u.end());
        std::vector<double> want(x.size());
        for (std::size_t i = 0; i < x.size(); i++) want[i] = c.ref(static_cast<double>(x[i]));
        EXPECT_CLOSE(std::string(c.name) + " " + sluice::dtype_name(sluice::dtype_of<T>()),
                     c.op(Array(x, dims)).template read<T>(), want, tol);
    }
}

// isnan / isinf / not, and the generic unary(), binary(), reduce() with C op codes.
// fma against std::fma: c = -round(a b) leaves the product's rounding error, which a * b + c
// loses; a scalar c broadcasts.
void fused_multiply_add() {
    const std::vector<double> x = test::uniform(300, -10, 10), y = test::uniform(300, -10, 10);
    std::vector<double> c(x.size()), want(x.size());
    for (std::size_t i = 0; i < x.size(); i++) c[i] = -(x[i] * y[i]), want[i] = std::fma(x[i], y[i], c[i]);
    EXPECT_CLOSE("fma", sluice::fma(Array(x), Array(y), Array(c)).read<double>(), want, 0);
    for (std::size_t i = 0; i < x.size(); i++) want[i] = std::fma(x[i], y[i], 0.5);
    EXPECT_CLOSE("fma with a scalar", sluice::fma(Array(x), Array(y), Array(std::vector<double>{0.5}, {})).read<double>(),
                 want, 0);
}

void classification_and_generic_forms() {
    std::vector<double> x = test::uniform(40, -1, 1);
    for (std::size_t i = 0; i < x.size(); i += 5) x[i] = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 2; i < x.size(); i += 7) x[i] = (i % 2 ? -1 : 1) * std::numeric_limits<double>::infinity();
    const Array a(x);
    std::vector<bool> nan(x.size()), inf(x.size()), finite(x.size());
    for (std::size_t i = 0; i < x.size(); i++)
        nan[i] = std::isnan(x[i]), inf[i] = std::isinf(x[i]), finite[i] = std::isfinite(x[i]);
    EXPECT_CLOSE("isnan", sluice::isnan(a).read<bool>(), nan, 0);
    EXPECT_CLOSE("isinf", sluice::isinf(a).read<bool>(), inf, 0);
    EXPECT_CLOSE("not_", sluice::not_(sluice::isnan(a) | sluice::isinf(a)).read<bool>(), finite, 0);

    const std::vector<double> y = test::uniform(40, 0.5, 2), z = test::uniform(40, 0.5, 2);
    const Array b(y), c(z);
    std::vector<double> want(y.size());
    for (std::size_t i = 0; i < y.size(); i++) want[i] = std::exp(y[i]);
    EXPECT_CLOSE("unary(SL_EXP)", sluice::unary(SL_EXP, b).read<double>(), want, f64_tol);
    for (std::size_t i = 0; i < y.size(); i++) want[i] = std::pow(y[i], z[i]);
    EXPECT_CLOSE("binary(SL_POW)", sluice::binary(SL_POW, b, c).read<double>(), want, f64_tol);
    for (std::size_t i = 0; i < y.size(); i++) want[i] = std::hypot(y[i], 1.5);
    EXPECT_CLOSE("binary(SL_HYPOT, a, s)", sluice::binary(SL_HYPOT, b, 1.5).read<double>(), want, f64_tol);
    for (std::size_t i = 0; i < y.size(); i++) want[i] = std::atan2(1.5, z[i]);
    EXPECT_CLOSE("binary(SL_ATAN2, s, b)", sluice::binary(SL_ATAN2, 1.5, c).read<double>(), want, f64_tol);
    EXPECT_NEAR("reduce(SL_MAXVAL)", sluice::reduce(SL_MAXVAL, b).item<double>(), *std::max_element(y.begin(), y.end()),
                0);
}

// The binary functions with arrays and scalars on either side, select and cast.
void binary_functions() {
    const std::size_t n = 50;
    const std::vector<double> x = test::uniform(n, 0.1, 3), y = test::uniform(n, -3, 3);
    const double s = test::uniform(1, 0.5, 2)[0];
    const Array a(x), b(y);
    struct Case {
        const char* name;
        Array (*aa)(const Array&, const Array&);
        Array (*as)(const Array&, double);
        Array (*sa)(double, const Array&);
        double (*ref)(double, double);
    };
    const Case cases[] = {
        {"pow", sluice::pow, sluice::pow, sluice::pow, [](double p, double q) { return std::pow(p, q); }},
        {"atan2", sluice::atan2, sluice::atan2, sluice::atan2, [](double p, double q) { return std::atan2(p, q); }},
        {"hypot", sluice::hypot, sluice::hypot, sluice::hypot, [](double p, double q) { return std::hypot(p, q); }},
        {"min", sluice::min, sluice::min, sluice::min, [](double p, double q) { return std::fmin(p, q); }},
        {"max", sluice::max, sluice::max, sluice::max, [](double p, double q) { return std::fmax(p, q); }},
        {"rem", sluice::rem, sluice::rem, sluice::rem, [](double p, double q) { return std::fmod(p, q); }},
    };
    std::vector<double> want(n);
    for (const Case& c : cases) {
        const std::string name = c.name;
        for (std::size_t i = 0; i < n; i++) want[i] = c.ref(x[i], y[i]);
        EXPECT_CLOSE(name + "(a, b)", c.aa(a, b).read<double>(), want, f64_tol);
        for (std::size_t i = 0; i < n; i++) want[i] = c.ref(x[i], s);
        EXPECT_CLOSE(name + "(a, s)", c.as(a, s).read<double>(), want, f64_tol);
        for (std::size_t i = 0; i < n; i++) want[i] = c.ref(s, x[i]);
        EXPECT_CLOSE(name + "(s, a)", c.sa(s, a).read<double>(), want, f64_tol);
    }

    for (std::size_t i = 0; i < n; i++) want[i] = y[i] > 0 ? x[i] : y[i];
    EXPECT_CLOSE("select", sluice::select(b > 0.0, a, b).read<double>(), want, 0);
    std::vector<int32_t> truncated(n);
    for (std::size_t i = 0; i < n; i++) truncated[i] = static_cast<int32_t>(y[i] * 100);
    EXPECT_CLOSE("cast to i32 truncates", sluice::cast(b * 100.0, DType::i32).read<int32_t>(), truncated, 0);
}

// A reduction of `x` (shape dims) along `dim` with `fold`, from `init`.
template <class R>
std::vector<R> reduce_along(const Shape& dims, const std::vector<double>& x, std::size_t dim, R init,
                            const std::function<R(R, double)>& fold) {
    Shape out_dims = dims;
    out_dims[dim] = 1;
    return tabulate(out_dims, [&](const Shape& idx) {
        Shape at = idx;
        R acc = init;
        for (at[dim] = 0; at[dim] < dims[dim]; at[dim]++)
            acc = fold(acc, x[static_cast<std::size_t>(linear(dims, at))]);
        return acc;
    });
}

// The inclusive scan of `x` along `dim`: element idx folds the elements up to it.
std::vector<double> scan_along(const Shape& dims, const std::vector<double>& x, std::size_t dim, double init,
                               const std::function<double(double, double)>& fold) {
    return tabulate(dims, [&](const Shape& idx) {
        Shape at = idx;
        double acc = init;
        for (at[dim] = 0; at[dim] <= idx[dim]; at[dim]++)
            acc = fold(acc, x[static_cast<std::size_t>(linear(dims, at))]);
        return acc;
    });
}

// Index along `dim` of the first element equal to `extreme` (one per reduced position).
std::vector<int64_t> position_along(const Shape& dims, const std::vector<double>& x, std::size_t dim,
                                    const std::vector<double>& extreme) {
    Shape out_dims = dims;
    out_dims[dim] = 1;
    std::vector<int64_t> index;
    for_each_index(out_dims, [&](const Shape& idx) {
        Shape at = idx;
        while (x[static_cast<std::size_t>(linear(dims, at))] != extreme[index.size()]) at[dim]++;
        index.push_back(at[dim]);
    });
    return index;
}

void reductions() {
    const Shape dims = {6, 5, 4};
    const std::vector<double> x = test::uniform(120, 0.5, 1.5);
    std::vector<double> sparse = test::uniform(120, 0, 1);  // about a fifth nonzero
    for (double& v : sparse) v = v < 0.8 ? 0 : std::ceil(v * 10);
    const Array a(x, dims), s(sparse, dims);
    const double inf = std::numeric_limits<double>::infinity();
    const auto plus = [](double p, double q) { return p + q; };
    const auto times = [](double p, double q) { return p * q; };
    for (int32_t d = 0; d < 3; d++) {
        const auto dim = static_cast<std::size_t>(d);
        const std::string along = " along " + std::to_string(d);
        const double length = static_cast<double>(dims[dim]);
        const std::vector<double> smallest =
            reduce_along<double>(dims, x, dim, inf, [](double p, double q) { return std::fmin(p, q); });
        const std::vector<double> largest =
            reduce_along<double>(dims, x, dim, -inf, [](double p, double q) { return std::fmax(p, q); });
        EXPECT_CLOSE("sum" + along, sluice::sum(a, d).read<double>(), reduce_along<double>(dims, x, dim, 0, plus),
                     f64_tol);
        EXPECT_CLOSE("prod" + along, sluice::prod(a, d).read<double>(), reduce_along<double>(dims, x, dim, 1, times),
                     f64_tol);
        EXPECT_CLOSE("minval" + along, sluice::minval(a, d).read<double>(), smallest, 0);
        EXPECT_CLOSE("maxval" + along, sluice::maxval(a, d).read<double>(), largest, 0);
        EXPECT_CLOSE("mean" + along, sluice::mean(a, d).read<double>(),
                     reduce_along<double>(dims, x, dim, 0, [&](double p, double q) { return p + q / length; }),
                     f64_tol);
        EXPECT_CLOSE("argmin" + along, sluice::argmin(a, d).read<int64_t>(), position_along(dims, x, dim, smallest), 0);
        EXPECT_CLOSE("argmax" + along, sluice::argmax(a, d).read<int64_t>(), position_along(dims, x, dim, largest), 0);
        EXPECT_CLOSE("count" + along, sluice::count(s, d).read<int64_t>(),
                     reduce_along<int64_t>(dims, sparse, dim, 0, [](int64_t n, double v) { return n + (v != 0); }), 0);
        EXPECT_CLOSE("any" + along, sluice::any(s, d).read<bool>(),
                     reduce_along<bool>(dims, sparse, dim, false, [](bool p, double v) { return p || v != 0; }), 0);
        EXPECT_CLOSE("all" + along, sluice::all(s, d).read<bool>(),
                     reduce_along<bool>(dims, sparse, dim, true, [](bool p, double v) { return p && v != 0; }), 0);
        EXPECT_CLOSE("cumsum" + along, sluice::cumsum(a, d).read<double>(), scan_along(dims, x, dim, 0, plus), f64_tol);
        EXPECT_CLOSE("cumprod" + along, sluice::cumprod(a, d).read<double>(), scan_along(dims, x, dim, 1, times),
                     f64_tol);
        const auto larger = [](double p, double q) { return std::fmax(p, q); };
        EXPECT_CLOSE("cummax" + along, sluice::cummax(a, d).read<double>(), scan_along(dims, x, dim, -inf, larger), 0);
        // An exclusive scan is the inclusive one of the elements before.
        const std::vector<double> inclusive = scan_along(dims, x, dim, 0, plus);
        std::vector<double> exclusive(inclusive.size());
        for (std::size_t i = 0; i < x.size(); i++) exclusive[i] = inclusive[i] - x[i];
        EXPECT_CLOSE("exclusive cumsum" + along, sluice::scan(SL_SCAN_SUM, a, d, true).read<double>(), exclusive,
                     f64_tol);
        // Sample variance along the dimension: squared deviations from each row's mean.
        const std::vector<double> mu =
            reduce_along<double>(dims, x, dim, 0, [&](double p, double q) { return p + q / length; });
        Shape out_dims = dims;
        out_dims[dim] = 1;
        const std::vector<double> var = tabulate(out_dims, [&](const Shape& idx) {
            Shape at = idx;
            double ss = 0;
            const double m = mu[static_cast<std::size_t>(linear(out_dims, idx))];
            for (at[dim] = 0; at[dim] < dims[dim]; at[dim]++) {
                const double dev = x[static_cast<std::size_t>(linear(dims, at))] - m;
                ss += dev * dev;
            }
            return ss / (length - 1);
        });
        EXPECT_CLOSE("var" + along, sluice::var(a, d, 1).read<double>(), var, 1e-12);
        EXPECT_CLOSE("norm1" + along, sluice::norm1(a, d).read<double>(),
                     reduce_along<double>(dims, x, dim, 0, [](double p, double q) { return p + std::fabs(q); }),
                     f64_tol);
    }
    {
        double m = 0, ss = 0, sq = 0;
        for (double v : x) m += v / static_cast<double>(x.size());
        for (double v : x) ss += (v - m) * (v - m), sq += v * v;
        EXPECT_NEAR("var of everything", sluice::var(a, sluice::all_dims, 1).item<double>(),
                    ss / static_cast<double>(x.size() - 1), f64_tol);
        EXPECT_NEAR("stddev of everything", sluice::stddev(a).item<double>(), std::sqrt(ss / static_cast<double>(x.size())),
                    f64_tol);
        EXPECT_NEAR("Frobenius norm", sluice::reduce_dims(SL_NORM2, a, 0x7).item<double>(), std::sqrt(sq), f64_tol);
        EXPECT(sluice::reduce_dims(SL_SUM, a, 0x5).rank() == 3, "a reduction over dimensions keeps them");
    }
    double total = 0;
    for (double v : x) total += v;
    EXPECT_NEAR("sum of everything", sluice::sum(a).item<double>(), total, f64_tol);
    EXPECT(sluice::sum(a).rank() == 0, "a full reduction has rank 0");
    const auto first_max = std::max_element(x.begin(), x.end()) - x.begin();
    EXPECT(sluice::argmax(a).item<int64_t>() == first_max, "argmax of everything is the linear index " << first_max);
}

void movement() {
    const Shape dims = {7, 5};
    const std::vector<double> x = test::uniform(35, -1, 1);
    const Array a(x, dims);
    auto at = [&](int64_t i, int64_t j) { return x[static_cast<std::size_t>(i + 7 * j)]; };

    EXPECT_CLOSE("transpose", sluice::transpose(a).read<double>(),
                 tabulate({5, 7}, [&](const Shape& i) { return at(i[1], i[0]); }), 0);
    const Shape dims3 = {4, 3, 2};
    const std::vector<double> y = test::uniform(24, -1, 1);
    EXPECT_CLOSE("permute {2, 0, 1}", sluice::permute(Array(y, dims3), {2, 0, 1}).read<double>(),
                 tabulate({2, 4, 3},
                          [&](const Shape& i) {
                              return y[static_cast<std::size_t>(linear(dims3, {i[1], i[2], i[0]}))];
                          }),
                 0);
    const Array r = sluice::reshape(a, {5, 7});
    EXPECT(r.shape() == (Shape{5, 7}), "reshape shape");
    EXPECT_CLOSE("reshape keeps column-major order", r.read<double>(), x, 0);
    EXPECT_CLOSE("section with a negative stride", sluice::section(a, {1, 4}, {3, 3}, {2, -2}).read<double>(),
                 tabulate({3, 3}, [&](const Shape& i) { return at(1 + 2 * i[0], 4 - 2 * i[1]); }), 0);
    EXPECT_CLOSE("section, unit strides", sluice::section(a, {2, 1}, {4, 3}).read<double>(),
                 tabulate({4, 3}, [&](const Shape& i) { return at(2 + i[0], 1 + i[1]); }), 0);
    EXPECT_CLOSE("project", sluice::project(a, 1, 3).read<double>(),
                 tabulate({7}, [&](const Shape& i) { return at(i[0], 3); }), 0);

    const double fill = test::uniform(1, 5, 6)[0];
    EXPECT_CLOSE("shift with fill", sluice::shift(a, 0, 2, sluice::Boundary::fill, fill).read<double>(),
                 tabulate(dims, [&](const Shape& i) { return i[0] - 2 >= 0 ? at(i[0] - 2, i[1]) : fill; }), 0);
    EXPECT_CLOSE("shift with clamp", sluice::shift(a, 1, -2, sluice::Boundary::clamp).read<double>(),
                 tabulate(dims, [&](const Shape& i) { return at(i[0], clamp_to(i[1] + 2, 5)); }), 0);
    EXPECT_CLOSE("shift with wrap", sluice::shift(a, 0, 3, sluice::Boundary::wrap).read<double>(),
                 tabulate(dims, [&](const Shape& i) { return at(wrap_to(i[0] - 3, 7), i[1]); }), 0);
    EXPECT_CLOSE("rotate", sluice::rotate(a, 1, -2).read<double>(),
                 tabulate(dims, [&](const Shape& i) { return at(i[0], wrap_to(i[1] + 2, 5)); }), 0);

    const Shape padded = {7 + 1 + 2, 5 + 0 + 3};
    auto inside = [](int64_t v, int64_t n) { return v >= 0 && v < n; };
    EXPECT_CLOSE(
        "pad with fill", sluice::pad(a, {1, 0}, {2, 3}, sluice::Boundary::fill, fill).read<double>(),
        tabulate(padded,
                 [&](const Shape& i) { return inside(i[0] - 1, 7) && inside(i[1], 5) ? at(i[0] - 1, i[1]) : fill; }),
        0);
    EXPECT_CLOSE("pad with clamp", sluice::pad(a, {1, 0}, {2, 3}, sluice::Boundary::clamp).read<double>(),
                 tabulate(padded, [&](const Shape& i) { return at(clamp_to(i[0] - 1, 7), clamp_to(i[1], 5)); }), 0);
    EXPECT_CLOSE("pad with wrap", sluice::pad(a, {1, 0}, {2, 3}, sluice::Boundary::wrap).read<double>(),
                 tabulate(padded, [&](const Shape& i) { return at(wrap_to(i[0] - 1, 7), wrap_to(i[1], 5)); }), 0);

    EXPECT_CLOSE("tile", sluice::tile(a, {2, 1, 3}).read<double>(),
                 tabulate({14, 5, 3}, [&](const Shape& i) { return at(i[0] % 7, i[1]); }), 0);
    const std::vector<double> column = test::uniform(7, -1, 1);
    EXPECT_CLOSE("broadcast_to", sluice::broadcast_to(Array(column), dims).read<double>(),
                 tabulate(dims, [&](const Shape& i) { return column[static_cast<std::size_t>(i[0])]; }), 0);
    const std::vector<double> z = test::uniform(21, -1, 1);
    EXPECT_CLOSE("concat along 1", sluice::concat({a, Array(z, {7, 3})}, 1).read<double>(),
                 tabulate({7, 8},
                          [&](const Shape& i) {
                              return i[1] < 5 ? at(i[0], i[1]) : z[static_cast<std::size_t>(i[0] + 7 * (i[1] - 5))];
                          }),
                 0);
}

void gather_and_scatter() {
    const Shape dims = {7, 5};
    const std::vector<double> x = test::uniform(35, -1, 1);
    const Array a(x, dims);
    const std::size_t n = 40;
    // Some indices fall outside: gather clamps them, scatter drops them.
    const std::vector<int64_t> rows = test::integers<int64_t>(n, -2, 8), cols = test::integers<int64_t>(n, 0, 4);
    const Array ri(rows), ci(cols);
    std::vector<double> want(n);
    for (std::size_t k = 0; k < n; k++)
        want[k] = x[static_cast<std::size_t>(clamp_to(rows[k], 7) + 7 * clamp_to(cols[k], 5))];
    EXPECT_CLOSE("gather", sluice::gather(a, {ri, ci}).read<double>(), want, 0);

    const std::vector<double> v = test::uniform(n, -1, 1);
    const Array values(v);
    auto scattered = [&](const std::function<double(double, double)>& combine) {
        std::vector<double> out = x;
        for (std::size_t k = 0; k < n; k++)
            if (rows[k] >= 0 && rows[k] < 7) {
                double& slot = out[static_cast<std::size_t>(rows[k] + 7 * cols[k])];
                slot = combine(slot, v[k]);
            }
        return out;
    };
    EXPECT_CLOSE("scatter add", sluice::scatter(a, {ri, ci}, values, sluice::ScatterMode::add).read<double>(),
                 scattered([](double p, double q) { return p + q; }), f64_tol);
    EXPECT_CLOSE("scatter replace (the last source position wins)", sluice::scatter(a, {ri, ci}, values).read<double>(),
                 scattered([](double, double q) { return q; }), 0);
    EXPECT_CLOSE("scatter min", sluice::scatter(a, {ri, ci}, values, sluice::ScatterMode::min).read<double>(),
                 scattered([](double p, double q) { return std::fmin(p, q); }), 0);
    EXPECT_CLOSE("scatter max", sluice::scatter(a, {ri, ci}, values, sluice::ScatterMode::max).read<double>(),
                 scattered([](double p, double q) { return std::fmax(p, q); }), 0);
}

// Floored gathers under each policy and interp1/interp2 against plain loops; an
// out-of-range index under the error policy throws where the result is read.
void gather_policies_and_interpolation() {
    const int64_t r = 7, c = 5;
    const std::vector<double> x = test::uniform(static_cast<std::size_t>(r * c), -1, 1);
    const Array a(x, {r, c});
    const std::size_t n = 50;
    const std::vector<double> rows = test::uniform(n, -9, 16), cols = test::uniform(n, -6, 11);
    const Array ri(rows), ci(cols);
    auto at = [&](int64_t i, int64_t j) { return x[static_cast<std::size_t>(i + r * j)]; };
    std::vector<double> fill(n), wrap(n), clamp(n);
    for (std::size_t k = 0; k < n; k++) {
        const auto i = static_cast<int64_t>(std::floor(rows[k])), j = static_cast<int64_t>(std::floor(cols[k]));
        fill[k] = (i >= 0 && i < r && j >= 0 && j < c) ? at(i, j) : 9.5;
        wrap[k] = at(wrap_to(i, r), wrap_to(j, c));
        clamp[k] = at(clamp_to(i, r), clamp_to(j, c));
    }
    using sluice::IndexPolicy;
    EXPECT_CLOSE("floored gather, fill", sluice::gather(a, {ri, ci}, IndexPolicy::fill, 9.5).read<double>(), fill, 0);
    EXPECT_CLOSE("floored gather, wrap", sluice::gather(a, {ri, ci}, IndexPolicy::wrap).read<double>(), wrap, 0);
    EXPECT_CLOSE("floored gather, clamp", sluice::gather(a, {ri, ci}).read<double>(), clamp, 0);

    // interp1 along the columns (each column a trace) at positions per column.
    const int64_t m = 12;
    const std::vector<double> p = test::uniform(static_cast<std::size_t>(m * c), -2, r + 1);
    const Array pos(p, {m, c});
    auto lerp_at = [&](double q, int64_t j) {
        const double f = std::floor(q), w = q - f;
        const auto lo = clamp_to(static_cast<int64_t>(f), r), hi = clamp_to(static_cast<int64_t>(f) + 1, r);
        return at(lo, j) + w * (at(hi, j) - at(lo, j));
    };
    auto in_range = [&](double q, int64_t n_) { return q >= 0 && q <= static_cast<double>(n_ - 1); };
    EXPECT_CLOSE("interp1, clamp", sluice::interp1(a, pos, 0).read<double>(),
                 tabulate({m, c}, [&](const Shape& i) { return lerp_at(p[static_cast<std::size_t>(i[0] + m * i[1])], i[1]); }),
                 f64_tol);
    EXPECT_CLOSE("interp1, fill", sluice::interp1(a, pos, 0, IndexPolicy::fill, -4).read<double>(),
                 tabulate({m, c},
                          [&](const Shape& i) {
                              const double q = p[static_cast<std::size_t>(i[0] + m * i[1])];
                              return in_range(q, r) ? lerp_at(q, i[1]) : -4.0;
                          }),
                 f64_tol);
    // interp2 at points inside the grid.
    const std::vector<double> u = test::uniform(n, 0, r - 1), v = test::uniform(n, 0, c - 1);
    std::vector<double> bilinear(n);
    for (std::size_t k = 0; k < n; k++) {
        const auto i = static_cast<int64_t>(std::floor(u[k])), j = static_cast<int64_t>(std::floor(v[k]));
        const double wu = u[k] - static_cast<double>(i), wv = v[k] - static_cast<double>(j);
        const auto i1 = clamp_to(i + 1, r), j1 = clamp_to(j + 1, c);
        const double lo = at(i, j) + wu * (at(i1, j) - at(i, j)), hi = at(i, j1) + wu * (at(i1, j1) - at(i, j1));
        bilinear[k] = lo + wv * (hi - lo);
    }
    EXPECT_CLOSE("interp2", sluice::interp2(a, Array(u), Array(v), 0, 1, IndexPolicy::error).read<double>(), bilinear,
                 f64_tol);
    const Array bad = sluice::gather(a, {ri, ci}, IndexPolicy::error);
    EXPECT_ERROR(SL_ERR_POISONED, "is out of range for the source [7, 5]", bad.read<double>());
}

void linear_algebra() {
    const int64_t m = 9, k = 6, n = 4;
    const std::vector<double> x = test::uniform(static_cast<std::size_t>(m * k), -1, 1);
    const std::vector<double> y = test::uniform(static_cast<std::size_t>(k * n), -1, 1);
    const Array a(x, {m, k}), b(y, {k, n});
    auto product = [&](int64_t cols, const std::vector<double>& rhs) {
        return tabulate({m, cols}, [&](const Shape& i) {
            double acc = 0;
            for (int64_t p = 0; p < k; p++)
                acc += x[static_cast<std::size_t>(i[0] + m * p)] * rhs[static_cast<std::size_t>(p + k * i[1])];
            return acc;
        });
    };
    EXPECT_CLOSE("matmul", sluice::matmul(a, b).read<double>(), product(n, y), f64_tol);
    const std::vector<double> vec(y.begin(), y.begin() + k);
    EXPECT_CLOSE("matmul by a vector", sluice::matmul(a, Array(vec)).read<double>(), product(1, vec), f64_tol);
    double d = 0;
    for (std::size_t i = 0; i < x.size(); i++) d += x[i] * x[x.size() - 1 - i];
    std::vector<double> reversed(x.rbegin(), x.rend());
    EXPECT_NEAR("dot", sluice::dot(a, Array(reversed, {m, k})).item<double>(), d, f64_tol);
}

void evaluation() {
    const std::vector<double> x = test::uniform(1000, -1, 1);
    const Array a(x);
    const Array p = sluice::exp(a), q = sluice::cos(a);
    sluice::eval({p, q});
    q.hint_read();
    sluice::hint_read(p);
    sluice::sync();
    EXPECT(sluice::stats().flushes > 0, "sync flushed the pending work");
    std::vector<double> want(x.size());
    for (std::size_t i = 0; i < x.size(); i++) want[i] = std::exp(x[i]) + std::cos(x[i]);
    EXPECT_CLOSE("evaluated values", (p + q).eval().read<double>(), want, f64_tol);
    const std::array<int32_t, 3> v = sluice::version();
    EXPECT(v[0] == SL_VERSION_MAJOR && v[1] == SL_VERSION_MINOR && v[2] == SL_VERSION_PATCH,
           "version " << v[0] << "." << v[1]);
}

void random_numbers() {
    sluice::Rng rng(test::rng()());
    const Array u = rng.uniform(DType::f64, {100000});
    const std::vector<double> v = u.read<double>();
    double mean = 0;
    for (double x : v) {
        EXPECT(x >= 0 && x < 1, "uniform value " << x << " in [0, 1)");
        mean += x / static_cast<double>(v.size());
    }
    // Six standard errors of the mean of 1e5 uniforms.
    EXPECT(std::abs(mean - 0.5) < 6 * std::sqrt(1.0 / 12 / 1e5), "uniform mean " << mean);
    const std::array<uint64_t, 2> s = rng.state();
    EXPECT(s[1] == 1, "one draw taken");
    const std::vector<float> z1 = rng.normal(DType::f32, {50}).read<float>();
    rng.set_state(s[0], s[1]);
    EXPECT(rng.normal(DType::f32, {50}).read<float>() == z1, "a restored state repeats its draw");
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "f32 or f64", rng.uniform(DType::i32, {3}));
    sluice::Rng moved = std::move(rng);
    EXPECT(moved.state()[1] == 2, "a moved generator keeps its state");
    // The other laws, from a Threefry generator: ranges and means (five standard errors).
    sluice::Rng tf(test::rng()(), sluice::RngKind::threefry);
    const auto mean_of = [](const std::vector<double>& a) {
        double m = 0;
        for (double x : a) m += x / static_cast<double>(a.size());
        return m;
    };
    const int64_t n = 65536;
    const std::vector<int32_t> k = tf.poisson(6.5, DType::i32, {n}).read<int32_t>();
    std::vector<double> kd(k.begin(), k.end());
    EXPECT(std::abs(mean_of(kd) - 6.5) < 5 * std::sqrt(6.5 / n), "Poisson mean " << mean_of(kd));
    const std::vector<double> g = tf.gamma(2.5, 2.0, DType::f64, {n}).read<double>();
    EXPECT(std::abs(mean_of(g) - 5.0) < 5 * 2 * std::sqrt(2.5 / n), "gamma mean " << mean_of(g));
    const std::vector<int64_t> in = tf.integers(-7, 100, DType::i64, {n}).read<int64_t>();
    bool inside = true;
    for (int64_t x : in) inside = inside && x >= -7 && x < 100;
    EXPECT(inside, "integers in [-7, 100)");
    const std::vector<double> r = tf.uniform(2.0, 3.0, DType::f64, {n}).read<double>();
    EXPECT(std::abs(mean_of(r) - 2.5) < 5 * std::sqrt(1.0 / 12 / n), "uniform range mean " << mean_of(r));
    const std::vector<double> e = tf.exponential(0.5, DType::f64, {n}).read<double>();
    EXPECT(std::abs(mean_of(e) - 0.5) < 5 * 0.5 / std::sqrt(n), "exponential mean " << mean_of(e));
    const std::vector<double> b = tf.beta(1.0, 3.0, DType::f64, {n}).read<double>();
    EXPECT(std::abs(mean_of(b) - 0.25) < 5 * std::sqrt(0.0375 / n), "beta mean " << mean_of(b));
    const std::vector<double> c = tf.chisquare(5.0, DType::f64, {n}).read<double>();
    EXPECT(std::abs(mean_of(c) - 5.0) < 5 * std::sqrt(10.0 / n), "chi-square mean " << mean_of(c));
    const std::vector<double> heads = sluice::cast(tf.bernoulli(0.4, {n}), DType::f64).read<double>();
    EXPECT(std::abs(mean_of(heads) - 0.4) < 5 * std::sqrt(0.24 / n), "Bernoulli frequency " << mean_of(heads));
    const std::vector<double> pts = sluice::sobol(2, 0, 4).read<double>();
    EXPECT((pts == std::vector<double>{0, 0.5, 0.75, 0.25, 0, 0.5, 0.25, 0.75}), "Sobol' points");
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "lambda", tf.poisson(-2.0, DType::i32, {3}));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "dimensions", sluice::sobol(0, 0, 3));
    const sl_cache_stats trace = sluice::cache_stats(sluice::Cache::trace);
    EXPECT(trace.lookups >= trace.hits, "trace cache counters");
    const sl_cache_stats programs = sluice::cache_stats(sluice::Cache::program);
    EXPECT(programs.lookups == programs.hits + programs.misses && programs.entries + programs.evictions <= programs.misses,
           "program cache counters");
}

}  // namespace

int main() {
    creation();
    unary_math<double>(f64_tol);
    unary_math<float>(f32_tol);
    fused_multiply_add();
    classification_and_generic_forms();
    binary_functions();
    reductions();
    movement();
    gather_and_scatter();
    gather_policies_and_interpolation();
    linear_algebra();
    evaluation();
    random_numbers();
    // Stops the runtime's threads before exit (LeakSanitizer may report live threads).
    sluice::shutdown();
    return test::finish("functions");
}
