// Helpers shared by the C++ tests: fresh random inputs (SLUICE_TEST_SEED replays a run),
// checks that count failures, and comparison against plain loops.
#ifndef SLUICE_TEST_CHECK_HPP
#define SLUICE_TEST_CHECK_HPP

#include <sluice.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace test {

inline int failures = 0;

inline void fail(const char* file, int line, const std::string& what) {
    std::cerr << file << ":" << line << ": " << what << "\n";
    failures++;
}

#define EXPECT(cond, what)                            \
    do {                                              \
        if (!(cond)) {                                \
            std::ostringstream m_;                    \
            m_ << "expected " #cond ": " << what;     \
            test::fail(__FILE__, __LINE__, m_.str()); \
        }                                             \
    } while (0)

// `body` must throw a sluice::Error with `status` and a message containing `needle`.
#define EXPECT_ERROR(status, needle, body) test::expect_error(__FILE__, __LINE__, #body, status, needle, [&] { body; })

template <class Body>
sluice::Error expect_error(const char* file, int line, const char* what, sl_status status, const std::string& needle,
                           Body body) {
    try {
        body();
    } catch (const sluice::Error& e) {
        if (e.status() != status || e.message().find(needle) == std::string::npos)
            fail(file, line,
                 std::string(what) + " threw " + e.what() + "; wanted " + sluice::status_name(status) + " with \"" +
                     needle + "\"");
        return e;
    }
    fail(file, line, std::string(what) + " did not throw");
    return sluice::Error(SL_OK, "", {});
}

// Fresh random inputs each run; SLUICE_TEST_SEED replays one.
inline std::mt19937_64& rng() {
    static std::mt19937_64 engine = [] {
        const char* s = std::getenv("SLUICE_TEST_SEED");
        const uint64_t seed = s ? std::strtoull(s, nullptr, 10) : std::random_device{}();
        std::cout << "SLUICE_TEST_SEED=" << seed << "\n";
        return std::mt19937_64(seed);
    }();
    return engine;
}

inline std::vector<double> uniform(std::size_t n, double lo, double hi) {
    std::uniform_real_distribution<double> dist(lo, hi);
    std::vector<double> v(n);
    for (double& x : v) x = dist(rng());
    return v;
}

template <class T> std::vector<T> integers(std::size_t n, T lo, T hi) {
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    std::vector<T> v(n);
    for (T& x : v) x = static_cast<T>(dist(rng()));
    return v;
}

inline int64_t numel(const sluice::Shape& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

// |got - want| <= tol * max(1, |want|) element-wise (NaNs must match).
template <class G, class W>
void expect_close(const char* file, int line, const std::string& what, const std::vector<G>& got,
                  const std::vector<W>& want, double tol) {
    if (got.size() != want.size()) {
        fail(file, line, what + ": " + std::to_string(got.size()) + " elements, wanted " + std::to_string(want.size()));
        return;
    }
    for (std::size_t i = 0; i < got.size(); i++) {
        const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
        const bool ok = std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= tol * std::fmax(1.0, std::fabs(w));
        if (!ok) {
            std::ostringstream m;
            m << what << ": element " << i << " is " << g << ", wanted " << w << " (tolerance " << tol << ")";
            fail(file, line, m.str());
            return;
        }
    }
}

#define EXPECT_CLOSE(what, got, want, tol) test::expect_close(__FILE__, __LINE__, what, got, want, tol)
#define EXPECT_NEAR(what, got, want, tol)                                                       \
    test::expect_close(__FILE__, __LINE__, what, std::vector<double>{static_cast<double>(got)}, \
                       std::vector<double>{static_cast<double>(want)}, tol)

// The exit status of a test program.
inline int finish(const char* name) {
    if (failures) {
        std::cerr << name << ": " << failures << " failures\n";
        return 1;
    }
    std::cout << name << ": all checks passed\n";
    return 0;
}

}  // namespace test

#endif
