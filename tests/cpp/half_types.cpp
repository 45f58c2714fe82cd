// f16 and bf16 from C++: dtype_of maps the storage structs sluice::f16 and sluice::bf16,
// arrays made from vectors of them keep the type and read back bit for bit, ops keep the
// type (computed in f32 and rounded once), and a cast to float gives the values.
#include <cstdint>
#include <string>
#include <vector>

#include "check.hpp"

using sluice::Array;

namespace {

// `bits` are the type's 1, 2 and -0.5; `doubled` their doubles.
template <class H> void check(const std::string& name, sluice::DType code, std::vector<uint16_t> bits,
                              std::vector<uint16_t> doubled) {
    EXPECT(sluice::dtype_of<H>() == code, name);
    std::vector<H> x;
    for (uint16_t b : bits) x.push_back(H{b});
    const Array a(x);
    EXPECT(a.dtype() == code, name << " array type");
    const auto same = a.template read<H>();
    const auto twice = (a + a).template read<H>();
    const auto wide = sluice::cast(a, sluice::DType::f32).template read<float>();
    const std::vector<float> values{1.0f, 2.0f, -0.5f};
    for (std::size_t i = 0; i < bits.size(); i++) {
        EXPECT(same[i].bits == bits[i], name << " round trip " << i);
        EXPECT(twice[i].bits == doubled[i], name << " doubled " << i << ": " << twice[i].bits);
        EXPECT(wide[i] == values[i], name << " as float " << i << ": " << wide[i]);
    }
    EXPECT((a * 0.5).dtype() == code, name << " times a double scalar keeps the type");
    EXPECT_ERROR(SL_ERR_DTYPE_MISMATCH, name, sluice::matmul(a, a));
}

}  // namespace

int main() {
    check<sluice::f16>("f16", sluice::DType::f16, {0x3c00, 0x4000, 0xb800}, {0x4000, 0x4400, 0xbc00});
    check<sluice::bf16>("bf16", sluice::DType::bf16, {0x3f80, 0x4000, 0xbf00}, {0x4000, 0x4080, 0xbf80});
    sluice::shutdown();
    return test::finish("half_types");
}
