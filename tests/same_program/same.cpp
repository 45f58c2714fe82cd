// The same program as same.c, with the C++ layer. Usage: same_cpp <seed>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sluice.hpp>

static long long bits(double x) {
    long long b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    sluice::Rng rng(std::strtoull(argv[1], nullptr, 10));
    const sluice::Array a = rng.uniform(sluice::DType::f64, {200, 3});
    const sluice::Array b = rng.normal(sluice::DType::f64, {3, 200});
    const sluice::Array c = sluice::matmul(a, b);
    const sluice::Array col = sluice::sum(sluice::sin(c) * sluice::exp(-sluice::abs(c)), 0);
    const std::vector<double> cols = col.read<double>();
    const double total = sluice::sum(col).item<double>();
    const double c11 = sluice::section(c * 0.5, {0, 0}, {1, 1}).item<double>();
    std::printf("total %lld\ncolumn1 %lld\ncolumn100 %lld\ncolumn200 %lld\nhalf_c11 %lld\n", bits(total), bits(cols[0]),
                bits(cols[99]), bits(cols[199]), bits(c11));
    return 0;
}
