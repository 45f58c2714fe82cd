// Operators against plain loops on random inputs: arithmetic, comparison and logical
// operators with arrays, broadcast vectors and scalars on either side, compound
// assignment, integer and bool element types, mixed types and scalars (promotion),
// select with a scalar, and read's size check.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "check.hpp"

using sluice::Array;

namespace {

const sluice::Shape dims = {7, 5};
constexpr std::size_t rows = 7, n = 35;

// Checks op on (array, array), (array, scalar), (scalar, array) and (array, broadcast
// column vector) against ref on the elements. R is the result's element type.
template <class R, class T, class Op, class Ref>
void check_binary(const std::string& name, const std::vector<T>& x, const std::vector<T>& y, T s, Op op, Ref ref,
                  double tol) {
    const Array a(x, dims), b(y, dims), column(std::vector<T>(y.begin(), y.begin() + rows));
    std::vector<R> want(n);
    auto expect = [&](const std::string& form, const Array& got, auto element) {
        for (std::size_t i = 0; i < n; i++) want[i] = static_cast<R>(element(i));
        EXPECT_CLOSE(name + " " + form, got.template read<R>(), want, tol);
    };
    expect("array-array", op(a, b), [&](std::size_t i) { return ref(x[i], y[i]); });
    expect("array-scalar", op(a, s), [&](std::size_t i) { return ref(x[i], s); });
    expect("scalar-array", op(s, b), [&](std::size_t i) { return ref(s, y[i]); });
    expect("broadcast", op(a, column), [&](std::size_t i) { return ref(x[i], y[i % rows]); });
}

// Where the operator means the same on host numbers, it is its own reference.
template <class R, class T, class Op>
void check_binary(const std::string& name, const std::vector<T>& x, const std::vector<T>& y, T s, Op op, double tol) {
    check_binary<R>(name, x, y, s, op, op, tol);
}

const auto plus = [](const auto& p, const auto& q) { return p + q; };
const auto minus = [](const auto& p, const auto& q) { return p - q; };
const auto times = [](const auto& p, const auto& q) { return p * q; };
const auto divide = [](const auto& p, const auto& q) { return p / q; };
const auto modulo = [](const auto& p, const auto& q) { return p % q; };
const auto equal = [](const auto& p, const auto& q) { return p == q; };
const auto not_equal = [](const auto& p, const auto& q) { return p != q; };
const auto less = [](const auto& p, const auto& q) { return p < q; };
const auto less_equal = [](const auto& p, const auto& q) { return p <= q; };
const auto greater = [](const auto& p, const auto& q) { return p > q; };
const auto greater_equal = [](const auto& p, const auto& q) { return p >= q; };
const auto bit_and = [](const auto& p, const auto& q) { return p & q; };
const auto bit_or = [](const auto& p, const auto& q) { return p | q; };
const auto bit_xor = [](const auto& p, const auto& q) { return p ^ q; };

// Divisors away from zero, of either sign.
std::vector<double> divisors(std::size_t count) {
    std::vector<double> d = test::uniform(count, 0.5, 3.0);
    for (double& v : d)
        if (test::uniform(1, 0, 1)[0] < 0.5) v = -v;
    return d;
}

void floats() {
    const std::vector<double> x = test::uniform(n, -4, 4), y = divisors(n);
    const double s = divisors(1)[0];
    check_binary<double>("+", x, y, s, plus, 0);
    check_binary<double>("-", x, y, s, minus, 0);
    check_binary<double>("*", x, y, s, times, 0);
    check_binary<double>("/", x, y, s, divide, 0);
    check_binary<double>(
        "%", x, y, s, modulo, [](double p, double q) { return std::fmod(p, q); }, 0);

    // Comparisons: z shares some elements with x so == and != see both outcomes.
    std::vector<double> z = y;
    for (std::size_t i = 0; i < n; i += 3) z[i] = x[i];
    const double t = x[4];
    check_binary<bool>("==", x, z, t, equal, 0);
    check_binary<bool>("!=", x, z, t, not_equal, 0);
    check_binary<bool>("<", x, z, t, less, 0);
    check_binary<bool>("<=", x, z, t, less_equal, 0);
    check_binary<bool>(">", x, z, t, greater, 0);
    check_binary<bool>(">=", x, z, t, greater_equal, 0);

    // f32 arithmetic rounds each result to float, like the host.
    const std::vector<float> xf(x.begin(), x.end()), yf(y.begin(), y.end());
    check_binary<float>("f32 +", xf, yf, static_cast<float>(s), plus, 0);
    check_binary<float>("f32 *", xf, yf, static_cast<float>(s), times, 0);
    check_binary<float>("f32 /", xf, yf, static_cast<float>(s), divide, 0);
}

void unary_and_compound() {
    const std::vector<double> x = test::uniform(n, -4, 4), y = divisors(n);
    const double s = test::uniform(1, 1, 2)[0];
    const Array a(x, dims), b(y, dims);
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; i++) want[i] = -x[i];
    EXPECT_CLOSE("unary -", (-a).read<double>(), want, 0);

    Array acc = a;
    acc += b;
    acc *= s;
    acc -= 1.5;
    acc /= b;
    acc %= 2.0;
    for (std::size_t i = 0; i < n; i++) want[i] = std::fmod(((x[i] + y[i]) * s - 1.5) / y[i], 2.0);
    EXPECT_CLOSE("compound assignment", acc.read<double>(), want, 1e-15);
    EXPECT_CLOSE("compound assignment leaves the source", a.read<double>(), x, 0);

    // A longer expression, fused into one kernel.
    const Array e = (a * b + 2.0) / (1.0 + a * a) - 3.0 * b % 1.25;
    for (std::size_t i = 0; i < n; i++)
        want[i] = (x[i] * y[i] + 2.0) / (1.0 + x[i] * x[i]) - std::fmod(3.0 * y[i], 1.25);
    EXPECT_CLOSE("expression", e.read<double>(), want, 1e-15);
}

// Integer division truncates and x / 0 = 0; the remainder takes the dividend's sign.
int32_t int_div(int32_t p, int32_t q) { return q == 0 ? 0 : p / q; }
int32_t int_rem(int32_t p, int32_t q) { return q == 0 ? 0 : p % q; }

void integers() {
    const std::vector<int32_t> x = test::integers<int32_t>(n, -1000, 1000), y = test::integers<int32_t>(n, -9, 9);
    const int32_t s = test::integers<int32_t>(1, 2, 9)[0];
    check_binary<int32_t>("i32 +", x, y, s, plus, 0);
    check_binary<int32_t>("i32 -", x, y, s, minus, 0);
    check_binary<int32_t>("i32 *", x, y, s, times, 0);
    check_binary<int32_t>("i32 /", x, y, s, divide, int_div, 0);
    check_binary<int32_t>("i32 %", x, y, s, modulo, int_rem, 0);
    check_binary<int32_t>("i32 &", x, y, s, bit_and, 0);
    check_binary<int32_t>("i32 |", x, y, s, bit_or, 0);
    check_binary<int32_t>("i32 ^", x, y, s, bit_xor, 0);
    check_binary<bool>("i32 <", x, y, s, less, 0);
    std::vector<int32_t> want(n);
    for (std::size_t i = 0; i < n; i++) want[i] = ~x[i];
    EXPECT_CLOSE("i32 ~", (~Array(x, dims)).read<int32_t>(), want, 0);
}

void logical() {
    std::vector<bool> p(n), q(n);
    const std::vector<double> u = test::uniform(2 * n, 0, 1);
    for (std::size_t i = 0; i < n; i++) p[i] = u[i] < 0.5, q[i] = u[n + i] < 0.5;
    const Array a(p, dims), b(q, dims);
    std::vector<bool> want(n);
    auto expect = [&](const std::string& name, const Array& got, auto element) {
        for (std::size_t i = 0; i < n; i++) want[i] = element(i);
        EXPECT_CLOSE(name, got.read<bool>(), want, 0);
    };
    expect("&", a & b, [&](std::size_t i) { return p[i] && q[i]; });
    expect("|", a | b, [&](std::size_t i) { return p[i] || q[i]; });
    expect("^", a ^ b, [&](std::size_t i) { return p[i] != q[i]; });
    expect("!", !a, [&](std::size_t i) { return !p[i]; });
    expect("~", ~b, [&](std::size_t i) { return !q[i]; });
    expect("& true", a & true, [&](std::size_t i) { return p[i]; });
    expect("false |", false | b, [&](std::size_t i) { return q[i]; });
    // Comparisons combine into masks.
    const std::vector<double> x = test::uniform(n, -1, 1);
    const Array v(x, dims);
    expect("range mask", (v > -0.5) & (v < 0.5), [&](std::size_t i) { return x[i] > -0.5 && x[i] < 0.5; });
}

// Mixed element types promote (README "Type promotion"); scalars are weak.
void mixed() {
    const std::vector<int32_t> k = test::integers<int32_t>(n, -1000, 1000);
    const std::vector<double> u = test::uniform(n, -4, 4);
    const std::vector<float> x(u.begin(), u.end());
    const Array ka(k, dims), xa(x, dims);
    std::vector<float> want_f(n);
    std::vector<double> want_d(n);
    const Array kx = ka * xa;
    EXPECT(kx.dtype() == sluice::DType::f32, "i32 * f32 is f32");
    for (std::size_t i = 0; i < n; i++) want_f[i] = static_cast<float>(k[i]) * x[i];
    EXPECT_CLOSE("i32 * f32", kx.read<float>(), want_f, 0);
    // A double constant does not widen an f32 array.
    const Array scaled = xa * 0.1;
    EXPECT(scaled.dtype() == sluice::DType::f32, "f32 * double is f32");
    for (std::size_t i = 0; i < n; i++) want_f[i] = x[i] * 0.1f;
    EXPECT_CLOSE("f32 * 0.1", scaled.read<float>(), want_f, 0);
    // A double scalar makes an integer array's result f64; an integer one keeps i32.
    const Array half = ka + 2.5;
    EXPECT(half.dtype() == sluice::DType::f64, "i32 + 2.5 is f64");
    for (std::size_t i = 0; i < n; i++) want_d[i] = k[i] + 2.5;
    EXPECT_CLOSE("i32 + 2.5", half.read<double>(), want_d, 0);
    EXPECT((ka * 3).dtype() == sluice::DType::i32, "i32 * 3 is i32");
    // Monte Carlo pi: 4.0 * count(inside) / n is the f64 estimate.
    const std::vector<double> px = test::uniform(n, 0, 1), py = test::uniform(n, 0, 1);
    const Array ax(px, dims), ay(py, dims);
    const double pi = (4.0 * sluice::count(ax * ax + ay * ay <= 1.0) / static_cast<int64_t>(n)).item<double>();
    int64_t inside = 0;
    for (std::size_t i = 0; i < n; i++) inside += px[i] * px[i] + py[i] * py[i] <= 1.0;
    EXPECT(pi == 4.0 * static_cast<double>(inside) / static_cast<double>(n), "4.0 * count(inside) / n is " << pi);
    // cond(p, a, 0.0f) and cond(p, s, a): PeakStream's select with a scalar.
    const Array positive = xa > 0.0;
    for (std::size_t i = 0; i < n; i++) want_f[i] = x[i] > 0 ? x[i] : 0.0f;
    EXPECT_CLOSE("select(p, a, 0.0)", sluice::select(positive, xa, 0.0).read<float>(), want_f, 0);
    for (std::size_t i = 0; i < n; i++) want_f[i] = x[i] > 0 ? -1.5f : x[i];
    EXPECT_CLOSE("select(p, -1.5, a)", sluice::select(positive, -1.5, xa).read<float>(), want_f, 0);
    // read(ptr, count) takes exactly the array's size.
    std::vector<float> buffer(n + 1);
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "has 35 elements; the buffer needs exactly that many, not 36", xa.read(buffer.data(), n + 1));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "has 35 elements; the buffer needs exactly that many, not 34", xa.read(buffer.data(), n - 1));
    xa.read(buffer.data(), n);
    EXPECT(std::equal(x.begin(), x.end(), buffer.begin()), "read(ptr, n) copies the array");
}

}  // namespace

int main() {
    floats();
    unary_and_compound();
    integers();
    logical();
    mixed();
    // Stops the runtime's threads before exit (LeakSanitizer may report live threads).
    sluice::shutdown();
    return test::finish("operators");
}
