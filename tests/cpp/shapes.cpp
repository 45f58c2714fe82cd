// Generators, shape ops and the new element-wise functions through the C++ layer, against
// plain loops on random inputs: arange (both overloads), linspace, meshgrid, diag/tril,
// repeat, moveaxis/squeeze/expand_dims, the divisor-sign mod, shift operators, nextafter,
// clamp and the integer rounding calls; a bad k is a sluice::Error naming it.
#include <cmath>
#include <cstdint>

#include "check.hpp"

using sluice::Array;
using sluice::DType;

int main() {
    // arange with integers is exact; with doubles numpy's length.
    const std::vector<int64_t> r = sluice::arange(DType::i64, 10, -3, -4).read<int64_t>();
    EXPECT((r == std::vector<int64_t>{10, 6, 2, -2}), "arange 10..-3 by -4");
    EXPECT(sluice::arange(DType::f32, 0.0, 1.0, 0.25).shape() == (sluice::Shape{4}), "arange 0..1 by 0.25");

    // linspace without the endpoint, meshgrid in ij indexing.
    const int64_t nx = 5, ny = 3;
    const Array x = sluice::linspace(DType::f64, -1.0, 1.0, nx, false);
    const Array y = Array(test::uniform(ny, -9, 9));
    const std::vector<Array> g = sluice::meshgrid({x, y}, sluice::Indexing::ij);
    const std::vector<double> gx = g[0].read<double>(), gy = g[1].read<double>(), yv = y.read<double>();
    for (int64_t i = 0; i < nx; i++)
        for (int64_t j = 0; j < ny; j++) {
            EXPECT(std::fabs(gx[i + nx * j] - (-1.0 + 2.0 * i / nx)) <= 1e-15, "grid x " << i << "," << j);
            EXPECT(gy[i + nx * j] == yv[j], "grid y " << i << "," << j);
        }

    // diag of a vector, then its lower triangle below the superdiagonal (all zero), and
    // diag back out of a batch of matrices moved into place.
    const std::vector<double> v = test::uniform(4, -5, 5);
    const Array d = sluice::diag(Array(v), 1);
    EXPECT(d.shape() == (sluice::Shape{5, 5}), "diag of 4 with k = 1 is 5 x 5");
    for (double e : sluice::tril(d, 0).read<double>()) EXPECT(e == 0.0, "tril below the superdiagonal");
    const std::vector<double> back = sluice::diag(d, 1).read<double>();
    EXPECT(back == v, "diag(diag(v, 1), 1) == v");
    const int64_t m = 3, b = 4;
    const std::vector<double> batch = test::uniform(b * m * m, -1, 1);  // b x m x m
    const Array moved = sluice::moveaxis(Array(batch, {b, m, m}), 0, 2);  // m x m x b
    const std::vector<double> diags = sluice::diag(moved).read<double>();  // m x b
    for (int64_t k = 0; k < b; k++)
        for (int64_t i = 0; i < m; i++)
            EXPECT(diags[i + m * k] == batch[k + b * (i + m * i)], "batched diagonal " << i << " of " << k);
    const Array col = sluice::expand_dims(Array(v), 0);
    EXPECT(col.shape() == (sluice::Shape{1, 4}) && sluice::squeeze(col).shape() == (sluice::Shape{4}), "expand/squeeze");

    // repeat by a count, and the integer functions: mod beside %, shifts, rounding.
    const std::vector<int32_t> p = test::integers<int32_t>(9, -1000, 1000), q = test::integers<int32_t>(9, 1, 9);
    std::vector<int32_t> qs = q;
    for (std::size_t i = 0; i < qs.size(); i += 2) qs[i] = -qs[i];
    const Array ap(p), aq(qs);
    const std::vector<int32_t> rep = sluice::repeat(ap, 3).read<int32_t>();
    for (std::size_t i = 0; i < rep.size(); i++) EXPECT(rep[i] == p[i / 3], "repeat " << i);
    const std::vector<int32_t> mods = sluice::mod(ap, aq).read<int32_t>(), rems = (ap % aq).read<int32_t>();
    const std::vector<int32_t> left = (ap << Array(q)).read<int32_t>(), right = (ap >> 3).read<int32_t>();
    for (std::size_t i = 0; i < p.size(); i++) {
        const int32_t r0 = p[i] % qs[i], m0 = (r0 != 0 && ((r0 < 0) != (qs[i] < 0))) ? r0 + qs[i] : r0;
        EXPECT(rems[i] == r0 && mods[i] == m0, "rem/mod of " << p[i] << " by " << qs[i]);
        EXPECT(left[i] == static_cast<int32_t>(static_cast<uint32_t>(p[i]) << q[i]), "shl " << i);
        EXPECT(right[i] == (p[i] >> 3), "shr " << i);
    }
    const std::vector<double> f = test::uniform(50, -100, 100);
    const Array af(f);
    const std::vector<int32_t> fl = sluice::floor_to(af, DType::i32).read<int32_t>();
    const std::vector<int64_t> ce = sluice::ceil_to(af, DType::i64).read<int64_t>();
    const std::vector<int32_t> ro = sluice::round_to(af, DType::i32).read<int32_t>();
    const std::vector<double> cl = sluice::clamp(af, -10.0, 10.0).read<double>();
    const std::vector<double> up = sluice::nextafter(af, 1000.0).read<double>();
    for (std::size_t i = 0; i < f.size(); i++) {
        EXPECT(fl[i] == static_cast<int32_t>(std::floor(f[i])) && ce[i] == static_cast<int64_t>(std::ceil(f[i])) &&
                   ro[i] == static_cast<int32_t>(std::round(f[i])),
               "rounding " << f[i]);
        EXPECT(cl[i] == std::fmin(std::fmax(f[i], -10.0), 10.0), "clamp " << f[i]);
        EXPECT(up[i] == std::nextafter(f[i], 1000.0), "nextafter " << f[i]);
    }

    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "k = 12", sluice::diag(Array(batch, {b, m * m}), 12));
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "not defined", sluice::shl(af, af));
    return test::finish("shapes");
}
