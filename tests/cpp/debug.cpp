// Debugging from C++: result comparison catches a planted wrong op (the test sets
// SLUICE_TEST_PERTURB before the runtime starts) and names this file's line; reference
// arrays; peeking at an intermediate leaves the result as it was.
#include <cstdlib>

#include "check.hpp"

using sluice::Array;

static void planted_wrong_op(const std::vector<double>& x) {
    sluice::set_compare(sluice::Compare::copyout, sluice::CompareAction::error);
    const Array a(x);
    const Array s = sluice::sin(a);
    const sluice::Error e = EXPECT_ERROR(SL_ERR_MISMATCH, "result comparison (copyout): sin made by", s.read<double>());
    EXPECT(e.message().find("debug.cpp:") != std::string::npos, "the report names this file: " << e.message());
    // The exact op is right.
    EXPECT(sluice::exp(a).read<double>().size() == x.size(), "exp reads");
    const sl_compare_stats stats = sluice::compare_stats();
    EXPECT(stats.mismatches >= 1 && stats.values_checked >= 2, stats.values_checked << " " << stats.mismatches);
    sluice::set_compare(sluice::Compare::off);
    EXPECT(sluice::compare_settings().mode == SL_COMPARE_OFF, "switched off");
}

static void references(const std::vector<double>& x) {
    sluice::set_compare(sluice::Compare::compute, sluice::CompareAction::error);
    const Array a(x);
    const Array y = a * a - 3.0;
    std::vector<double> want(x.size());
    for (std::size_t i = 0; i < x.size(); i++) want[i] = x[i] * x[i] - 3.0;
    EXPECT_CLOSE("reference of a * a - 3", sluice::reference(y).read<double>(), want, 0);
    sluice::set_compare(sluice::Compare::off);
    const Array z = a + 1.0;
    z.eval();
    EXPECT_ERROR(SL_ERR_INVALID_STATE, "no reference", sluice::reference(z));
}

static void peek(const std::vector<double>& x) {
    const Array a(x);
    const Array b = sluice::exp(a) * 0.5;
    const Array c = sluice::sum(b + a);
    std::vector<double> want(x.size());
    for (std::size_t i = 0; i < x.size(); i++) want[i] = std::exp(x[i]) * 0.5;
    EXPECT_CLOSE("peek of exp(a) * 0.5", b.peek<double>(), want, 1e-14);
    double total = 0;
    for (std::size_t i = 0; i < x.size(); i++) total += want[i] + x[i];
    EXPECT_NEAR("sum after the peek", c.item<double>(), total, 1e-12);
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "cast it first", b.peek<float>());
}

int main() {
    setenv("SLUICE_TEST_PERTURB", "sin", 1);
    const std::vector<double> x = test::uniform(1000, -2, 2);
    planted_wrong_op(x);
    references(x);
    peek(x);
    sluice::shutdown();
    return test::finish("debug");
}
