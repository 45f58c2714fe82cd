// Sobol' points' scrambles and values (src/ir/random/sobol.rs), bit for bit; the digits
// themselves are generated inline (they read the direction numbers' buffer).

// The scramble word of dimension `dim`.
uint r_sobol_seed(int64_t seed, uint dim) {
    uvec2 s = unpackUint2x32(uint64_t(seed));
    return r_fmix(s.x ^ r_fmix(s.y ^ r_fmix(dim ^ 0x5851F42Du)));
}

// Burley's improved Laine-Karras hash.
uint r_laine_karras(uint x, uint seed) {
    x += seed;
    x ^= x * 0x6C50B47Cu;
    x ^= x * 0xB82F1E52u;
    x ^= x * 0xC7AFE638u;
    x ^= x * 0x8D22F6E6u;
    return x;
}

// The nested (Owen) scramble of digits x.
uint r_sobol_owen(uint x, uint seed) {
    return bitfieldReverse(r_laine_karras(bitfieldReverse(x), seed));
}

float r_sobol_f32(uint x) {
    return float(x >> 8) * (1.0 / 16777216.0);
}
