// random.glsl's f64 part, emitted only for kernels with f64 random values (a device
// without 64-bit floats cannot compile it).

// A uniform f64 from two words: 53 bits.
double r_f64(uint hi, uint lo) {
    uint64_t bits = (uint64_t(hi) << 21) ^ uint64_t(lo >> 11);
    return double(bits) * (1.0lf / 9007199254740992.0lf);
}
