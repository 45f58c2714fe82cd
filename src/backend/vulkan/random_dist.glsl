// The laws of src/ir/random/samplers.rs that need neither 64-bit floats nor the math
// library, operation for operation (the constants, exact, come before this file: glsl.rs
// `random_constants`). Decisions use only correctly rounded operations, in the CPU's order;
// locals are `precise` so that no compiler contracts or reorders them.

// `below_u32`: Lemire's method for [0, span), span <= 2^32, from the element's packed word
// `first` and then the words of its own blocks 1, 2, ...
uint r_below32(int kind, int64_t seed, int64_t draw, uint64_t e, uint first, uint64_t span, uint reject) {
    uint64_t m = uint64_t(first) * span;
    if (uint(m) >= reject) return uint(m >> 32);
    for (uint a = 1u; a < R_ELEMENT_BLOCKS; a++) {
        uvec4 w = r_element_block(kind, seed, draw, e, a);
        for (uint j = 0u; j < 4u; j++) {
            m = uint64_t(w[j]) * span;
            if (uint(m) >= reject) return uint(m >> 32);
        }
    }
    return uint(m >> 32);
}

// The high and low halves of the 128-bit product a b.
void r_mul128(uint64_t a, uint64_t b, out uint64_t hi, out uint64_t lo) {
    uint64_t a0 = a & 0xFFFFFFFFul, a1 = a >> 32, b0 = b & 0xFFFFFFFFul, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFul) + (p10 & 0xFFFFFFFFul);
    hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    lo = (mid << 32) | (p00 & 0xFFFFFFFFul);
}

// `below_u64`: as r_below32 with 64-bit words (high word first), two per block.
uint64_t r_below64(int kind, int64_t seed, int64_t draw, uint64_t e, uint64_t first, uint64_t span, uint64_t reject) {
    uint64_t hi, lo;
    r_mul128(first, span, hi, lo);
    if (lo >= reject) return hi;
    for (uint a = 1u; a < R_ELEMENT_BLOCKS; a++) {
        uvec4 w = r_element_block(kind, seed, draw, e, a);
        for (uint j = 0u; j < 2u; j++) {
            r_mul128(packUint2x32(uvec2(w[2u * j + 1u], w[2u * j])), span, hi, lo);
            if (lo >= reject) return hi;
        }
    }
    return hi;
}

// `uniform_range` for f32.
float r_uniform_range_f32(float u, float lo, float hi, float below) {
    precise float x = lo * (1.0 - u) + hi * u;
    return x < lo ? lo : (x > below ? below : x);
}

// `mt_attempt` for f32: whether the attempt is accepted, and its t = 1 + c x.
bool r_mt_attempt_f32(float d, float c, float u0, float u1, float u2, out float t) {
    precise float x = sqrt(-2.0 * r_ln_normal(1.0 - u0)) * r_cos_sin_turns(u1).x;
    precise float y = c * x;
    precise float tt = 1.0 + y;
    t = tt;
    if (tt <= 0.0) return false;
    precise float big_u = 1.0 - u2;
    precise float x2 = x * x;
    precise float squeeze = 1.0 - R_MT_SQUEEZE_F32 * (x2 * x2);
    if (big_u < squeeze) return true;
    precise float h;
    if (y < 0.125 && y > -0.125) {
        precise float y2 = y * y;
        h = -4.5 * y2 + (y2 * y2) * r_mt_series_f32(y);
    } else {
        h = (1.0 - tt * tt * tt) + 3.0 * r_ln_normal(tt);
    }
    precise float bound = 0.5 * x2 + d * h;
    return r_ln_normal(big_u) < bound;
}

// `marsaglia_tsang` for f32: the accepted t, and the boost's 1 - u in `boost`.
float r_gamma_f32(int kind, int64_t seed, int64_t draw, uint64_t e, float d, float c, out float boost) {
    for (uint a = 0u; a < R_ELEMENT_BLOCKS; a++) {
        uvec4 w = r_element_block(kind, seed, draw, e, a);
        float t;
        if (r_mt_attempt_f32(d, c, r_f32(w.x), r_f32(w.y), r_f32(w.z), t)) {
            boost = 1.0 - r_f32(w.w);
            return t;
        }
    }
    boost = 1.0;
    return 1.0;
}
