// Elementary functions in double precision for generated kernels. GLSL has no 64-bit
// transcendental builtins, and its 32-bit ones are loose (lavapipe's log is off by
// hundreds of ulps near 1), so f64 kernels call these and f32 kernels call them and round.
//
// Each function reduces its argument exactly (or keeping the reduction's rounding in a
// low part) to a small range and sums a truncated Taylor series there, unrolled as Horner
// steps; the truncation error is below 2^-60 relative on the reduced ranges. Bounds are
// in tests/common/accuracy.rs (README, "Math accuracy"). Exponents are read and applied
// through the bits (m_frexp, m_ldexp), so subnormals are handled as well as normal numbers
// whatever the driver's frexp/ldexp do with them. sin/cos/tan reduce arguments below
// 2^20 pi/2 by pi/2 in four parts (Cody-Waite), larger ones with the bits of 2/pi
// (Payne-Hanek), exactly in integer arithmetic. Exact products use Dekker's splitting
// rather than `fma`, which drivers may compute with two roundings. Locals are `precise`:
// without it a compiler may reassociate float arithmetic (Mesa's NIR does), which breaks
// exact sums and reductions. Constants that are not plain decimal values come from
// scripts/math_constants.py; the bits of 2/pi, m_two_over_pi, are the CPU executor's
// table, emitted before this file (glsl.rs).

const double M_INF = 1.0lf / 0.0lf;
const double LN2_HI = 0.6931471806019545lf;      // ln 2 to 32 bits: n * LN2_HI is exact
const double LN2_LO = -4.2009150726810846e-11lf;
const double LN2 = 0.6931471805599453lf;         // ln 2 as a double-double
const double LN2_TAIL = 2.3190468138462996e-17lf;
const double INV_LN2 = 1.4426950408889634lf;
const double INV_LN2_LO = 2.0355273740931033e-17lf;
const double INV_LN10 = 0.4342944819032518lf;
const double INV_LN10_LO = 1.098319650216765e-17lf;
const double TWO_OVER_PI = 0.6366197723675814lf;
const double PIO2_1 = 1.5707963267341256lf;      // pi/2 in three 33-bit parts and a tail
const double PIO2_2 = 6.077100506303966e-11lf;
const double PIO2_3 = 2.0222662487111665e-21lf;
const double PIO2_4 = 8.4784276603689e-32lf;
const double PIO2_HI = 1.5707963267948966lf;
const double PIO2_LO = 6.123233995736766e-17lf;
const double PIO4_HI = 0.7853981633974483lf;
const double PIO6_HI = 0.5235987755982989lf;
const double PIO6_LO = -5.360408832255455e-17lf;
const double PI_HI = 3.141592653589793lf;
const double PI_LO = 1.2246467991473532e-16lf;
const double SQRT3 = 1.7320508075688772lf;
const double SQRT3_LO = 1.0035084221806903e-16lf;
const double TAN_PI12 = 0.2679491924311227lf;
const double TWO54 = 18014398509481984.0lf;
const double MIN_NORMAL = 2.2250738585072014e-308lf;


// log's table: 1/c for c = i/64 near m, i = 45..91 (i - 45 here), and -log of it as a
// double-double.
double m_log_invc(int i) {
    return (i < 23 ? (i < 11 ? (i < 5 ? (i < 2 ? (i < 1 ? 1.4222222222222223lf : 1.391304347826087lf) : (i < 3 ? 1.3617021276595744lf : (i < 4 ? 1.3333333333333333lf : 1.3061224489795917lf))) : (i < 8 ? (i < 6 ? 1.28lf : (i < 7 ? 1.2549019607843137lf : 1.2307692307692308lf)) : (i < 9 ? 1.2075471698113207lf : (i < 10 ? 1.1851851851851851lf : 1.1636363636363636lf)))) : (i < 17 ? (i < 14 ? (i < 12 ? 1.1428571428571428lf : (i < 13 ? 1.1228070175438596lf : 1.103448275862069lf)) : (i < 15 ? 1.0847457627118644lf : (i < 16 ? 1.0666666666666667lf : 1.0491803278688525lf))) : (i < 20 ? (i < 18 ? 1.032258064516129lf : (i < 19 ? 1.0158730158730158lf : 1.0lf)) : (i < 21 ? 0.9846153846153847lf : (i < 22 ? 0.9696969696969697lf : 0.9552238805970149lf))))) : (i < 35 ? (i < 29 ? (i < 26 ? (i < 24 ? 0.9411764705882353lf : (i < 25 ? 0.927536231884058lf : 0.9142857142857143lf)) : (i < 27 ? 0.9014084507042254lf : (i < 28 ? 0.8888888888888888lf : 0.8767123287671232lf))) : (i < 32 ? (i < 30 ? 0.8648648648648649lf : (i < 31 ? 0.8533333333333334lf : 0.8421052631578947lf)) : (i < 33 ? 0.8311688311688312lf : (i < 34 ? 0.8205128205128205lf : 0.810126582278481lf)))) : (i < 41 ? (i < 38 ? (i < 36 ? 0.8lf : (i < 37 ? 0.7901234567901234lf : 0.7804878048780488lf)) : (i < 39 ? 0.7710843373493976lf : (i < 40 ? 0.7619047619047619lf : 0.7529411764705882lf))) : (i < 44 ? (i < 42 ? 0.7441860465116279lf : (i < 43 ? 0.735632183908046lf : 0.7272727272727273lf)) : (i < 45 ? 0.7191011235955056lf : (i < 46 ? 0.7111111111111111lf : 0.7032967032967034lf))))));
}
double m_log_c_hi(int i) {
    return (i < 23 ? (i < 11 ? (i < 5 ? (i < 2 ? (i < 1 ? -0.35222059358935215lf : -0.3302416868705768lf) : (i < 3 ? -0.30873548164961323lf : (i < 4 ? -0.28768207245178085lf : -0.26706278524904514lf))) : (i < 8 ? (i < 6 ? -0.2468600779315258lf : (i < 7 ? -0.22705745063534608lf : -0.20763936477824455lf)) : (i < 9 ? -0.18859116980754997lf : (i < 10 ? -0.16989903679539742lf : -0.15154989812720088lf)))) : (i < 17 ? (i < 14 ? (i < 12 ? -0.13353139262452257lf : (i < 13 ? -0.11583181552512165lf : -0.09844007281325251lf)) : (i < 15 ? -0.0813456394539524lf : (i < 16 ? -0.06453852113757116lf : -0.04800921918636066lf))) : (i < 20 ? (i < 18 ? -0.03174869831458027lf : (i < 19 ? -0.015748356968139112lf : 0.0lf)) : (i < 21 ? 0.015504186535965199lf : (i < 22 ? 0.03077165866675366lf : 0.04580953603129422lf))))) : (i < 35 ? (i < 29 ? (i < 26 ? (i < 24 ? 0.060624621816434854lf : (i < 25 ? 0.07522342123758752lf : 0.08961215868968717lf)) : (i < 27 ? 0.10379679368164355lf : (i < 28 ? 0.11778303565638351lf : 0.13157635778871932lf))) : (i < 32 ? (i < 30 ? 0.14518200984449783lf : (i < 31 ? 0.15860503017663852lf : 0.17185025692665928lf)) : (i < 33 ? 0.18492233849401193lf : (i < 34 ? 0.19782574332991992lf : 0.21056476910734964lf)))) : (i < 41 ? (i < 38 ? (i < 36 ? 0.2231435513142097lf : (i < 37 ? 0.23556607131276697lf : 0.2478361639045812lf)) : (i < 39 ? 0.259957524436926lf : (i < 40 ? 0.2719337154836418lf : 0.2837681731306446lf))) : (i < 44 ? (i < 42 ? 0.2954642128938359lf : (i < 43 ? 0.3070250352949119lf : 0.3184537311185346lf)) : (i < 45 ? 0.32975328637246804lf : (i < 46 ? 0.3409265869705932lf : 0.3519764231571781lf))))));
}
double m_log_c_lo(int i) {
    return (i < 23 ? (i < 11 ? (i < 5 ? (i < 2 ? (i < 1 ? 1.1623903064849822e-17lf : -1.6927253978145054e-17lf) : (i < 3 ? -1.5025836482434425e-17lf : (i < 4 ? -2.6071606164425637e-17lf : -2.3896107240262357e-17lf))) : (i < 8 ? (i < 6 ? -6.678539813576451e-18lf : (i < 7 ? 4.326372045075968e-18lf : -1.2053243216686127e-17lf)) : (i < 9 ? -9.915070540571144e-18lf : (i < 10 ? 4.868008764439086e-19lf : -1.2105853272368787e-17lf)))) : (i < 17 ? (i < 14 ? (i < 12 ? 3.664457663660086e-18lf : (i < 13 ? -4.3384843698080944e-18lf : 4.439009633675136e-18lf)) : (i < 15 ? -1.6076294039775555e-18lf : (i < 16 ? 6.470486661692933e-18lf : 2.030356617224395e-18lf))) : (i < 20 ? (i < 18 ? -3.0382263084680854e-18lf : (i < 19 ? -1.0021578630528958e-18lf : 0.0lf)) : (i < 21 ? -3.2783210228924137e-19lf : (i < 22 ? 1.0431732029005972e-18lf : 1.6823639049745016e-19lf))))) : (i < 35 ? (i < 29 ? (i < 26 ? (i < 24 ? 2.6424025938726934e-18lf : (i < 25 ? -4.195880720316434e-18lf : -1.9573659817110993e-18lf)) : (i < 27 ? -3.195893222617445e-18lf : (i < 28 ? -1.1971685747593662e-18lf : 1.112300087972959e-17lf))) : (i < 32 ? (i < 30 ? 8.242418783022477e-18lf : (i < 31 ? 2.583386492298558e-18lf : -6.022453821011369e-18lf)) : (i < 33 ? -7.384679440503435e-18lf : (i < 34 ? -7.995487338741543e-18lf : 1.136310596906137e-17lf)))) : (i < 41 ? (i < 38 ? (i < 36 ? -9.091270597324798e-18lf : (i < 37 ? -2.394337149518734e-18lf : 8.384472133019162e-18lf)) : (i < 39 ? 2.4167516341742964e-17lf : (i < 40 ? 7.833196376974436e-19lf : -6.448868003452105e-18lf))) : (i < 44 ? (i < 42 ? -7.768320796245443e-18lf : (i < 43 ? 1.5578716077124932e-18lf : -6.407962483026777e-19lf)) : (i < 45 ? -2.5633554999431966e-17lf : (i < 46 ? -2.069678002794501e-17lf : 2.0005853013367377e-17lf))))));
}

bool m_signbit(double x) {
    return unpackDouble2x32(x).y >= 0x80000000u;
}

double m_copysign(double a, double s) {
    uvec2 b = unpackDouble2x32(a);
    b.y = (b.y & 0x7fffffffu) | (unpackDouble2x32(s).y & 0x80000000u);
    return packDouble2x32(b);
}

// a * b = p + e exactly (for |a|, |b| below 2^996 and no underflow).
void m_two_prod(double a, double b, out double p, out double e) {
    precise double pp = a * b;
    precise double ca = 134217729.0lf * a;
    precise double ah = ca - (ca - a);
    precise double al = a - ah;
    precise double cb = 134217729.0lf * b;
    precise double bh = cb - (cb - b);
    precise double bl = b - bh;
    precise double err = ((ah * bh - pp) + ah * bl + al * bh) + al * bl;
    p = pp;
    e = err;
}

// a + b = s + e exactly.
void m_two_sum(double a, double b, out double s, out double e) {
    precise double ss = a + b;
    precise double bb = ss - a;
    precise double ee = (a - (ss - bb)) + (b - bb);
    s = ss;
    e = ee;
}

// a + b = s + e exactly, for |a| >= |b| (or a = 0).
void m_fast_two_sum(double a, double b, out double s, out double e) {
    precise double ss = a + b;
    precise double ee = b - (ss - a);
    s = ss;
    e = ee;
}

// 2^k for -1022 <= k <= 1023.
double m_pow2(int k) {
    return packDouble2x32(uvec2(0u, uint(k + 1023) << 20));
}

// x 2^n rounded once, also where the result is subnormal (the scaling is split so that
// only the last product can round).
double m_ldexp(double x, int n) {
    precise double y = x;
    if (n > 1023) {
        y *= m_pow2(1023);
        n -= 1023;
        if (n > 1023) {
            y *= m_pow2(1023);
            n = min(n - 1023, 1023);
        }
    } else if (n < -1022) {
        y *= m_pow2(-969);  // 2^-1022 * 2^53: stays normal
        n += 969;
        if (n < -1022) {
            y *= m_pow2(-969);
            n = max(n + 969, -1022);
        }
    }
    precise double r = y * m_pow2(n);
    return r;
}

// x = m 2^e with 0.5 <= |m| < 1, for finite non-zero x, subnormals included.
double m_frexp(double x, out int e) {
    int adjust = 0;
    precise double y = x;
    if (abs(y) < MIN_NORMAL) {
        y *= TWO54;
        adjust = -54;
    }
    uvec2 b = unpackDouble2x32(y);
    e = int((b.y >> 20) & 0x7ffu) - 1022 + adjust;
    b.y = (b.y & 0x800fffffu) | 0x3fe00000u;
    return packDouble2x32(b);
}

// ---------------------------------------------------------------------------------------
// Exponentials

// e^r - 1 - r for |r| <= 0.35: sum r^k / k!, k = 2..14.
double m_expm1_tail(double r) {
    precise double p = 1.1470745597729725e-11lf;
    p = 1.6059043836821613e-10lf + r * p;
    p = 2.08767569878681e-09lf + r * p;
    p = 2.505210838544172e-08lf + r * p;
    p = 2.755731922398589e-07lf + r * p;
    p = 2.7557319223985893e-06lf + r * p;
    p = 2.48015873015873e-05lf + r * p;
    p = 0.0001984126984126984lf + r * p;
    p = 0.001388888888888889lf + r * p;
    p = 0.008333333333333333lf + r * p;
    p = 0.041666666666666664lf + r * p;
    p = 0.16666666666666666lf + r * p;
    p = 0.5lf + r * p;
    precise double t = (r * r) * p;
    return t;
}

// e^x = 2^n (1 + p) for |x| < 746, with p (|p| < 0.42) accurate to about 2^-60 relative
// of 1 + p. x = n ln2 + r + c, r + c the reduced argument with its rounding in c.
void m_exp_parts(double x, double xlo, out int n, out double p) {
    precise double k = floor(x * INV_LN2 + 0.5lf);
    n = int(k);
    precise double hi = x - k * LN2_HI;          // exact
    precise double lo = k * LN2_LO - xlo;
    precise double r = hi - lo;
    precise double c = (hi - r) - lo;
    precise double q = r + m_expm1_tail(r);
    p = q + c * (1.0lf + q);
}

double m_exp(double x) {
    if (isnan(x)) return x;
    if (x > 709.782712893384lf) return M_INF;
    if (x < -746.0lf) return 0.0lf;
    int n;
    precise double p;
    m_exp_parts(x, 0.0lf, n, p);
    return m_ldexp(1.0lf + p, n);
}

double m_exp2(double x) {
    if (isnan(x)) return x;
    if (x >= 1024.0lf) return M_INF;
    if (x < -1076.0lf) return 0.0lf;
    precise double k = floor(x + 0.5lf);
    precise double f = x - k;                    // exact, |f| <= 1/2
    precise double rh, rl;
    m_two_prod(f, LN2, rh, rl);
    rl += f * LN2_TAIL;
    int n;
    precise double p;
    m_exp_parts(rh, rl, n, p);
    return m_ldexp(1.0lf + p, int(k) + n);
}

// e^x - 1 = hi + lo for |x| <= 45 (|lo| below an ulp of hi).
void m_expm1_dd(double x, out double hi, out double lo) {
    if (abs(x) <= 0.34657359lf) {
        precise double t = m_expm1_tail(x);
        m_fast_two_sum(x, t, hi, lo);
        return;
    }
    int n;
    precise double p;
    m_exp_parts(x, 0.0lf, n, p);
    // 2^n (1 + p) - 1 = (2^n - 1) + 2^n p; 2^n - 1 is exact for |n| <= 53.
    precise double a = m_pow2(n) - 1.0lf;
    precise double b = m_pow2(n) * p;
    m_two_sum(a, b, hi, lo);
}

double m_expm1(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    if (x > 40.0lf) return m_exp(x);             // e^x - 1 rounds to e^x
    if (x < -40.0lf) return -1.0lf;
    precise double hi, lo;
    m_expm1_dd(x, hi, lo);
    return hi + lo;
}

// ---------------------------------------------------------------------------------------
// Logarithms

// The result for x outside (0, inf), where the logarithms are not computed.
bool m_log_edge(double x, out double r) {
    r = x;
    if (isnan(x) || x < 0.0lf) r = 0.0lf / 0.0lf + x;
    else if (x == 0.0lf) r = -M_INF;
    return isnan(x) || x <= 0.0lf || isinf(x);
}

// log(1 + f) - f + f^2/2 = s (f^2/2 + R) with s = f / (2 + f), for |s| <= 0.1716:
// R = sum 2 s^2k / (2k + 1), k = 1..12.
double m_log_tail(double f, double hfsq) {
    precise double s = f / (2.0lf + f);
    precise double z = s * s;
    precise double p = 0.08lf;
    p = 0.08695652173913043lf + z * p;
    p = 0.09523809523809523lf + z * p;
    p = 0.10526315789473684lf + z * p;
    p = 0.11764705882352941lf + z * p;
    p = 0.13333333333333333lf + z * p;
    p = 0.15384615384615385lf + z * p;
    p = 0.18181818181818182lf + z * p;
    p = 0.2222222222222222lf + z * p;
    p = 0.2857142857142857lf + z * p;
    p = 0.4lf + z * p;
    p = 0.6666666666666666lf + z * p;
    precise double t = s * (hfsq + z * p);
    return t;
}

// x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), for finite x > 0.
double m_log_reduce(double x, out int e) {
    precise double m = m_frexp(x, e);
    if (m < 0.7071067811865476lf) {
        m *= 2.0lf;
        e -= 1;
    }
    precise double f = m - 1.0lf;                // exact
    return f;
}

// log(1 + f) = hi + lo, for 1 + f in [sqrt(1/2), sqrt(2)), to about 2^-65 relative.
void m_log1pf_dd(double f, out double hi, out double lo) {
    precise double fh, fl;
    m_two_prod(f, f, fh, fl);
    precise double hfsq = 0.5lf * fh;
    precise double t = m_log_tail(f, hfsq);
    // f - f^2/2 + t, the square's low part kept.
    precise double a, ae;
    m_two_sum(f, -hfsq, a, ae);
    m_fast_two_sum(a, ae + (t - 0.5lf * fl), hi, lo);
}

// log(x) = hi + lo for finite x > 0, to about 2^-68 relative: x = 2^e m, m = c (1 + r)
// with c = i/64 from the table and |r| < 0.012 exact in double-double, log(1 + r) =
// r - r^2/2 + r^3 P(r) with the first two terms in double-double.
void m_log_dd(double x, out double hi, out double lo) {
    int e;
    precise double m = m_log_reduce(x, e) + 1.0lf;
    int i = int(m * 64.0lf + 0.5lf) - 45;
    precise double p, pe;
    m_two_prod(m, m_log_invc(i), p, pe);
    precise double rh, rl;
    m_fast_two_sum(p - 1.0lf, pe, rh, rl);         // p - 1 is exact
    precise double q = -0.08333333333333333lf;
    q = 0.09090909090909091lf + rh * q;
    q = -0.1lf + rh * q;
    q = 0.1111111111111111lf + rh * q;
    q = -0.125lf + rh * q;
    q = 0.14285714285714285lf + rh * q;
    q = -0.16666666666666666lf + rh * q;
    q = 0.2lf + rh * q;
    q = -0.25lf + rh * q;
    q = 0.3333333333333333lf + rh * q;
    precise double sh, sl;
    m_two_prod(rh, rh, sh, sl);
    precise double a, ae;
    m_two_sum(rh, -0.5lf * sh, a, ae);
    precise double small = ae + rl - 0.5lf * sl - rh * rl + (rh * sh) * q;
    // e ln2 + log c + a + small
    precise double de = double(e);
    precise double eh, el;
    m_two_prod(de, LN2, eh, el);
    precise double s1, t1, s2, t2;
    m_two_sum(eh, m_log_c_hi(i), s1, t1);
    m_two_sum(s1, a, s2, t2);
    m_fast_two_sum(s2, t2 + (t1 + (small + el + de * LN2_TAIL + m_log_c_lo(i))), hi, lo);
}

double m_log(double x) {
    precise double r;
    if (m_log_edge(x, r)) return r;
    int e;
    precise double f = m_log_reduce(x, e);
    precise double hfsq = 0.5lf * f * f;
    precise double t = m_log_tail(f, hfsq);
    precise double de = double(e);
    // e ln2 + f - (hfsq - t), the small terms first.
    return de * LN2_HI - ((hfsq - (t + de * LN2_LO)) - f);
}

// (hi + lo) * (c + clo), rounded once more.
double m_dd_mul_round(double hi, double lo, double c, double clo) {
    precise double p, pe;
    m_two_prod(hi, c, p, pe);
    precise double r = p + (pe + lo * c + hi * clo);
    return r;
}

double m_log2(double x) {
    precise double r;
    if (m_log_edge(x, r)) return r;
    int e;
    precise double f = m_log_reduce(x, e);
    precise double lh, ll;
    m_log1pf_dd(f, lh, ll);
    precise double p, pe;
    m_two_prod(lh, INV_LN2, p, pe);
    precise double de = double(e);
    precise double s, t;
    m_fast_two_sum(de, p, s, t);                 // |p| < 1/2 <= |e| unless e is 0
    precise double res = s + (t + (pe + ll * INV_LN2 + lh * INV_LN2_LO));
    return res;
}

double m_log10(double x) {
    precise double r;
    if (m_log_edge(x, r)) return r;
    precise double hi, lo;
    m_log_dd(x, hi, lo);
    return m_dd_mul_round(hi, lo, INV_LN10, INV_LN10_LO);
}

double m_log1p(double x) {
    if (isnan(x) || x < -1.0lf) return 0.0lf / 0.0lf + x;
    if (x == -1.0lf) return -M_INF;
    if (isinf(x)) return x;
    if (abs(x) < 5.551115123125783e-17lf) return x;   // 2^-54: log1p(x) rounds to x
    precise double u = 1.0lf + x;
    if (u >= 0.7071067811865476lf && u < 1.4142135623730951lf) {
        // f = x itself, exactly.
        precise double hfsq = 0.5lf * x * x;
        precise double t = m_log_tail(x, hfsq);
        return x - (hfsq - t);
    }
    // log(u) is off by the rounding of u = 1 + x; add it back to first order.
    precise double c = u > 9007199254740992.0lf ? 0.0lf : (x - (u - 1.0lf)) / u;
    precise double hi, lo;
    m_log_dd(u, hi, lo);
    precise double res = hi + (lo + c);
    return res;
}

// ---------------------------------------------------------------------------------------
// Trigonometric functions

// |x| = n pi/2 + rh + rl with |rh + rl| <= pi/4 (about), for |x| < 2^20 pi/2.
int m_reduce_small(double x, out double rh, out double rl) {
    precise double k = floor(x * TWO_OVER_PI + 0.5lf);
    precise double a = x - k * PIO2_1;           // exact
    precise double s1, e1, s2, e2;
    m_two_sum(a, -(k * PIO2_2), s1, e1);         // k * PIO2_2 and k * PIO2_3 are exact
    m_two_sum(s1, -(k * PIO2_3), s2, e2);
    m_fast_two_sum(s2, (e1 + e2) - k * PIO2_4, rh, rl);
    return int(k);
}

// Adds a * w (both below 2^32) to a column of a product in 32-bit words: the low half to
// lo, the high half (the next column's) to hi.
void m_mac(uint64_t a, uint64_t w, inout uint64_t lo, inout uint64_t hi) {
    uint64_t p = a * w;
    lo += p & 0xfffffffful;
    hi += p >> 32;
}

// The same for finite |x| >= 2^20 pi/2: x times the bits of 2/pi from the word that
// matters for x's exponent on (Payne-Hanek), in 32-bit words; the quadrant is bits
// 222-223 of the product, the reduced argument the 126 bits below: columns 3 to 6 of the
// product and the carry out of column 2, whose low halves and lower columns are left out
// (below 2^-124 of the fraction in all, where the nearest double comes 2^-62 near a
// multiple of pi/2).
int m_reduce_large(double x, out double rh, out double rl) {
    uvec2 b = unpackDouble2x32(abs(x));
    int e = int(b.y >> 20) - 1075;               // |x| = m 2^e, m < 2^53
    uint64_t m = (uint64_t((b.y & 0xfffffu) | 0x100000u) << 32) | uint64_t(b.x);
    int first = 2 + ((e - 2) >> 5);              // the table word where the product starts
    int d = e - 2 - 32 * (first - 2);            // 0..31: m << d has its point at bit 222
    uint64_t ms = m << d;
    uint64_t m0 = ms & 0xfffffffful, m1 = ms >> 32, m2 = d == 0 ? 0ul : m >> (64 - d);
    // The 7 table words from `first`, least significant first.
    uint64_t w0 = m_two_over_pi(first + 6), w1 = m_two_over_pi(first + 5);
    uint64_t w2 = m_two_over_pi(first + 4), w3 = m_two_over_pi(first + 3);
    uint64_t w4 = m_two_over_pi(first + 2), w5 = m_two_over_pi(first + 1);
    uint64_t w6 = m_two_over_pi(first);
    uint64_t lo = 0ul, carry = 0ul;
    m_mac(m0, w2, lo, carry);
    m_mac(m1, w1, lo, carry);
    m_mac(m2, w0, lo, carry);
    lo = carry;
    carry = 0ul;
    m_mac(m0, w3, lo, carry);
    m_mac(m1, w2, lo, carry);
    m_mac(m2, w1, lo, carry);
    uint p3 = uint(lo);
    lo = (lo >> 32) + carry;
    carry = 0ul;
    m_mac(m0, w4, lo, carry);
    m_mac(m1, w3, lo, carry);
    m_mac(m2, w2, lo, carry);
    uint p4 = uint(lo);
    lo = (lo >> 32) + carry;
    carry = 0ul;
    m_mac(m0, w5, lo, carry);
    m_mac(m1, w4, lo, carry);
    m_mac(m2, w3, lo, carry);
    uint p5 = uint(lo);
    lo = (lo >> 32) + carry;
    carry = 0ul;
    m_mac(m0, w6, lo, carry);
    m_mac(m1, w5, lo, carry);
    m_mac(m2, w4, lo, carry);
    uint p6 = uint(lo);
    int q = int(p6 >> 30);
    // The fraction (bits 0..221 of the product), from its top word down.
    uint f0 = p6 & 0x3fffffffu, f1 = p5, f2 = p4, f3 = p3;
    bool negative = (f0 & 0x20000000u) != 0u;
    if (negative) {
        // Past one half: take 1 - fraction, exactly, and the next quadrant.
        q += 1;
        f3 = ~f3 + 1u;
        f2 = ~f2 + (f3 == 0u ? 1u : 0u);
        f1 = ~f1 + ((f3 | f2) == 0u ? 1u : 0u);
        f0 = (~f0 + ((f3 | f2 | f1) == 0u ? 1u : 0u)) & 0x3fffffffu;
    }
    precise double d0 = double(f0) * 9.313225746154785e-10lf;        // 2^-30
    precise double d1 = double(f1) * 2.168404344971009e-19lf;        // 2^-62
    precise double d2 = double(f2) * 5.048709793414476e-29lf;        // 2^-94
    precise double d3 = double(f3) * 1.1754943508222875e-38lf;       // 2^-126
    precise double h, l, fh, fl;
    m_two_sum(d0, d1, h, l);
    m_fast_two_sum(h, l + (d2 + d3), fh, fl);
    // times pi/2
    precise double ph, pe;
    m_two_prod(fh, PIO2_HI, ph, pe);
    m_fast_two_sum(ph, pe + (fh * PIO2_LO + fl * PIO2_HI), rh, rl);
    if (negative) {
        rh = -rh;
        rl = -rl;
    }
    return q & 3;
}

// x = n pi/2 + rh + rl; returns n mod 4. x is finite.
int m_reduce_pio2(double x, out double rh, out double rl) {
    bool small = abs(x) < 1647099.0lf;
    int q = m_reduce_small(small ? x : 0.0lf, rh, rl) & 3;
    // A loop run once where the argument is large, not a branch: lavapipe runs both sides
    // of a branch for every argument (under a mask) but skips a loop that no argument of
    // the SIMD group enters, so small arguments do not pay for this.
    for (int once = small ? 1 : 0; once < 1; once++) {
        q = m_reduce_large(x, rh, rl);
        if (x < 0.0lf) {
            rh = -rh;
            rl = -rl;
            q = (4 - q) & 3;
        }
    }
    return q;
}

// sin(rh + rl) = hi + lo for |rh| <= pi/4 (about): sin r = r + r^3 P(r^2).
void m_sin_kernel(double rh, double rl, out double hi, out double lo) {
    precise double z = rh * rh;
    precise double p = 2.8114572543455206e-15lf;
    p = -7.647163731819816e-13lf + z * p;
    p = 1.6059043836821613e-10lf + z * p;
    p = -2.505210838544172e-08lf + z * p;
    p = 2.7557319223985893e-06lf + z * p;
    p = -0.0001984126984126984lf + z * p;
    p = 0.008333333333333333lf + z * p;
    p = -0.16666666666666666lf + z * p;
    hi = rh;
    lo = (rh * z) * p + rl * (1.0lf - 0.5lf * z);
}

// cos(rh + rl) = hi + lo for |rh| <= pi/4 (about): 1 - r^2/2 + r^4 Q(r^2).
void m_cos_kernel(double rh, double rl, out double hi, out double lo) {
    precise double z = rh * rh;
    precise double q = -1.5619206968586225e-16lf;
    q = 4.779477332387385e-14lf + z * q;
    q = -1.1470745597729725e-11lf + z * q;
    q = 2.08767569878681e-09lf + z * q;
    q = -2.755731922398589e-07lf + z * q;
    q = 2.48015873015873e-05lf + z * q;
    q = -0.001388888888888889lf + z * q;
    q = 0.041666666666666664lf + z * q;
    precise double hz = 0.5lf * z;
    precise double w = 1.0lf - hz;
    hi = w;
    lo = ((1.0lf - w) - hz) + ((z * z) * q - rh * rl);
}

// sin x (sine) or cos x, for finite x.
double m_sin_or_cos(double x, bool sine) {
    precise double rh, rl;
    int q = m_reduce_pio2(x, rh, rl) + (sine ? 0 : 1);
    precise double hi, lo;
    if ((q & 1) == 0) m_sin_kernel(rh, rl, hi, lo);
    else m_cos_kernel(rh, rl, hi, lo);
    precise double r = hi + lo;
    return (q & 2) == 0 ? r : -r;
}

double m_sin(double x) {
    if (isnan(x) || isinf(x)) return 0.0lf / 0.0lf + x;
    if (x == 0.0lf) return x;
    return m_sin_or_cos(x, true);
}

double m_cos(double x) {
    if (isnan(x) || isinf(x)) return 0.0lf / 0.0lf + x;
    return m_sin_or_cos(x, false);
}

// (ah + al) / (bh + bl) with the first quotient's rounding corrected.
double m_dd_div(double ah, double al, double bh, double bl) {
    precise double q = ah / bh;
    precise double p, pe;
    m_two_prod(q, bh, p, pe);
    precise double r = q + (((ah - p) - pe) + al - q * bl) / (bh + bl);
    return r;
}

double m_tan(double x) {
    if (isnan(x) || isinf(x)) return 0.0lf / 0.0lf + x;
    if (x == 0.0lf) return x;
    precise double rh, rl;
    int q = m_reduce_pio2(x, rh, rl);
    precise double sh, sl, ch, cl;
    m_sin_kernel(rh, rl, sh, sl);
    m_cos_kernel(rh, rl, ch, cl);
    // Odd quadrants: tan = -cos r / sin r.
    return (q & 1) == 0 ? m_dd_div(sh, sl, ch, cl) : -m_dd_div(ch, cl, sh, sl);
}

// ---------------------------------------------------------------------------------------
// Inverse trigonometric functions

// atan(t) for |t| <= tan(pi/12): t + t^3 P(t^2), P from the series sum (-t^2)^k / (2k + 1).
double m_atan_series(double t) {
    precise double z = t * t;
    precise double p = 0.030303030303030304lf;
    p = -0.03225806451612903lf + z * p;
    p = 0.034482758620689655lf + z * p;
    p = -0.037037037037037035lf + z * p;
    p = 0.04lf + z * p;
    p = -0.043478260869565216lf + z * p;
    p = 0.047619047619047616lf + z * p;
    p = -0.05263157894736842lf + z * p;
    p = 0.058823529411764705lf + z * p;
    p = -0.06666666666666667lf + z * p;
    p = 0.07692307692307693lf + z * p;
    p = -0.09090909090909091lf + z * p;
    p = 0.1111111111111111lf + z * p;
    p = -0.14285714285714285lf + z * p;
    p = 0.2lf + z * p;
    p = -0.3333333333333333lf + z * p;
    precise double r = t + (t * z) * p;
    return r;
}

// atan(th + tl) for th >= 0 (tl a correction well below th's ulp, or 0); th may be inf.
double m_atan_pos(double th, double tl) {
    precise double a = th, al = tl;
    bool inv = a > 1.0lf;
    if (inv) {
        // atan(a) = pi/2 - atan(1/a), 1/a with its rounding and a's low part carried.
        precise double ia = 1.0lf / a;
        precise double p, pe;
        m_two_prod(ia, a, p, pe);
        al = a > 1e290lf ? 0.0lf : ia * (((1.0lf - p) - pe) - ia * al);
        a = ia;
    }
    precise double r;
    if (a > TAN_PI12) {
        // atan(a) = pi/6 + atan(u), u = (a sqrt3 - 1) / (sqrt3 + a), the numerator exact.
        precise double nh, nl;
        m_two_prod(a, SQRT3, nh, nl);
        nl += a * SQRT3_LO + al * SQRT3;
        precise double num, numl;
        m_two_sum(nh, -1.0lf, num, numl);
        precise double dh, dl;
        m_fast_two_sum(SQRT3, a, dh, dl);
        precise double u = m_dd_div(num, numl + nl, dh, dl + (SQRT3_LO + al));
        r = PIO6_HI + (m_atan_series(u) + PIO6_LO);
    } else {
        r = m_atan_series(a) + al / (1.0lf + a * a);
    }
    if (inv) r = PIO2_HI + (PIO2_LO - r);
    return r;
}

double m_atan(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    precise double r = m_atan_pos(abs(x), 0.0lf);
    return x < 0.0lf ? -r : r;
}

// C atan2 (y first), with its signed-zero and infinity cases.
double m_atan2(double y, double x) {
    if (isnan(x) || isnan(y)) return x + y;
    bool xneg = m_signbit(x);
    if (isinf(x) && isinf(y)) return m_copysign(xneg ? 3.0lf * PIO2_HI * 0.5lf : PIO2_HI * 0.5lf, y);
    if (y == 0.0lf) return m_copysign(xneg ? PI_HI : 0.0lf, y);
    if (isinf(x)) return m_copysign(xneg ? PI_HI : 0.0lf, y);
    if (isinf(y) || x == 0.0lf) return m_copysign(PIO2_HI, y);
    // Scale both to the larger one's binade (atan2 does not change): the quotient and
    // its rounding error are then representable.
    int ex, ey;
    m_frexp(x, ex);
    m_frexp(y, ey);
    int s = -max(ex, ey);
    precise double ax = abs(m_ldexp(x, s)), ay = abs(m_ldexp(y, s));
    precise double q = ay / ax;
    precise double ql = 0.0lf;
    if (q > 1e-290lf && q < 1e290lf) {
        precise double p, pe;
        m_two_prod(q, ax, p, pe);
        ql = ((ay - p) - pe) / ax;
    }
    precise double r;
    if (q < 1e-300lf) {
        // atan(q) = q; then the quotient of the unscaled values, rounded once.
        r = xneg ? PI_HI : abs(y) / abs(x);
    } else {
        r = m_atan_pos(q, ql);
        if (xneg) r = (PI_HI - r) + PI_LO;
    }
    return y < 0.0lf ? -r : r;
}

// sqrt(1 - x^2) = hi + lo for |x| <= 1.
void m_sqrt_one_minus_sq(double x, out double hi, out double lo) {
    precise double xh, xl;
    m_two_prod(x, x, xh, xl);
    precise double th, tl;
    m_two_sum(1.0lf, -xh, th, tl);
    tl -= xl;
    precise double s = sqrt(th);
    precise double p, pe;
    m_two_prod(s, s, p, pe);
    hi = s;
    lo = s == 0.0lf ? 0.0lf : (((th - p) - pe) + tl) / (2.0lf * s);
}

double m_asin(double x) {
    if (isnan(x) || abs(x) > 1.0lf) return 0.0lf / 0.0lf + x;
    if (abs(x) < 1e-9lf) return x;              // x^3/6 is below half an ulp of x
    precise double a = abs(x);
    precise double r;
    if (a == 1.0lf) {
        r = PIO2_HI;
    } else {
        // asin a = atan(a / sqrt(1 - a^2)), the quotient to double-double.
        precise double sh, sl;
        m_sqrt_one_minus_sq(a, sh, sl);
        precise double q = a / sh;
        precise double p, pe;
        m_two_prod(q, sh, p, pe);
        precise double ql = (((a - p) - pe) - q * sl) / sh;
        r = m_atan_pos(q, ql);
    }
    return x < 0.0lf ? -r : r;
}

double m_acos(double x) {
    if (isnan(x) || abs(x) > 1.0lf) return 0.0lf / 0.0lf + x;
    if (x == 1.0lf) return 0.0lf;
    if (x == -1.0lf) return PI_HI;
    // acos x = atan(sqrt(1 - x^2) / x), or pi minus that for x < 0.
    precise double a = abs(x);
    precise double sh, sl;
    m_sqrt_one_minus_sq(a, sh, sl);
    precise double r;
    if (a == 0.0lf) {
        r = PIO2_HI;
    } else {
        precise double q = sh / a;
        precise double ql = 0.0lf;
        if (q < 1e290lf) {
            precise double p, pe;
            m_two_prod(q, a, p, pe);
            ql = (((sh - p) - pe) + sl) / a;
        }
        r = m_atan_pos(q, ql);
    }
    if (x < 0.0lf) r = (PI_HI - r) + PI_LO;
    return r;
}

// ---------------------------------------------------------------------------------------
// Hyperbolic functions

// (e^a + sign e^-a) / 2 for 0 <= a, sign 1 or -1 (cosh, sinh).
double m_exp_half_sum(double a, double sign) {
    if (a > 710.5lf) return M_INF;
    int n;
    precise double p;
    m_exp_parts(a, 0.0lf, n, p);
    if (n > 60) return m_ldexp(1.0lf + p, n - 1);  // e^-a is below an ulp
    precise double hi = m_pow2(n - 1);
    precise double lo = hi * p;
    precise double inv = m_pow2(-n - 1) / (1.0lf + p);
    precise double r = hi + (lo + sign * inv);
    return r;
}

double m_sinh(double x) {
    if (isnan(x) || x == 0.0lf || isinf(x)) return x;
    precise double a = abs(x), r;
    if (a < 1.0lf) {
        // a + a^3 P(a^2), P from the series sum a^2k / (2k + 1)!.
        precise double z = a * a;
        precise double p = 8.22063524662433e-18lf;
        p = 2.8114572543455206e-15lf + z * p;
        p = 7.647163731819816e-13lf + z * p;
        p = 1.6059043836821613e-10lf + z * p;
        p = 2.505210838544172e-08lf + z * p;
        p = 2.7557319223985893e-06lf + z * p;
        p = 0.0001984126984126984lf + z * p;
        p = 0.008333333333333333lf + z * p;
        p = 0.16666666666666666lf + z * p;
        r = a + (a * z) * p;
    } else {
        r = m_exp_half_sum(a, -1.0lf);
    }
    return x < 0.0lf ? -r : r;
}

double m_cosh(double x) {
    if (isnan(x)) return x;
    return m_exp_half_sum(abs(x), 1.0lf);
}

double m_tanh(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    precise double a = abs(x);
    precise double r = 1.0lf;
    if (a < 1e-9lf) {
        r = a;                                    // a^3/3 is below half an ulp of a
    } else if (a < 22.0lf) {
        // tanh a = e / (e + 2), e = e^2a - 1 in double-double.
        precise double eh, el;
        m_expm1_dd(2.0lf * a, eh, el);
        precise double dh, dl;
        m_two_sum(eh, 2.0lf, dh, dl);
        r = m_dd_div(eh, el, dh, dl + el);
    }
    return x < 0.0lf ? -r : r;
}

double m_asinh(double x) {
    if (isnan(x) || isinf(x) || x == 0.0lf) return x;
    precise double a = abs(x), r;
    if (a < 1e-9lf) {
        r = a;
    } else if (a > 268435456.0lf) {
        // log(2a) = log(a) + ln 2
        precise double hi, lo;
        m_log_dd(a, hi, lo);
        r = hi + (LN2 + lo);
    } else if (a > 2.0lf) {
        r = m_log(2.0lf * a + 1.0lf / (sqrt(a * a + 1.0lf) + a));
    } else {
        precise double z = a * a;
        r = m_log1p(a + z / (1.0lf + sqrt(1.0lf + z)));
    }
    return x < 0.0lf ? -r : r;
}

double m_acosh(double x) {
    if (isnan(x) || x < 1.0lf) return 0.0lf / 0.0lf + x;
    if (isinf(x)) return x;
    if (x > 268435456.0lf) {
        precise double hi, lo;
        m_log_dd(x, hi, lo);
        return hi + (LN2 + lo);
    }
    if (x > 2.0lf) return m_log(2.0lf * x - 1.0lf / (x + sqrt(x * x - 1.0lf)));
    precise double t = x - 1.0lf;                 // exact
    return m_log1p(t + sqrt(2.0lf * t + t * t));
}

double m_atanh(double x) {
    if (isnan(x) || abs(x) > 1.0lf) return 0.0lf / 0.0lf + x;
    if (x == 0.0lf) return x;
    precise double a = abs(x), r;
    if (a == 1.0lf) {
        r = M_INF;
    } else if (a < 1e-9lf) {
        r = a;
    } else if (a < 0.5lf) {
        precise double t = a + a;
        r = 0.5lf * m_log1p(t + t * a / (1.0lf - a));
    } else {
        r = 0.5lf * m_log1p((a + a) / (1.0lf - a));
    }
    return x < 0.0lf ? -r : r;
}

// ---------------------------------------------------------------------------------------
// Powers and roots

double m_cbrt(double x) {
    if (isnan(x) || isinf(x) || x == 0.0lf) return x;
    precise double a = abs(x);
    int e;
    precise double m = m_frexp(a, e);
    // a = m 2^e with e a multiple of 3, so the scaling is exact.
    int r3 = e - 3 * (e / 3);
    if (r3 < 0) r3 += 3;
    m = m * m_pow2(r3);
    e -= r3;
    precise double r = m_exp(m_log(m) / 3.0lf);
    // One Newton step with r^3 - m kept exact to first order.
    precise double r2, r2l, r3h, r3l;
    m_two_prod(r, r, r2, r2l);
    m_two_prod(r2, r, r3h, r3l);
    precise double d = ((r3h - m) + r3l) + r2l * r;
    r = r - d / (3.0lf * r2);
    r = m_ldexp(r, e / 3);
    return x < 0.0lf ? -r : r;
}

double m_hypot(double x, double y) {
    if (isinf(x) || isinf(y)) return M_INF;
    if (isnan(x) || isnan(y)) return x + y;
    precise double a = max(abs(x), abs(y)), b = min(abs(x), abs(y));
    if (b == 0.0lf) return a;
    // Scale to a's binade; sqrt(a^2 + b^2) in double-double there.
    int e;
    m_frexp(a, e);
    precise double sa = m_ldexp(a, -e), sb = m_ldexp(b, -e);
    precise double ah, al, bh, bl, sh, sl;
    m_two_prod(sa, sa, ah, al);
    m_two_prod(sb, sb, bh, bl);
    m_two_sum(ah, bh, sh, sl);
    sl += al + bl;
    precise double s = sqrt(sh);
    precise double p, pe;
    m_two_prod(s, s, p, pe);
    precise double r = s + (((sh - p) - pe) + sl) / (2.0lf * s);
    return m_ldexp(r, e);
}

// erf: below 1, x + x Q(x^2) from the Taylor series 2/sqrt(pi) sum (-1)^k x^(2k+1) /
// (k! (2k + 1)); above, 1 - erfc with erfc's continued fraction e^(-x^2) / (sqrt(pi)
// (x + (1/2) / (x + (2/2) / (x + ...)))), e^(-x^2) using the exact low part of x^2.
double m_erf(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    precise double a = abs(x);
    if (a > 6.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
    precise double r;
    if (a < 1.0lf) {
        precise double z = a * a;
        precise double q = -2.3784598852774293e-19lf;
        q = 4.763348040515068e-18lf + z * q;
        q = -9.063970842808673e-17lf + z * q;
        q = 1.6342614095367152e-15lf + z * q;
        q = -2.7835162072109215e-14lf + z * q;
        q = 4.4632242632864775e-13lf + z * q;
        q = -6.7113668551641105e-12lf + z * q;
        q = 9.422759064650411e-11lf + z * q;
        q = -1.2290555301717928e-09lf + z * q;
        q = 1.4807192815879218e-08lf + z * q;
        q = -1.6365844691234924e-07lf + z * q;
        q = 1.6462114365889248e-06lf + z * q;
        q = -1.492565035840625e-05lf + z * q;
        q = 0.00012055332981789664lf + z * q;
        q = -0.0008548327023450853lf + z * q;
        q = 0.005223977625442188lf + z * q;
        q = -0.026866170645131252lf + z * q;
        q = 0.11283791670955126lf + z * q;
        q = -0.37612638903183754lf + z * q;
        q = 0.1283791670955126lf + z * q;
        r = a + a * q;
    } else {
        precise double h, l;
        m_two_prod(a, a, h, l);
        int n;
        precise double p;
        m_exp_parts(-h, -l, n, p);
        precise double g = m_ldexp(1.0lf + p, n);
        int terms = a < 1.5lf ? 200 : (a < 2.0lf ? 100 : 60);
        precise double t = a;
        for (int k = terms; k >= 1; k--) t = a + (double(k) * 0.5lf) / t;
        r = 1.0lf - 0.5641895835477563lf * g / t;
    }
    return x < 0.0lf ? -r : r;
}

// C pow: exact special cases, e^(y log|x|) with y log|x| in double-double otherwise.
double m_pow(double x, double y) {
    if (y == 0.0lf || x == 1.0lf) return 1.0lf;
    if (isnan(x) || isnan(y)) return x + y;
    precise double ax = abs(x);
    bool yint = trunc(y) == y;
    bool yodd = yint && abs(y) < 9007199254740992.0lf && fract(y * 0.5lf) != 0.0lf;
    if (isinf(y)) return ax == 1.0lf ? 1.0lf : (((ax > 1.0lf) == (y > 0.0lf)) ? M_INF : 0.0lf);
    if (isinf(x) || ax == 0.0lf) {
        precise double m = (isinf(x) == (y > 0.0lf)) ? M_INF : 0.0lf;
        return m_signbit(x) && yodd ? -m : m;
    }
    if (x < 0.0lf && !yint) return 0.0lf / 0.0lf;
    if (ax == 1.0lf) return yodd ? x : 1.0lf;    // -1 to an integer power (y may be huge)
    precise double lh, ll;
    m_log_dd(ax, lh, ll);
    precise double ph = y * lh;
    precise double r;
    if (abs(ph) > 1100.0lf) {
        r = ph > 0.0lf ? M_INF : 0.0lf;
    } else {
        precise double pe;
        m_two_prod(y, lh, ph, pe);
        precise double pl = pe + y * ll;
        precise double s, sl;
        m_fast_two_sum(ph, pl, s, sl);
        if (s > 709.782712893384lf) {
            r = M_INF;
        } else if (s < -746.0lf) {
            r = 0.0lf;
        } else {
            int n;
            precise double p;
            m_exp_parts(s, sl, n, p);
            r = m_ldexp(1.0lf + p, n);
        }
    }
    return x < 0.0lf && yodd ? -r : r;
}
