//! GLSL of the special functions erfc, erfinv, lgamma and tgamma: in double precision the
//! CPU executor's algorithms on its tables (`backend/cpu/math`: special.rs, gamma.rs),
//! built on math.glsl's exact products and sums, double-double logarithm and exponential
//! parts; in single precision, for devices without 64-bit floats, simpler formulas on
//! GLSL's builtins (their accuracy is the device's: README, "Math accuracy").

use crate::backend::cpu::math::{
    C_HI, C_LO, ERF_SMALL, ERFCX_A, ERFCX_B, ERFCX_C, ERFCX_D, ERFINV_A, ERFINV_B, ERFINV_C, ERFINV_D, LGAMMA_B,
    LGAMMA_SIN, LGAMMA_STIRLING, PolyDd,
};

/// A double literal (the shortest decimal that reads back as the same double).
fn d(v: f64) -> String {
    format!("{v:?}lf")
}

/// Horner statements accumulating `c[0] + c[1] t + ...` into the `precise double` `acc`.
fn horner(acc: &str, c: &[f64], t: &str, f64: bool) -> String {
    let lit = |v: f64| if f64 { d(v) } else { format!("{:?}", v as f32) };
    let ty = if f64 { "double" } else { "float" };
    let mut s = format!("precise {ty} {acc} = {};\n", lit(c[c.len() - 1]));
    for &k in c[..c.len() - 1].iter().rev() {
        s += &format!("{acc} = {} + {t} * {acc};\n", lit(k));
    }
    s
}

/// `void m_{name}(double t, out double hi, out double lo)`: `c0 + t q(t)` as a
/// double-double, the last product and sum exact (`PolyDd::eval`).
fn poly_dd(name: &str, p: &PolyDd) -> String {
    format!(
        "void m_{name}(double t, out double hi, out double lo) {{\n{}\
         precise double p, pe, h, e;\n\
         m_two_prod(t, q, p, pe);\n\
         m_two_sum({}, p, h, e);\n\
         hi = h;\n\
         lo = e + (pe + {});\n}}\n",
        horner("q", p.q, "t", true),
        d(p.hi),
        d(p.lo)
    )
}

/// `float m_{name}_f32(float t)`: the same polynomial in single precision.
fn poly_f32(name: &str, p: &PolyDd) -> String {
    format!("float m_{name}_f32(float t) {{\n{}return {:?} + t * q;\n}}\n", horner("q", p.q, "t", false), p.hi as f32)
}

/// The double-precision functions `m_erfc`, `m_erfinv`, `m_lgamma`, `m_tgamma` (after
/// math.glsl).
pub fn source_f64() -> String {
    let mut s = String::new();
    for (name, p) in [
        ("erfcx_a", &ERFCX_A),
        ("erfcx_b", &ERFCX_B),
        ("erfcx_c", &ERFCX_C),
        ("erfcx_d", &ERFCX_D),
        ("erfinv_a", &ERFINV_A),
        ("erfinv_b", &ERFINV_B),
        ("erfinv_c", &ERFINV_C),
        ("erfinv_d", &ERFINV_D),
        ("lgamma_b", &LGAMMA_B),
        ("lgamma_sin", &LGAMMA_SIN),
        ("lgamma_stirling", &LGAMMA_STIRLING),
    ] {
        s += &poly_dd(name, p);
    }
    s += &format!(
        "// erfc: 1 - erf x below 0.5 with 1 - (2/sqrt(pi)) x exact; else e^(-x^2) erfcx(|x|),\n\
         // x^2 exact, rounded once and scaled (special.rs).\n\
         void m_erfcx_dd(double a, out double hi, out double lo) {{\n\
         if (a < 1.0lf) {{ m_erfcx_a(a - 0.75lf, hi, lo); return; }}\n\
         if (a < 2.0lf) {{ m_erfcx_b(a - 1.5lf, hi, lo); return; }}\n\
         precise double uh = 1.0lf / a;\n\
         precise double p, pe, gh, gl;\n\
         m_two_prod(uh, a, p, pe);\n\
         precise double ul = ((1.0lf - p) - pe) * uh;\n\
         if (a < 4.0lf) m_erfcx_c(uh - 0.375lf, gh, gl); else m_erfcx_d(uh * uh, gh, gl);\n\
         m_two_prod(uh, gh, p, pe);\n\
         hi = p;\n\
         lo = pe + (uh * gl + ul * gh);\n\
         }}\n\
         double m_erfc(double x) {{\n\
         if (isnan(x)) return x;\n\
         precise double a = abs(x);\n\
         if (a < 0.5lf) {{\n\
         precise double z = x * x;\n\
         {small}\
         precise double rest = {c_lo} + z * small;\n\
         precise double p, pe, s, se;\n\
         m_two_prod({c_hi}, x, p, pe);\n\
         m_two_sum(1.0lf, -p, s, se);\n\
         return s + (se - (x * rest + pe));\n\
         }}\n\
         if (a > 27.3lf) return x < 0.0lf ? 2.0lf : 0.0lf;\n\
         precise double fh, fl, sh, sl, p;\n\
         m_erfcx_dd(a, fh, fl);\n\
         m_two_prod(a, a, sh, sl);\n\
         int n;\n\
         m_exp_parts(-sh, -sl, n, p);\n\
         precise double r = m_ldexp(fh + (p * fh + (fl + p * fl)), n);\n\
         return x < 0.0lf ? 2.0lf - r : r;\n\
         }}\n",
        small = horner("small", ERF_SMALL, "z", true),
        c_lo = d(C_LO),
        c_hi = d(C_HI),
    );
    s += &format!(
        "// erfinv: polynomials in w = -log(1 - x^2) and sqrt(w), both double-doubles (special.rs).\n\
         double m_erfinv(double x) {{\n\
         precise double a = abs(x);\n\
         if (isnan(x) || a > 1.0lf) return 0.0lf / 0.0lf;\n\
         if (a == 1.0lf) return x * M_INF;\n\
         if (x == 0.0lf) return x;\n\
         precise double q, qe, h, e, lh, ll, w, wl, r2, r2e, t, te, ph, pl;\n\
         m_two_prod(x, x, q, qe);\n\
         m_two_sum(1.0lf, -q, h, e);\n\
         m_log_dd(h, lh, ll);\n\
         m_two_sum(-lh, -(ll + (e - qe) / h), w, wl);\n\
         precise double r = sqrt(w);\n\
         m_two_prod(r, r, r2, r2e);\n\
         precise double rl = (((w - r2) - r2e) + wl) / (2.0lf * r);\n\
         precise double slope;\n\
         if (w < 3.125lf) {{\n\
         m_two_sum(w, -1.5625lf, t, te); te += wl; m_erfinv_a(t, ph, pl); slope = {a};\n\
         }} else if (w < 6.25lf) {{\n\
         m_two_sum(w, -4.6875lf, t, te); te += wl; m_erfinv_b(t, ph, pl); slope = {b};\n\
         }} else if (r < 4.0lf) {{\n\
         m_two_sum(r, -3.25lf, t, te); te += rl; m_erfinv_c(t, ph, pl); slope = {c};\n\
         }} else {{\n\
         m_two_sum(r, -5.05lf, t, te); te += rl; m_erfinv_d(t, ph, pl); slope = {dd};\n\
         }}\n\
         pl += te * slope;\n\
         precise double y, ye;\n\
         m_two_prod(x, ph, y, ye);\n\
         return y + (x * pl + ye);\n\
         }}\n",
        a = d(ERFINV_A.q[0]),
        b = d(ERFINV_B.q[0]),
        c = d(ERFINV_C.q[0]),
        dd = d(ERFINV_D.q[0]),
    );
    s += &format!(
        "// log |Gamma(x)| as hi + lo for finite x > -0.5, not 0 (gamma.rs's lgamma_main).\n\
         void m_lgamma_main(double x, out double hi, out double lo) {{\n\
         precise double t, ph, pl, sign = 1.0lf;\n\
         if (x < 0.5lf) {{\n\
         precise double ax = abs(x), sq, sqe, e;\n\
         m_two_prod(x, ax, sq, sqe);\n\
         m_fast_two_sum(ax, sq, ph, e);\n\
         t = x; pl = e + sqe; sign = -1.0lf;\n\
         }} else if (x < 1.5lf) {{\n\
         t = x - 1.0lf; ph = x; pl = 0.0lf; sign = -1.0lf;\n\
         }} else if (x < 3.0lf) {{\n\
         t = x - 2.0lf; ph = 1.0lf; pl = 0.0lf;\n\
         }} else if (x < 8.0lf) {{\n\
         t = x - floor(x); ph = 1.0lf; pl = 0.0lf;\n\
         for (int j = 1; j <= 5; j++) {{\n\
         precise double f = x - double(j);\n\
         if (f < 2.0lf) break;\n\
         precise double p, pe;\n\
         m_two_prod(ph, f, p, pe);\n\
         pl = pe + pl * f; ph = p;\n\
         }}\n\
         }} else {{\n\
         // Stirling: (x - 1/2)(log x - 1) + (log(2 pi) - 1)/2 + u S(u^2), u = 1/x.\n\
         precise double lh, ll, ah, al, sh, sl, h, e;\n\
         m_log_dd(x, lh, ll);\n\
         precise double xm = x - 0.5lf;\n\
         // (Dekker's product overflows splitting factors near the top of the range.)\n\
         if (x > 1e300lf) {{ ah = xm * (lh - 1.0lf); al = 0.0lf; }} else m_two_prod(xm, lh - 1.0lf, ah, al);\n\
         precise double u = 1.0lf / x;\n\
         m_lgamma_stirling(u * u, sh, sl);\n\
         m_two_sum(ah, {c_hi}, h, e);\n\
         hi = h;\n\
         lo = e + ((xm * ll + al) + (u * (sh + sl) + {c_lo}));\n\
         return;\n\
         }}\n\
         precise double bh, bl, gh, ge, lh, ll, h, e;\n\
         m_lgamma_b(t, bh, bl);\n\
         m_two_prod(t, bh, gh, ge);\n\
         m_log_dd(ph, lh, ll);\n\
         ll += pl / ph;\n\
         m_two_sum(gh, sign * lh, h, e);\n\
         hi = h;\n\
         lo = e + ((ge + t * bl) + sign * ll);\n\
         }}\n\
         // x - round(x), 0 for |x| >= 2^52.\n\
         double m_frac_nearest(double x) {{\n\
         return abs(x) < 4503599627370496.0lf ? x - roundEven(x) : 0.0lf;\n\
         }}\n\
         // log |Gamma(x)| as hi + lo for finite x, not 0 or a negative integer; the\n\
         // reflection below -0.5.\n\
         void m_lgamma_dd(double x, out double hi, out double lo) {{\n\
         if (x > -0.5lf) {{ m_lgamma_main(x, hi, lo); return; }}\n\
         precise double r = m_frac_nearest(x), gh, gl, p, pe, lh, ll, sh, sl, h, e;\n\
         m_lgamma_main(-x, gh, gl);\n\
         m_two_prod(-x, abs(r), p, pe);\n\
         m_log_dd(p, lh, ll);\n\
         precise double z = r * r;\n\
         m_lgamma_sin(z, sh, sl);\n\
         m_two_sum(lh, gh, h, e);\n\
         hi = -h;\n\
         lo = -(e + (ll + pe / p) + z * (sh + sl) + gl);\n\
         }}\n\
         double m_lgamma(double x) {{\n\
         if (isnan(x)) return x;\n\
         if (x == 0.0lf || isinf(x) || (x <= -0.5lf && m_frac_nearest(x) == 0.0lf)) return M_INF;\n\
         precise double h, l;\n\
         m_lgamma_dd(x, h, l);\n\
         return isinf(h) ? h : h + l;\n\
         }}\n\
         double m_tgamma(double x) {{\n\
         if (isnan(x) || x == -M_INF || (x < 0.0lf && m_frac_nearest(x) == 0.0lf)) return 0.0lf / 0.0lf;\n\
         if (x == 0.0lf) return m_signbit(x) ? -M_INF : M_INF;\n\
         if (x == M_INF) return x;\n\
         precise double h, l, p;\n\
         m_lgamma_dd(x, h, l);\n\
         m_two_sum(h, l, h, l);\n\
         precise double g = M_INF;\n\
         if (h < 710.0lf) {{\n\
         if (h < -746.0lf) {{ h = -800.0lf; l = 0.0lf; }}\n\
         int n;\n\
         m_exp_parts(h, l, n, p);\n\
         g = m_ldexp(1.0lf + p, n);\n\
         }}\n\
         // Negative where floor(x) is odd.\n\
         precise double fl = floor(x);\n\
         return (x < 0.0lf && fl * 0.5lf != floor(fl * 0.5lf)) ? -g : g;\n\
         }}\n",
        c_hi = d(0.4189385332046727),
        c_lo = d(1.6728209650585413e-17),
    );
    s
}

/// Single-precision helpers for devices without 64-bit floats (`glsl.rs` emits them on
/// demand): erfc from Numerical Recipes' fit (relative error below 1.2e-7 before the
/// builtin exp's), erfinv from the double-precision tables evaluated in f32, lgamma by
/// recurrence up to Stirling's series (reflected below 0.5), tgamma its exponential.
pub fn helper_f32(name: &str) -> Option<String> {
    Some(match name {
        "erfcc" => "float erfcc_f32(float a) {\n\
             float t = 1.0 / (1.0 + 0.5 * a);\n\
             return t * exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + \
             t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));\n\
             }\n"
        .to_string(),
        "erfc" => "float erfc_f32(float x) {\n\
             if (isnan(x)) return x;\n\
             float c = erfcc_f32(abs(x));\n\
             return x < 0.0 ? 2.0 - c : c;\n\
             }\n"
        .to_string(),
        "erfinv" => format!(
            "{}{}{}float erfinv_f32(float x) {{\n\
             float a = abs(x);\n\
             if (isnan(x) || a > 1.0) return 0.0 / 0.0;\n\
             if (a == 1.0) return uintBitsToFloat(x > 0.0 ? 0x7f800000u : 0xff800000u);\n\
             float w = -log((1.0 - a) * (1.0 + a));\n\
             if (w < 3.125) return x * m_erfinv_a_f32(w - 1.5625);\n\
             if (w < 6.25) return x * m_erfinv_b_f32(w - 4.6875);\n\
             return x * m_erfinv_c_f32(sqrt(w) - 3.25);\n\
             }}\n",
            poly_f32("erfinv_a", &ERFINV_A),
            poly_f32("erfinv_b", &ERFINV_B),
            poly_f32("erfinv_c", &ERFINV_C)
        ),
        // log Gamma(x) for x >= 0.5: Stirling from 8; below, the double-precision kernel's
        // base t B(t) = log Gamma(2 + t) in f32 (relative near the zeros at 1 and 2), with
        // log x near 1 from log1p and the factors down to [2, 3) multiplied out.
        "lgamma_pos" => format!(
            "{}float lgamma_pos_f32(float x) {{\n\
             if (x >= 8.0) {{\n\
               float u = 1.0 / x;\n\
               float s = u * (0.083333333 + u * u * (-0.0027777778 + u * u * 0.00079365079));\n\
               return (x - 0.5) * (log(x) - 1.0) + 0.41893853 + s;\n\
             }}\n\
             if (x < 1.5) {{ float t = x - 1.0; return t * m_lgamma_b_f32(t) - log1p_f32(t); }}\n\
             float p = 1.0;\n\
             float y = x;\n\
             for (int i = 0; i < 6 && y >= 3.0; i++) {{ y -= 1.0; p *= y; }}\n\
             float t = y - 2.0;\n\
             return t * m_lgamma_b_f32(t) + log(p);\n\
             }}\n",
            poly_f32("lgamma_b", &LGAMMA_B)
        ),
        "lgamma" => "float lgamma_f32(float x) {\n\
             if (isnan(x)) return x;\n\
             float r = x - roundEven(x);\n\
             if (isinf(x) || x == 0.0 || (x < 0.0 && r == 0.0)) return 1.0 / 0.0;\n\
             if (x >= 0.5) return lgamma_pos_f32(x);\n\
             return log(3.14159265 / abs(sin(3.14159265 * r))) - lgamma_pos_f32(1.0 - x);\n\
             }\n"
        .to_string(),
        "tgamma" => "float tgamma_f32(float x) {\n\
             float r = x - roundEven(x);\n\
             if (isnan(x) || x == -1.0 / 0.0 || (x < 0.0 && r == 0.0)) return 0.0 / 0.0;\n\
             if (x == 0.0) return 1.0 / x;\n\
             float g = exp(lgamma_f32(x));\n\
             float fl = floor(x);\n\
             return (x < 0.0 && fl * 0.5 != floor(fl * 0.5)) ? -g : g;\n\
             }\n"
        .to_string(),
        _ => return None,
    })
}

/// The helpers a single-precision helper calls.
pub fn deps_f32(name: &str) -> &'static [&'static str] {
    match name {
        "erfc" => &["erfcc"],
        "lgamma" => &["lgamma_pos"],
        "lgamma_pos" => &["log1p"],
        "tgamma" => &["lgamma"],
        _ => &[],
    }
}
