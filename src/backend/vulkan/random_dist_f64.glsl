// The laws of src/ir/random/samplers.rs in 64-bit floats (f64 arrays and Poisson values),
// emitted only for kernels that have them: random_dist.glsl's rules hold here too.

// `uniform_range` for f64.
double r_uniform_range_f64(double u, double lo, double hi, double below) {
    precise double x = lo * (1.0lf - u) + hi * u;
    return x < lo ? lo : (x > below ? below : x);
}

// The portable log for f64 (ir::random::portable, fdlibm's e_log.c) of a positive normal x.
double r_ln_d(double x) {
    uint64_t bits = packUint2x32(unpackDouble2x32(x));
    int64_t k = int64_t(bits - 0x3fe6a09e667f3bcdul) >> 52;
    precise double f = packDouble2x32(unpackUint2x32(bits - (uint64_t(k) << 52))) - 1.0lf;
    precise double s = f / (2.0lf + f);
    precise double z = s * s;
    precise double w = z * z;
    precise double t1 = w * (R_LG2 + w * (R_LG4 + w * R_LG6));
    precise double t2 = z * (R_LG1 + w * (R_LG3 + w * (R_LG5 + w * R_LG7)));
    precise double r = t2 + t1;
    precise double hfsq = 0.5lf * f * f;
    precise double kf = double(k);
    precise double ln = kf * R_LN2_HI_D - ((hfsq - (s * (hfsq + r) + kf * R_LN2_LO_D)) - f);
    return ln;
}

// The portable (cos 2 pi v, sin 2 pi v) for f64.
dvec2 r_cos_sin_turns_d(double v) {
    precise double q = v * 4.0lf + R_MAGIC_D;
    precise double n = q - R_MAGIC_D;
    precise double f = v + n * -0.25lf;
    precise double g = f * f;
    precise dvec2 cs = dvec2(1.0lf + g * r_cos_turns_d(g), f * r_sin_turns_d(g));
    uint nb = unpackDouble2x32(q).x;
    cs = (nb & 1u) != 0u ? dvec2(-cs.y, cs.x) : cs;
    return (nb & 2u) != 0u ? -cs : cs;
}

// `mt_attempt` for f64.
bool r_mt_attempt_f64(double d, double c, double u0, double u1, double u2, out double t) {
    precise double x = sqrt(-2.0lf * r_ln_d(1.0lf - u0)) * r_cos_sin_turns_d(u1).x;
    precise double y = c * x;
    precise double tt = 1.0lf + y;
    t = tt;
    if (tt <= 0.0lf) return false;
    precise double big_u = 1.0lf - u2;
    precise double x2 = x * x;
    precise double squeeze = 1.0lf - R_MT_SQUEEZE_F64 * (x2 * x2);
    if (big_u < squeeze) return true;
    precise double h;
    if (y < 0.125lf && y > -0.125lf) {
        precise double y2 = y * y;
        h = -4.5lf * y2 + (y2 * y2) * r_mt_series_f64(y);
    } else {
        h = (1.0lf - tt * tt * tt) + 3.0lf * r_ln_d(tt);
    }
    precise double bound = 0.5lf * x2 + d * h;
    return r_ln_d(big_u) < bound;
}

// `marsaglia_tsang` for f64: attempt j takes blocks 2j and 2j + 1.
double r_gamma_f64(int kind, int64_t seed, int64_t draw, uint64_t e, double d, double c, out double boost) {
    for (uint a = 0u; a < R_ELEMENT_BLOCKS; a += 2u) {
        uvec4 w0 = r_element_block(kind, seed, draw, e, a);
        uvec4 w1 = r_element_block(kind, seed, draw, e, a + 1u);
        double t;
        if (r_mt_attempt_f64(d, c, r_f64(w0.x, w0.y), r_f64(w0.z, w0.w), r_f64(w1.x, w1.y), t)) {
            boost = 1.0lf - r_f64(w1.z, w1.w);
            return t;
        }
    }
    boost = 1.0lf;
    return 1.0lf;
}

// `poisson_inversion`.
double r_poisson_inversion(double u, double lambda, double p0) {
    precise double k = 0.0lf;
    precise double p = p0;
    precise double f = p0;
    uint steps = 0u;
    while (u >= f && steps < R_POISSON_INVERSION_STEPS) {
        k += 1.0lf;
        p = p * lambda / k;
        precise double g = f + p;
        if (g == f) break;
        f = g;
        steps++;
    }
    return k;
}

// `stirlerr` for integer k >= 1.
double r_stirlerr(double k) {
    if (k <= 15.0lf) return r_stirlerr_table(int(k));
    precise double kk = k * k;
    if (k > 500.0lf) return (R_S0 - R_S1 / kk) / k;
    if (k > 80.0lf) return (R_S0 - (R_S1 - R_S2 / kk) / kk) / k;
    if (k > 35.0lf) return (R_S0 - (R_S1 - (R_S2 - R_S3 / kk) / kk) / kk) / k;
    return (R_S0 - (R_S1 - (R_S2 - (R_S3 - R_S4 / kk) / kk) / kk) / kk) / k;
}

// `bd0`: x ln(x / m) + m - x without cancellation.
double r_bd0(double x, double m) {
    if (abs(x - m) < R_BD0_NEAR * (x + m)) {
        precise double v = (x - m) / (x + m);
        precise double s = (x - m) * v;
        precise double ej = 2.0lf * x * v;
        v = v * v;
        for (uint j = 1u; j < R_BD0_TERMS; j++) {
            ej = ej * v;
            precise double s1 = s + ej / double(2u * j + 1u);
            if (s1 == s) return s1;
            s = s1;
        }
        return s;
    }
    precise double r = x * r_ln_d(x / m) + m - x;
    return r;
}

// `ln_poisson_pmf`.
double r_ln_poisson_pmf(double k, double lambda) {
    if (k == 0.0lf) return -lambda;
    precise double r = -r_stirlerr(k) - r_bd0(k, lambda) - 0.5lf * r_ln_d(R_TAU_D * k);
    return r;
}

// `ptrs_attempt`: whether accepted, and k.
bool r_ptrs_attempt(double lambda, double a, double b, double lia, double vr, double u, double v, out double k) {
    precise double us = 0.5lf - abs(u);
    k = 0.0lf;
    if (us <= 0.0lf || (us < R_PTRS_SMALL_US && v > us)) return false;
    precise double at = (2.0lf * a / us + b) * u + lambda + R_PTRS_SHIFT;
    precise double kk = floor(at);
    k = kk;
    if (us >= R_PTRS_SQUEEZE_US && v <= vr) return true;
    if (kk < 0.0lf) return false;
    if (v == 0.0lf) return true;
    precise double lhs = r_ln_d(v) + lia - r_ln_d(a / (us * us) + b);
    return lhs <= r_ln_poisson_pmf(kk, lambda);
}

// `ptrs`: attempt j takes the element's block j.
double r_ptrs(int kind, int64_t seed, int64_t draw, uint64_t e, double lambda, double a, double b, double lia, double vr) {
    for (uint j = 0u; j < R_ELEMENT_BLOCKS; j++) {
        uvec4 w = r_element_block(kind, seed, draw, e, j);
        double k;
        if (r_ptrs_attempt(lambda, a, b, lia, vr, r_f64(w.x, w.y) - 0.5lf, r_f64(w.z, w.w), k)) return k;
    }
    return floor(lambda);
}
