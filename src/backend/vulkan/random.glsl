// The random streams of src/ir/random.rs, bit for bit: Philox4x32-10 and the fast
// 32-bit hash make a draw's words four at a time (a block), and elements take the words
// in order (see the layout there). The generated code keeps the block an invocation
// computed last, so the consecutive elements it takes share it (`Helpers::random`).

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

// Block `b` (words 4b .. 4b + 4) of draw `draw` from seed `seed`.
uvec4 r_block(bool philox, int64_t seed, int64_t draw, uint64_t b) {
    uvec2 s = unpackUint2x32(uint64_t(seed));
    uvec2 d = unpackUint2x32(uint64_t(draw));
    uvec2 c = unpackUint2x32(b);
    if (philox) return r_philox(uvec4(c.x, c.y, d.x, d.y), s);
    uint salt = r_fmix(s.x ^ r_fmix(s.y ^ r_fmix(d.x)));
    uint base = r_fmix(c.x ^ salt);
    return uvec4(base, r_fmix(base ^ 0x6A09E667u), r_fmix(base ^ 0xBB67AE85u), r_fmix(base ^ 0x3C6EF372u));
}

// A uniform f32 from one word: its top 24 bits.
float r_f32(uint w) {
    return float(w >> 8) * (1.0 / 16777216.0);
}
