// The random streams of src/ir/random.rs, bit for bit: Philox4x32-10, the fast 32-bit
// hash and Threefry4x32-20 make a draw's words four at a time (a block), and elements take
// the words in order (see the layout there). The generated code keeps the block an
// invocation computed last, so the consecutive elements it takes share it
// (`Helpers::random`).

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

uint r_rotl(uint x, uint r) {
    return (x << r) | (x >> (32u - r));
}

// Four rounds of Threefry4x32 with rotations r (rounds 0-3 of 8: rows 0-3, or 4-7), then
// key injection s.
uvec4 r_threefry4(uvec4 x, uvec4 r0, uvec4 r1, uvec4 ks, uint s) {
    x.x += x.y; x.y = r_rotl(x.y, r0.x) ^ x.x; x.z += x.w; x.w = r_rotl(x.w, r1.x) ^ x.z;
    x.x += x.w; x.w = r_rotl(x.w, r0.y) ^ x.x; x.z += x.y; x.y = r_rotl(x.y, r1.y) ^ x.z;
    x.x += x.y; x.y = r_rotl(x.y, r0.z) ^ x.x; x.z += x.w; x.w = r_rotl(x.w, r1.z) ^ x.z;
    x.x += x.w; x.w = r_rotl(x.w, r0.w) ^ x.x; x.z += x.y; x.y = r_rotl(x.y, r1.w) ^ x.z;
    return x + ks + uvec4(0u, 0u, 0u, s);
}

// Threefry4x32-20: five groups of four rounds, the rotations of rounds 0-3 and 4-7 in turn,
// each group followed by a key injection.
uvec4 r_threefry(uvec4 c, uvec4 k) {
    uint parity = 0x1BD11BDAu ^ k.x ^ k.y ^ k.z ^ k.w;
    uint ks[5] = uint[5](k.x, k.y, k.z, k.w, parity);
    uvec4 x = c + k;
    for (uint g = 0u; g < 5u; g++) {
        bool odd = (g & 1u) != 0u;
        // Rotations by round within the group: first pair, second pair.
        uvec4 r0 = odd ? uvec4(6u, 17u, 25u, 18u) : uvec4(10u, 11u, 13u, 23u);
        uvec4 r1 = odd ? uvec4(20u, 11u, 10u, 20u) : uvec4(26u, 21u, 27u, 5u);
        uint s = g + 1u;
        x = r_threefry4(x, r0, r1, uvec4(ks[s % 5u], ks[(s + 1u) % 5u], ks[(s + 2u) % 5u], ks[(s + 3u) % 5u]), s);
    }
    return x;
}

// The murmur3 finaliser.
uint r_fmix(uint h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    return h ^ (h >> 16);
}

// Block `b` (words 4b .. 4b + 4) of draw `draw` from seed `seed` of generator `kind`
// (0 Philox, 1 the fast hash, 2 Threefry).
uvec4 r_block(int kind, int64_t seed, int64_t draw, uint64_t b) {
    uvec2 s = unpackUint2x32(uint64_t(seed));
    uvec2 d = unpackUint2x32(uint64_t(draw));
    uvec2 c = unpackUint2x32(b);
    if (kind == 0) return r_philox(uvec4(c.x, c.y, d.x, d.y), s);
    if (kind == 2) return r_threefry(uvec4(c.x, c.y, d.x, d.y), uvec4(s, 0u, 0u));
    uint salt = r_fmix(s.x ^ r_fmix(s.y ^ r_fmix(d.x)));
    uint base = r_fmix(c.x ^ salt ^ r_fmix(c.y));
    return uvec4(base, r_fmix(base ^ 0x6A09E667u), r_fmix(base ^ 0xBB67AE85u), r_fmix(base ^ 0x3C6EF372u));
}

// Block `a` of element `e`'s own (ir::random's `element_block`).
uvec4 r_element_block(int kind, int64_t seed, int64_t draw, uint64_t e, uint a) {
    return r_block(kind, seed, draw, e + (uint64_t(a) << R_ELEMENT_BLOCK_SHIFT));
}

// A uniform f32 from one word: its top 24 bits.
float r_f32(uint w) {
    return float(w >> 8) * (1.0 / 16777216.0);
}
