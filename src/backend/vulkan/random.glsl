// The random streams of src/ir/random.rs, bit for bit: Philox4x32-10 and the fast
// 32-bit hash, and their uniform values on [0, 1).

uvec4 r_philox(uvec4 c, uvec2 k) {
    for (int round = 0; round < 10; round++) {
        if (round > 0) k += uvec2(0x9E3779B9u, 0xBB67AE85u);
        uint hi0, lo0, hi1, lo1;
        umulExtended(0xD2511F53u, c.x, hi0, lo0);
        umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
        c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    }
    return c;
}

// The murmur3 finaliser.
uint r_fmix(uint h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    return h ^ (h >> 16);
}

// Four words for element `index` of draw `position` from seed `seed`.
uvec4 r_words(bool philox, int64_t seed, int64_t position, int64_t index) {
    uvec2 s = unpackUint2x32(uint64_t(seed));
    uvec2 p = unpackUint2x32(uint64_t(position));
    uvec2 i = unpackUint2x32(uint64_t(index));
    if (philox) return r_philox(uvec4(i.x, i.y, p.x, p.y), s);
    uint stream = r_fmix(s.x ^ r_fmix(s.y ^ r_fmix(p.x)));
    uint base = r_fmix(i.x ^ stream);
    return uvec4(base, r_fmix(base ^ 0x6A09E667u), r_fmix(base ^ 0xBB67AE85u), r_fmix(base ^ 0x3C6EF372u));
}

// The top 24 bits of word `word`.
float r_uniform_f32(uvec4 w, int word) {
    return float(w[word] >> 8) * (1.0 / 16777216.0);
}

// 53 bits from words 2 word and 2 word + 1.
double r_uniform_f64(uvec4 w, int word) {
    uint64_t bits = (uint64_t(w[2 * word]) << 21) ^ uint64_t(w[2 * word + 1] >> 11);
    return double(bits) * (1.0lf / 9007199254740992.0lf);
}
