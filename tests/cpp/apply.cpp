// Applying a lambda to pieces from C++: sluice::apply_elements and sluice::apply_blocks
// (uneven blocks with an explicit size, slice and scalar outputs, overlap with clamping,
// block_length), each against values computed here; the replay does not call the lambda
// again; an exception thrown by the lambda propagates; a bad option throws sluice::Error.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <vector>

#include "sluice.hpp"

namespace {

int failures = 0;

#define EXPECT(cond)                                                            \
    do {                                                                        \
        if (!(cond)) {                                                          \
            std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                         \
        }                                                                       \
    } while (0)

double uniform() { return 2.0 * std::rand() / RAND_MAX - 1.0; }

std::vector<double> random_values(std::size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = uniform();
    return v;
}

}  // namespace

int main() {
    const char* s = std::getenv("SLUICE_TEST_SEED");
    const unsigned seed = s ? static_cast<unsigned>(std::strtoul(s, nullptr, 10)) : static_cast<unsigned>(std::time(nullptr));
    std::printf("apply: SLUICE_TEST_SEED=%u\n", seed);
    std::srand(seed);

    const std::vector<double> a = random_values(10), b = random_values(10), m = random_values(100), v = random_values(20);
    const sluice::Array ha(a, {10, 1}), hb(b, {1, 10}), hm(m, {10, 10}), hv(v, {20});

    // Per element, with singleton expansion: 10 x 1 and 1 x 10 give 10 x 10.
    int calls = 0;
    auto axpy = [&](const std::vector<sluice::Array>& p) {
        calls++;
        return p[0] * p[1] + 1.0;
    };
    for (int round = 0; round < 2; round++) {
        const std::vector<double> got = sluice::apply_elements(axpy, {ha, hb}).read<double>();
        for (int i = 0; i < 10; i++)
            for (int j = 0; j < 10; j++) EXPECT(got[i + 10 * j] == a[i] * b[j] + 1);
    }
    EXPECT(calls == 1);

    // Blocks of 3 rows (four, the last padded), each giving 20 x 8: one 20 x 30 output.
    sluice::BlockOptions o;
    o.dim = 0;
    o.block_size = 3;
    o.outputs = {sluice::BlockOutput::size({20, 30})};
    const sluice::Array sums = sluice::apply_blocks(
        [](const std::vector<sluice::Array>& p) {
            const sluice::Array firsts = sluice::section(sluice::sum(p[0], 0), {0, 0}, {1, 8});
            return sluice::broadcast_to(firsts, {20, 8}) + sluice::iota(sluice::DType::f64, {20, 8}, 0);
        },
        {hm}, o);
    const std::vector<double> got = sums.read<double>();
    EXPECT(sums.shape() == (sluice::Shape{20, 30}));
    for (int j = 0; j < 30; j++) {
        double col = 0;
        for (int r = 3 * (j / 8); r < 3 * (j / 8) + 3 && r < 10; r++) col += m[r + 10 * (j % 8)];
        for (int i = 0; i < 20; i++) EXPECT(std::fabs(got[i + 20 * j] - (col + i)) <= 1e-12);
    }

    // Rows as slices and their sums as scalars; the lambda returns two arrays.
    sluice::BlockOptions rows;
    rows.dim = 0;
    rows.outputs = {sluice::BlockOutput::slice(), sluice::BlockOutput::scalar()};
    const auto [doubled, row_sums] = sluice::apply_blocks(
        [](const std::vector<sluice::Array>& p) {
            return std::array<sluice::Array, 2>{p[0] * 2.0, sluice::sum(p[0], sluice::all_dims)};
        },
        {hm}, rows);
    const std::vector<double> d = doubled.read<double>(), rs = row_sums.read<double>();
    EXPECT(row_sums.shape() == (sluice::Shape{1, 10}));
    for (int i = 0; i < 10; i++) {
        double sum = 0;
        for (int j = 0; j < 10; j++) {
            sum += m[i + 10 * j];
            EXPECT(d[i + 10 * j] == 2 * m[i + 10 * j]);
        }
        EXPECT(std::fabs(rs[i] - sum) <= 1e-12);
    }

    // A moving mean over 5 (overlap 2 each side, clamped), and the blocks' real lengths.
    sluice::BlockOptions moving;
    moving.overlap_before = moving.overlap_after = 2;
    moving.boundary = sluice::Boundary::clamp;
    moving.outputs = {sluice::BlockOutput::scalar()};
    const std::vector<double> means =
        sluice::apply_blocks([](const std::vector<sluice::Array>& p) { return sluice::mean(p[0], sluice::all_dims); },
                             {hv}, moving)
            .read<double>();
    for (int i = 0; i < 20; i++) {
        double sum = 0;
        for (int k = -2; k <= 2; k++) sum += v[i + k < 0 ? 0 : i + k > 19 ? 19 : i + k];
        EXPECT(std::fabs(means[i] - sum / 5) <= 1e-12);
    }
    sluice::BlockOptions thirds;
    thirds.block_size = 3;
    thirds.outputs = {sluice::BlockOutput::scalar()};
    const std::vector<int64_t> lengths =
        sluice::apply_blocks([](const std::vector<sluice::Array>&) { return sluice::block_length(); },
                             {sluice::Array(std::vector<double>(10, 0.0))}, thirds)
            .read<int64_t>();
    EXPECT((lengths == std::vector<int64_t>{3, 3, 3, 1}));

    // Errors: an exception from the lambda propagates; a bad option is a sluice::Error.
    try {
        sluice::apply_elements([](const std::vector<sluice::Array>& p) -> sluice::Array { throw std::runtime_error("mine"); return p[0]; },
                               {ha});
        EXPECT(false);
    } catch (const std::runtime_error& e) {
        EXPECT(std::string(e.what()) == "mine");
    }
    sluice::BlockOptions zero;
    zero.block_size = 0;
    try {
        sluice::apply_blocks([](const std::vector<sluice::Array>& p) { return -p[0]; }, {hv}, zero);
        EXPECT(false);
    } catch (const sluice::Error& e) {
        EXPECT(e.status() == SL_ERR_INVALID_ARGUMENT);
        EXPECT(e.message().find("block_size is 0") != std::string::npos);
    }
    try {
        // A read inside the lambda is refused (a replay would skip it).
        sluice::apply_elements([](const std::vector<sluice::Array>& p) { p[0].read<double>(); return p[0]; }, {ha});
        EXPECT(false);
    } catch (const sluice::Error& e) {
        EXPECT(e.status() == SL_ERR_INVALID_STATE);
    }
    // Still usable afterwards.
    EXPECT(ha.read<double>() == a);

    if (failures) std::fprintf(stderr, "%d failure(s)\n", failures);
    return failures != 0;
}
