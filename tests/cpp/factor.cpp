// Factorizations and solves from C++: a complex Hermitian positive definite system solved
// through cholesky and cholesky_solve, and a batch of complex systems through lu and
// lu_solve with each op, checked by their residuals against std::complex loops; the
// determinant of a 2x2 batch against ad - bc; lu_unpack rebuilds A; a matrix that is not
// positive definite throws SL_ERR_SINGULAR where its factor is read.
#include <complex>

#include "check.hpp"

using sluice::Array;
using sluice::Op;
using Z = std::complex<double>;

namespace {

std::vector<Z> random_matrix(int64_t n) {
    const std::vector<double> re = test::uniform(n, -1, 1), im = test::uniform(n, -1, 1);
    std::vector<Z> v(n);
    for (std::size_t i = 0; i < v.size(); i++) v[i] = {re[i], im[i]};
    return v;
}

Z at(const std::vector<Z>& a, int64_t n, int64_t k, Op op, int64_t i, int64_t j) {
    const Z v = op == Op::none ? a[k * n * n + i + j * n] : a[k * n * n + j + i * n];
    return op == Op::conj_trans ? std::conj(v) : v;
}

// max |op(A_k) x_k - b_k| over the batch (n x 1 systems).
double residual(const std::vector<Z>& a, const std::vector<Z>& x, const std::vector<Z>& b, int64_t n, int64_t batch, Op op) {
    double worst = 0;
    for (int64_t k = 0; k < batch; k++)
        for (int64_t i = 0; i < n; i++) {
            Z s = -b[k * n + i];
            for (int64_t j = 0; j < n; j++) s += at(a, n, k, op, i, j) * x[k * n + j];
            worst = std::max(worst, std::abs(s));
        }
    return worst;
}

}  // namespace

int main() {
    // Hermitian positive definite: A = B B^H + n I.
    const int64_t n = 24;
    const std::vector<Z> bm = random_matrix(n * n), rhs = random_matrix(n);
    std::vector<Z> a(n * n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            Z s = i == j ? Z(double(n)) : Z(0);
            for (int64_t p = 0; p < n; p++) s += bm[i + p * n] * std::conj(bm[j + p * n]);
            a[i + j * n] = s;
        }
    const Array l = sluice::cholesky(Array(a, {n, n}));
    const std::vector<Z> x = sluice::cholesky_solve(l, Array(rhs, {n})).read<Z>();
    EXPECT(residual(a, x, rhs, n, 1, Op::none) < 1e-12 * n * n, "cholesky_solve residual");

    // A batch of 3x3 complex systems through one LU, with each op.
    const int64_t m = 3, batch = 40;
    const std::vector<Z> am = random_matrix(m * m * batch), b = random_matrix(m * batch);
    const Array ha(am, {m, m, batch}), hb(b, {m, 1, batch});
    const sluice::LU f = sluice::lu(ha);
    for (Op op : {Op::none, Op::trans, Op::conj_trans}) {
        const std::vector<Z> y = sluice::lu_solve(f, hb, op).read<Z>();
        EXPECT(residual(am, y, b, m, batch, op) < 1e-11, "lu_solve op " << int(op));
    }
    const std::vector<Z> direct = sluice::solve(ha, hb).read<Z>();
    EXPECT(residual(am, direct, b, m, batch, Op::none) < 1e-11, "solve");

    // P L U rebuilds A.
    const sluice::LUFactors parts = sluice::lu_unpack(f);
    const std::vector<Z> pv = parts.p.read<Z>(), lv = parts.l.read<Z>(), uv = parts.u.read<Z>();
    double worst = 0;
    for (int64_t k = 0; k < batch; k++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < m; j++) {
                Z s = 0;
                for (int64_t p = 0; p < m; p++)
                    for (int64_t q = 0; q < m; q++) s += pv[k * 9 + i + p * m] * lv[k * 9 + p + q * m] * uv[k * 9 + q + j * m];
                worst = std::max(worst, std::abs(s - am[k * 9 + i + j * m]));
            }
    EXPECT(worst < 1e-14 * 8, "P L U = A: " << worst);

    // 2x2 determinants: ad - bc.
    const std::vector<Z> d = sluice::det(Array(std::vector<Z>(am.begin(), am.begin() + 4 * 10), {2, 2, 10})).read<Z>();
    for (int64_t k = 0; k < 10; k++) {
        const Z* q = &am[4 * k];
        const Z want = q[0] * q[3] - q[2] * q[1];
        EXPECT(std::abs(d[k] - want) < 1e-13, "det " << k);
    }

    // Not positive definite: fails where the factor is read.
    std::vector<Z> bad = a;
    bad[5 + 5 * n] = -1.0;
    const Array lbad = sluice::cholesky(Array(bad, {n, n}));
    EXPECT_ERROR(SL_ERR_SINGULAR, "order 6", lbad.read<Z>());
    return test::finish("factor");
}
