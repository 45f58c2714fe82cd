// sluice::macro: a lambda recorded once per name, input signature and control values, then
// replayed; one or several outputs; nesting; an exception in the body cancels the
// recording; refused operations inside a recording; no handles left behind.
#include <cmath>
#include <stdexcept>

#include "check.hpp"

using sluice::Array;

namespace {

// y' = 0.99 y + c x, or 0.99 y - c x when the control is negative; `runs` counts how
// often the body ran (recordings).
Array step(const Array& y, const Array& x, const Array& c, double control, int& runs) {
    return sluice::macro("step", {y, x, c}, {control}, [&](const std::vector<Array>& in) {
        runs++;
        const Array decayed = in[0] * 0.99, push = in[1] * in[2];
        return control < 0 ? decayed - push : decayed + push;
    });
}

void record_and_replay() {
    const int64_t start = sluice::live_handles();
    const std::size_t n = 777;
    const std::vector<double> xs = test::uniform(n, -1, 1);
    std::vector<double> want = test::uniform(n, -1, 1);
    const Array x(xs);
    Array y(want);
    int runs = 0;
    for (int k = 0; k < 40; k++) {
        sluice::Scope scope;
        // A new value each step, from host data: constants (sluice::scalar) key by value.
        const double c = test::uniform(1, 0.1, 2)[0];
        const double control = k % 3 == 0 ? -1 : 1;
        y = sluice::keep(step(y, x, Array(std::vector<double>{c}, {}), control, runs));
        for (std::size_t i = 0; i < n; i++)
            want[i] = control < 0 ? want[i] * 0.99 - c * xs[i] : want[i] * 0.99 + c * xs[i];
    }
    EXPECT(runs == 2, "the body ran " << runs << " times; once per control value expected");
    EXPECT_CLOSE("40 steps", y.read<double>(), want, 1e-13);

    // Other input shapes are another entry.
    const std::vector<double> m = test::uniform(15, -1, 1);
    const Array mat(m, {5, 3});
    const Array r = step(mat, mat, sluice::scalar(sluice::DType::f64, 0.5), 1, runs);
    EXPECT(runs == 3, "a new shape records again");
    std::vector<double> w(15);
    for (std::size_t i = 0; i < 15; i++) w[i] = m[i] * 0.99 + 0.5 * m[i];
    EXPECT_CLOSE("other shape", r.read<double>(), w, 1e-15);
    EXPECT(r.shape() == (sluice::Shape{5, 3}), "shape of the replayed output");
    EXPECT(sluice::live_handles() == start + 4, "replays leak no handles: " << sluice::live_handles() - start - 4);
}

void several_outputs_and_nesting() {
    const std::vector<double> p = test::uniform(100, 0.5, 2), q = test::uniform(100, -1, 1);
    const Array a(p), b(q);
    int outer_runs = 0, inner_runs = 0;
    for (int k = 0; k < 3; k++) {
        const auto [sum, diff] = sluice::macro("pair", {a, b}, [&](const std::vector<Array>& in) {
            outer_runs++;
            // A section inside a recording runs its body; the outer one replays as a whole.
            const Array root = sluice::macro("root", {in[0]}, [&](const std::vector<Array>& inner) {
                inner_runs++;
                return sluice::sqrt(inner[0]);
            });
            return std::array<Array, 2>{root + in[1], root - in[1]};
        });
        std::vector<double> want_sum(100), want_diff(100);
        for (std::size_t i = 0; i < 100; i++)
            want_sum[i] = std::sqrt(p[i]) + q[i], want_diff[i] = std::sqrt(p[i]) - q[i];
        EXPECT_CLOSE("first output", sum.read<double>(), want_sum, 1e-15);
        EXPECT_CLOSE("second output", diff.read<double>(), want_diff, 1e-15);
    }
    EXPECT(outer_runs == 1 && inner_runs == 1, "bodies ran " << outer_runs << " and " << inner_runs << " times");
}

void failures_cancel_the_recording() {
    const int64_t start = sluice::live_handles();
    const std::vector<double> v = test::uniform(64, -1, 1);
    const Array a(v);
    int runs = 0;
    auto negate = [&](const std::vector<Array>& in) {
        runs++;
        return -in[0];
    };

    // An exception from the body cancels the recording and reaches the caller.
    try {
        sluice::macro("fails", {a}, [&](const std::vector<Array>& in) -> Array {
            const Array half = in[0] * 0.5;
            throw std::runtime_error("body gave up");
        });
        EXPECT(false, "the body's exception was swallowed");
    } catch (const std::runtime_error& e) {
        EXPECT(std::string(e.what()) == "body gave up", e.what());
    }
    // Nothing was cached under that key: it records now.
    std::vector<double> want(v.size());
    for (std::size_t i = 0; i < v.size(); i++) want[i] = -v[i];
    EXPECT_CLOSE("after a cancelled recording", sluice::macro("fails", {a}, negate).read<double>(), want, 0);
    EXPECT(runs == 1, "recorded after the cancel");

    // Reads are refused while recording; the Error cancels the recording.
    EXPECT_ERROR(SL_ERR_INVALID_STATE, "while macro 'reads' is recording",
                 sluice::macro("reads", {a}, [](const std::vector<Array>& in) {
                     const Array t = sluice::exp(in[0]);
                     t.read<double>();
                     return t;
                 }));
    // An array from outside that is not an input is refused when the recording ends.
    const Array outsider(test::uniform(v.size(), -1, 1));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "neither an input of the section nor computed inside it",
                 sluice::macro("outsider", {a}, [&](const std::vector<Array>& in) { return in[0] + outsider; }));
    // A bad argument to the first call inside the body.
    EXPECT_ERROR(SL_ERR_SHAPE_MISMATCH, "do not broadcast",
                 sluice::macro("shapes", {a, Array(test::uniform(3, 0, 1))},
                               [](const std::vector<Array>& in) { return in[0] + in[1]; }));
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "null handle", sluice::macro("null", {Array()}, negate));

    // After all that, sections still record and replay.
    for (int k = 0; k < 3; k++) EXPECT_CLOSE("afterwards", sluice::macro("after", {a}, negate).read<double>(), want, 0);
    EXPECT(runs == 2, "the body ran " << runs << " times");
    EXPECT(sluice::live_handles() == start + 2, "failures leave " << sluice::live_handles() - start - 2 << " handles");
}

}  // namespace

int main() {
    const int64_t start = sluice::live_handles();
    record_and_replay();
    several_outputs_and_nesting();
    failures_cancel_the_recording();
    EXPECT(sluice::live_handles() == start, "macros left " << sluice::live_handles() - start << " handles");
    // Stops the runtime's threads before exit (LeakSanitizer may report live threads).
    sluice::shutdown();
    return test::finish("macros");
}
