// Matrix products from C++: gemm with every op on real and complex matrices (complex
// scalars), matmul of a complex matrix and vector and of a real vector and matrix, outer, vdot, against std::complex loops on
// random inputs; (max, +) inner products of an i32 stack and an outer max against loops; a bad shape
// and a pair not defined for the type throw.
#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <string>

#include "check.hpp"

using sluice::Array;
using sluice::Op;
using Z = std::complex<double>;

namespace {

std::vector<Z> random_matrix(int64_t rows, int64_t cols) {
    const std::vector<double> re = test::uniform(rows * cols, -1, 1), im = test::uniform(rows * cols, -1, 1);
    std::vector<Z> v(rows * cols);
    for (std::size_t i = 0; i < v.size(); i++) v[i] = {re[i], im[i]};
    return v;
}

// Element (i, j) of op(x) for an x of `rows` rows (column-major).
Z at(const std::vector<Z>& x, int64_t rows, Op op, int64_t i, int64_t j) {
    if (op == Op::none) return x[i + j * rows];
    const Z v = x[j + i * rows];
    return op == Op::conj_trans ? std::conj(v) : v;
}

void check_gemm(Op op_a, Op op_b) {
    const int64_t m = 7, k = 19, n = 4;
    const auto dims = [](Op op, int64_t r, int64_t c) { return op == Op::none ? sluice::Shape{r, c} : sluice::Shape{c, r}; };
    const sluice::Shape da = dims(op_a, m, k), db = dims(op_b, k, n);
    const std::vector<Z> a = random_matrix(da[0], da[1]), b = random_matrix(db[0], db[1]), c = random_matrix(m, n);
    const Z alpha(0.5, -1.5), beta(2.0, 0.25);
    const std::vector<Z> got = sluice::gemm(op_a, Array(a, da), op_b, Array(b, db), alpha, Array(c, {m, n}), beta).read<Z>();
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = 0; i < m; i++) {
            Z want = beta * c[i + j * m];
            for (int64_t p = 0; p < k; p++) want += alpha * at(a, da[0], op_a, i, p) * at(b, db[0], op_b, p, j);
            EXPECT(std::abs(got[i + j * m] - want) < 1e-12 * k, "gemm ops " << int(op_a) << int(op_b) << " (" << i << ", " << j << ")");
        }
    }
}

}  // namespace

int main() {
    for (Op op_a : {Op::none, Op::trans, Op::conj_trans})
        for (Op op_b : {Op::none, Op::trans, Op::conj_trans}) check_gemm(op_a, op_b);

    // A vector times a matrix: x (length k) times b (k x n) is the vector of length n.
    {
        const int64_t kk = 6, nn = 9;
        const std::vector<double> x = test::uniform(kk, -1, 1), mat = test::uniform(kk * nn, -1, 1);
        const Array xm = sluice::matmul(Array(x), Array(mat, {kk, nn}));
        EXPECT(xm.shape() == sluice::Shape({nn}), "vector x matrix is a vector of length n");
        const std::vector<double> got = xm.read<double>();
        for (int64_t j = 0; j < nn; j++) {
            double want = 0;
            for (int64_t p = 0; p < kk; p++) want += x[p] * mat[p + j * kk];
            EXPECT(std::abs(got[j] - want) < 1e-14 * kk, "x b [" << j << "]");
        }
    }

    // Real gemm with real scalars: 2 a^T b - c.
    const int64_t m = 5, k = 11;
    const std::vector<double> a = test::uniform(k * m, -1, 1), b = test::uniform(k, -1, 1), c = test::uniform(m, -1, 1);
    const std::vector<double> y = sluice::gemm(Op::trans, Array(a, {k, m}), Op::none, Array(b), 2.0, Array(c), -1.0).read<double>();
    for (int64_t i = 0; i < m; i++) {
        double want = -c[i];
        for (int64_t p = 0; p < k; p++) want += 2.0 * a[p + i * k] * b[p];
        EXPECT(std::abs(y[i] - want) < 1e-13 * k, "2 a^T b - c [" << i << "]");
    }

    // A complex matrix times a vector, and vdot conjugating its first operand.
    const std::vector<Z> za = random_matrix(m, k), zx = random_matrix(k, 1);
    const std::vector<Z> zy = sluice::matmul(Array(za, {m, k}), Array(zx)).read<Z>();
    for (int64_t i = 0; i < m; i++) {
        Z want = 0;
        for (int64_t p = 0; p < k; p++) want += za[i + p * m] * zx[p];
        EXPECT(std::abs(zy[i] - want) < 1e-13 * k, "complex matvec [" << i << "]");
    }
    Z want = 0;
    for (int64_t p = 0; p < k; p++) want += std::conj(zx[p]) * zx[p] * Z(0, 1);
    const Z got = sluice::vdot(Array(zx), sluice::mul(Array(zx), Z(0, 1))).read<Z>()[0];
    EXPECT(std::abs(got - want) < 1e-13 * k, "vdot " << got << " vs " << want);

    const std::vector<double> o = sluice::outer(Array(b), Array(c)).read<double>();
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < k; i++) EXPECT(o[i + j * k] == b[i] * c[j], "outer (" << i << ", " << j << ")");

    // Longest paths of two steps, (max, +) on a stack of two i32 matrices times one matrix;
    // the max of an outer pair.
    {
        const int64_t r = 6, q = 13, s = 4;
        const std::vector<int32_t> ia = test::integers<int32_t>(r * q * 2, -1000, 1000), ib = test::integers<int32_t>(q * s, -1000, 1000);
        const Array ip = sluice::inner_product(SL_MAXVAL, SL_ADD, Array(ia, {r, q, 2}), Array(ib, {q, s}));
        EXPECT(ip.shape() == sluice::Shape({r, s, 2}), "(max, +) of a stack is a stack");
        const std::vector<int32_t> got_ip = ip.read<int32_t>();
        for (int64_t x = 0; x < r * s * 2; x++) {
            const int64_t i = x % r, j = x / r % s, page = x / (r * s);
            int32_t best = INT32_MIN;
            for (int64_t p = 0; p < q; p++) best = std::max(best, ia[i + p * r + page * r * q] + ib[p + j * q]);
            EXPECT(got_ip[x] == best, "(max, +) (" << i << ", " << j << ", " << page << ")");
        }
        const std::vector<double> om = sluice::outer(SL_MAX, Array(b), Array(c)).read<double>();
        for (int64_t j = 0; j < m; j++)
            for (int64_t i = 0; i < k; i++) EXPECT(om[i + j * k] == std::max(b[i], c[j]), "outer max (" << i << ", " << j << ")");
        EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "(any, and) is not defined for f64", sluice::inner_product(SL_ANY, SL_AND, Array(a, {k, m}), Array(a, {k, m})));
    }

    EXPECT_ERROR(SL_ERR_SHAPE_MISMATCH, "inner dimensions", sluice::gemm(Op::none, Array(a, {k, m}), Op::none, Array(b)));
    return test::finish("linalg");
}
