// Bad input from C++: every failure is a sluice::Error with the C status, the message,
// the failing function and its call site, and the runtime keeps working afterwards.
#include <cstring>

#include "check.hpp"

using sluice::Array;
using sluice::DType;

// A computation that must still give the right answer after an error.
static void still_works(const std::vector<double>& x) {
    const std::vector<double> got = (Array(x) * 10.0).read<double>();
    std::vector<double> want(x.size());
    for (std::size_t i = 0; i < x.size(); i++) want[i] = 10.0 * x[i];
    EXPECT_CLOSE("still works", got, want, 0);
}

static void details(const std::vector<double>& x) {
    Array a(x), b(test::uniform(x.size() + 1, 0, 1));
    const sluice::Error e = EXPECT_ERROR(SL_ERR_SHAPE_MISMATCH, "do not broadcast", a + b);
    EXPECT(e.function() == "sl_add", "function " << e.function());
    EXPECT(e.call().pc != 0, "the call's return address is known");
    // Built with -g: the library finds this file's line that made the call (not the line
    // of sluice.hpp that called C).
    EXPECT(e.call().file.find("errors.cpp") != std::string::npos && e.call().line > 0,
           "call site " << e.call().file << ":" << e.call().line);
    EXPECT(std::strstr(e.what(), "sl_add") != nullptr, "what() names the function: " << e.what());
    EXPECT(std::string(e.status_name()) == "SL_ERR_SHAPE_MISMATCH", e.status_name());
    EXPECT(e.origin().function.empty(), "no origin for an immediate error");
}

static void bad_handles(const std::vector<double>& x) {
    Array stale;
    {
        sluice::Scope scope;
        stale = Array(x);  // created in the scope and not kept
    }
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "stale", sluice::exp(stale));
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "stale", stale.shape());
    Array null;
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "null handle", sluice::sqrt(null));
    Array a(x);
    Array moved = std::move(a);
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "null handle", a * 2.0);
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "invalid handle", Array::adopt(42).numel());
    still_works(x);
}

static void bad_shapes_and_types(const std::vector<double>& x) {
    const auto n = static_cast<int64_t>(x.size());
    Array a(x);
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "", Array(x, {n + 1}));  // data shorter than the shape
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "negative", sluice::constant(DType::f64, {-2}, 1.0));
    EXPECT_ERROR(SL_ERR_SHAPE_MISMATCH, "", sluice::reshape(a, {n + 1}));
    EXPECT_ERROR(SL_ERR_SHAPE_MISMATCH, "", sluice::matmul(sluice::reshape(a, {n, 1}), sluice::reshape(a, {n, 1})));
    Array i32 = sluice::cast(a, DType::i32);
    // f64 with i32 promotes to f64 (README "Type promotion"), which has no bitwise and.
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "and is not defined for f64", a & i32);
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "not defined for i32", sluice::sqrt(i32));
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "1099511627776 cannot be represented as i32", i32 + (int64_t(1) << 40));

    // Reads: the C++ element type must match, and a caller buffer must fit exactly.
    const sluice::Error e = EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "f64 array into f32", a.read<float>());
    EXPECT(e.function() == "sluice::Array::read", e.function());
    std::vector<double> small(x.size() - 1);
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "needs", a.read(small.data(), small.size()));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "needs", a.item<double>());
    still_works(x);
}

static void bad_dimensions(const std::vector<double>& x) {
    Array m = sluice::reshape(Array(x), {static_cast<int64_t>(x.size()) / 2, 2});
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "out of range", sluice::sum(m, 2));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "out of range", sluice::cumsum(m, -3));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "out of range", sluice::project(m, 1, 2));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "", sluice::shift(m, 5, 1));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "", sluice::permute(m, {0, 0}));
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "rank 9", sluice::constant(DType::f32, sluice::Shape(9, 1), 0));
    // Per-dimension arguments whose length the C call cannot check are checked in C++.
    const sluice::Error e = EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "start has 1 entries for an array of rank 2",
                                         sluice::section(m, {0}, {1, 1}));
    EXPECT(e.function() == "sluice::section", e.function());
    EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "hi has 3 entries", sluice::pad(m, {1, 1}, {1, 1, 1}));
    still_works(x);
}

static void bad_state(const std::vector<double>& x) {
    EXPECT_ERROR(SL_ERR_INVALID_STATE, "outside any scope", sluice::keep(Array(x)));
    {
        sluice::Scope scope;
        Array outside_made;
        {
            sluice::Scope inner;
            outside_made = sluice::keep(Array(x));
        }
        sluice::Scope deeper;
        // keep(outside_made) would keep a fresh copy; moving in hands over the outer handle itself.
        EXPECT_ERROR(SL_ERR_INVALID_ARGUMENT, "not created in the current scope",
                     sluice::keep(std::move(outside_made)));
    }
    EXPECT_ERROR(SL_ERR_INVALID_STATE, "no error handler", sluice::pop_error_handler());
    EXPECT_ERROR(SL_ERR_INVALID_STATE, "", sluice::init());  // already running
    still_works(x);
}

static int handler_calls = 0;
static int count_errors(sl_status, const sl_error_info*, void* user) {
    *static_cast<int*>(user) += 1;
    return 0;
}

static void handlers(const std::vector<double>& x) {
    sluice::push_error_handler(count_errors, &handler_calls);
    EXPECT_ERROR(SL_ERR_INVALID_HANDLE, "null handle", sluice::exp(Array()));
    EXPECT(handler_calls == 1, "the handler ran " << handler_calls << " times before the throw");
    sluice::pop_error_handler();
    still_works(x);
}

// A computation that fails when it runs (past the memory limit) poisons what depends on it;
// the read throws SL_ERR_POISONED naming the op that failed.
static void poisoned(const std::vector<double>& x) {
    Array big = sluice::constant(DType::f64, {int64_t{1} << 24}, 1.0);  // 128 MiB > the 32 MiB limit
    Array big2 = big + 1.0;
    big2.eval();
    Array total = sluice::sum(big2);
    const sluice::Error e = EXPECT_ERROR(SL_ERR_POISONED, "out of memory", total.item<double>());
    EXPECT(e.origin().function == "sl_add_scalar", "origin " << e.origin().function);
    EXPECT_ERROR(SL_ERR_POISONED, "out of memory", (total + 1.0).item<double>());
    still_works(x);
}

int main() {
    sl_config config = sluice::config_default();
    config.memory_limit = 32u << 20;
    sluice::init(config);
    const std::vector<double> x = test::uniform(64, -1, 1);
    details(x);
    bad_handles(x);
    bad_shapes_and_types(x);
    bad_dimensions(x);
    bad_state(x);
    handlers(x);
    poisoned(x);
    sluice::shutdown();
    return test::finish("errors");
}
