// Assignment into views from C++: a.at(section) = b for an interior stencil update, a row
// (projection) and a reversed strided section set to a scalar; a.where(mask) = value and
// a.indexed({i, j}) += v, against plain loops on random inputs. A copy of an Array made
// before an assignment keeps the old values; refused assignments throw and change nothing.
#include "check.hpp"

#include <algorithm>

using sluice::Array;
using sluice::Section;

int main() {
    const int64_t n = 29;
    auto u0 = test::uniform(static_cast<std::size_t>(n * n), -1, 1);
    std::vector<double> want = u0;
    Array u(u0, {n, n});
    Array before = u;  // a second handle: keeps this version

    // u(2:n-1, 2:n-1) = (u(1:n-2, 2:n-1) + u(3:n, 2:n-1)) / 2, ten times (in place).
    for (int step = 0; step < 10; step++) {
        Array up = sluice::section(u, {0, 1}, {n - 2, n - 2});
        Array down = sluice::section(u, {2, 1}, {n - 2, n - 2});
        u.at({{1, 1}, {n - 2, n - 2}}) = (up + down) * 0.5;
        std::vector<double> next = want;
        for (int64_t j = 1; j < n - 1; j++)
            for (int64_t i = 1; i < n - 1; i++) next[i + n * j] = (want[i - 1 + n * j] + want[i + 1 + n * j]) * 0.5;
        want = next;
    }
    EXPECT_CLOSE("interior updates", u.read<double>(), want, 1e-15);
    EXPECT_CLOSE("the copy made before", before.read<double>(), u0, 0);

    // Row 4 from a vector (stride 0 projects), every third element of column 2 backwards.
    auto row = test::uniform(static_cast<std::size_t>(n), -1, 1);
    u.at({{4, 0}, {1, n}, {0, 1}}) = Array(row);
    for (int64_t j = 0; j < n; j++) want[4 + n * j] = row[j];
    u.at({{n - 1, 2}, {(n + 2) / 3, 1}, {-3, 1}}) = 9.0;
    for (int64_t i = n - 1; i >= 0; i -= 3) want[i + n * 2] = 9.0;
    EXPECT_CLOSE("row and column", u.read<double>(), want, 0);

    // where (u < 0) u = -1; u(i, j) += 1 at random places.
    u.where(u < 0.0) = -1.0;
    for (double& x : want)
        if (x < 0) x = -1;
    auto ri = test::integers<int64_t>(30, 0, n - 1), ci = test::integers<int64_t>(30, 0, 2);
    u.indexed({Array(ri), Array(ci)}) += Array(std::vector<double>(30, 1.0));
    for (std::size_t k = 0; k < ri.size(); k++) want[ri[k] + n * ci[k]] += 1.0;
    EXPECT_CLOSE("where and indexed", u.read<double>(), want, 1e-15);

    // Refused: a section leaving the array, f32 values would be fine but i64 into an i32
    // array of another shape is not; nothing changes.
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "leaves the array", (u.at({{n - 1, 0}, {2, 1}}) = 1.0));
    EXPECT_ERROR(SL_ERR_SHAPE_MISMATCH, "cannot broadcast", (u.at({{0, 0}, {2, 2}}) = Array(row)));
    Array k(std::vector<int32_t>(4, 1), {2, 2});
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "lose information", (k.at({{0, 0}, {2, 2}}) = Array(std::vector<int64_t>(4, 2), {2, 2})));
    EXPECT_CLOSE("after refused calls", u.read<double>(), want, 1e-15);
    return test::finish("assign");
}
