// An op whose computation fails when it runs (out of memory under the SLUICE_MEMORY_LIMIT
// the test sets) is reported at the read that needs it with this file's lines: the line
// that made the failing op, and the line of the read. Not the C++ layer's, however much
// of it the compiler inlined.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <sluice.hpp>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::fprintf(stderr, "deferred_error (C++): FAILED: %s\n", what.c_str());
        failures++;
    }
}

bool in_this_file(const sluice::Site& site) {
    const std::string name = "deferred_error.cpp";
    return site.file.size() >= name.size() && site.file.compare(site.file.size() - name.size(), name.size(), name) == 0;
}

}  // namespace

int main() {
    std::random_device seed;
    const double offset = std::uniform_real_distribution<double>(1.0, 2.0)(seed);
    // 2^26 f32 (256 MiB) to store: over the limit, known only when the kernel runs.
    const sluice::Array big = sluice::constant(sluice::DType::f32, {int64_t(1) << 26}, 1.0);
    const int origin_line = __LINE__ + 1;
    const sluice::Array y = big + offset;
    sluice::eval({y});
    int read_line = 0;
    try {
        read_line = __LINE__ + 1;
        const float total = sluice::sum(y).item<float>();
        expect(false, "the read succeeded: " + std::to_string(total));
    } catch (const sluice::Error& e) {
        expect(e.status() == SL_ERR_POISONED, std::string("status ") + e.status_name() + ": " + e.what());
        expect(in_this_file(e.origin()) && e.origin().line == origin_line,
               "the failing op is named at line " + std::to_string(origin_line) + " of this file: " + e.what());
        expect(in_this_file(e.call()) && e.call().line == read_line,
               "the read is named at line " + std::to_string(read_line) + " of this file: " + e.what());
        expect(std::string(e.what()).find("sluice.hpp") == std::string::npos, std::string("no layer line: ") + e.what());
    }
    if (failures == 0) std::printf("deferred_error (C++): ok\n");
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
