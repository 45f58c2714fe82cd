// The integer types int8_t, int16_t, uint16_t, uint32_t and uint64_t from C++: dtype_of maps
// them, arrays made from vectors keep the type, sums and products wrap around as the
// same-width unsigned arithmetic does, an integer scalar keeps the type (one it cannot
// hold throws), and totals are int64_t (signed) or uint64_t (unsigned), against plain loops
// on random values over each type's whole range.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "check.hpp"

using sluice::Array;

namespace {

constexpr std::size_t n = 1001;

template <class T> void check(const std::string& name, sluice::DType code) {
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    using Total = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    EXPECT(sluice::dtype_of<T>() == code, name);
    std::vector<T> x(n), y(n);
    for (std::size_t i = 0; i < n; i++) {
        x[i] = static_cast<T>(test::rng()());
        y[i] = static_cast<T>(test::rng()());
    }
    x[0] = std::numeric_limits<T>::min(), x[1] = std::numeric_limits<T>::max(), y[0] = y[1] = static_cast<T>(-1);
    const Array a(x), b(y);
    EXPECT(a.dtype() == code, name << " array type");
    // Through the unsigned type, whose overflow is defined (widened first: uint16_t
    // operands would be promoted to int).
    auto wrap = [](uint64_t v) { return static_cast<T>(static_cast<U>(v)); };
    const auto sum = (a + b).read<T>(), product = (a * b).read<T>(), plus3 = (a + 3).read<T>();
    Total total = 0;
    for (std::size_t i = 0; i < n; i++) {
        const uint64_t p = static_cast<U>(x[i]), q = static_cast<U>(y[i]);
        EXPECT(sum[i] == wrap(p + q), name << " sum " << i);
        EXPECT(product[i] == wrap(p * q), name << " product " << i);
        EXPECT(plus3[i] == wrap(p + 3), name << " plus 3 " << i);
        total = static_cast<Total>(static_cast<uint64_t>(total) + static_cast<uint64_t>(static_cast<Total>(x[i])));
    }
    const Array t = sluice::sum(a);
    EXPECT(t.dtype() == sluice::dtype_of<Total>(), name << " total type");
    EXPECT(t.read<Total>()[0] == total, name << " total");
    if constexpr (std::is_unsigned_v<T>) {
        EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "cannot be represented", a + (-1));
    } else {
        EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, "cannot be represented", a + (int64_t(std::numeric_limits<T>::max()) + 1));
    }
}

}  // namespace

int main() {
    check<int8_t>("i8", sluice::DType::i8);
    check<int16_t>("i16", sluice::DType::i16);
    check<uint16_t>("u16", sluice::DType::u16);
    check<uint32_t>("u32", sluice::DType::u32);
    check<uint64_t>("u64", sluice::DType::u64);
    sluice::shutdown();
    return test::finish("int_types");
}
