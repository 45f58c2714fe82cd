// Elementary functions in double precision for generated kernels. GLSL has no 64-bit
// transcendental builtins, and its 32-bit ones are loose (lavapipe's log is off by
// hundreds of ulps near 1), so f64 kernels call these and f32 kernels call them and round.
//
// Each function reduces its argument exactly (or with a low-order correction) to a small
// range and sums a truncated Taylor series there, written as nested Horner steps; the
// truncation error is below 2^-60 relative on the reduced ranges. Measured accuracy is
// stated in tests/common/mod.rs. Sine and cosine reduce by pi/2 in three parts, which is
// exact for |x| < 2^20; beyond that their error grows with |x|. Exact products use
// Dekker's splitting rather than `fma`, which drivers may compute with two roundings.
// Locals are `precise`: without it a compiler may reassociate float arithmetic (Mesa's
// NIR does), which breaks exact sums and reductions.

const double M_INF = 1.0lf / 0.0lf;
const double LN2_HI = 0.6931471806019545lf;      // ln 2 to 32 bits: n * LN2_HI is exact
const double LN2_LO = -4.2009150726810846e-11lf;
const double INV_LN2 = 1.4426950408889634lf;
const double INV_LN10 = 0.4342944819032518lf;
const double PIO2_1 = 1.5707963267341256lf;      // pi/2 in 33 + 33 + 53 bit parts
const double PIO2_2 = 6.077100506303966e-11lf;
const double PIO2_3 = 2.0222662487959506e-21lf;
const double TWO_OVER_PI = 0.6366197723675814lf;
const double PIO2_HI = 1.5707963267948966lf;
const double PIO2_LO = 6.123233995736766e-17lf;
const double PIO6_HI = 0.5235987755982989lf;
const double PIO6_LO = -5.360408832255455e-17lf;
const double PI_HI = 3.141592653589793lf;
const double PI_LO = 1.2246467991473532e-16lf;
const double SQRT3 = 1.7320508075688772lf;
const double TAN_PI12 = 0.2679491924311227lf;

bool m_signbit(double x) {
    return unpackDouble2x32(x).y >= 0x80000000u;
}

double m_copysign(double a, double s) {
    uvec2 b = unpackDouble2x32(a);
    b.y = (b.y & 0x7fffffffu) | (unpackDouble2x32(s).y & 0x80000000u);
    return packDouble2x32(b);
}

// a * b = p + e exactly (for |a|, |b| below 2^996).
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

// x * 2^n without overflowing an intermediate power of two.
double m_scale(double x, int n) {
    return ldexp(ldexp(x, n / 2), n - n / 2);
}

// e^r - 1 for |r| <= ln2/2: sum r^k / k!, k = 1..17.
double m_expm1_small(double r) {
    precise double p = 1.0lf;
    for (int k = 17; k >= 2; k--) p = 1.0lf + r * p / double(k);
    return r * p;
}

// x = n ln2 + r with |r| <= ln2/2 (r rounded once).
double m_reduce_ln2(double x, out int n) {
    precise double k = floor(x * INV_LN2 + 0.5lf);
    n = int(k);
    precise double r = (x - k * LN2_HI) - k * LN2_LO;
    return r;
}

double m_exp(double x) {
    if (isnan(x)) return x;
    if (x > 709.782712893384lf) return M_INF;
    if (x < -745.2lf) return 0.0lf;
    int n;
    precise double r = m_reduce_ln2(x, n);
    return m_scale(1.0lf + m_expm1_small(r), n);
}

double m_exp2(double x) {
    if (isnan(x)) return x;
    if (x >= 1024.0lf) return M_INF;
    if (x < -1080.0lf) return 0.0lf;
    precise double k = floor(x + 0.5lf);
    precise double f = x - k;
    return m_scale(1.0lf + m_expm1_small(f * LN2_HI + f * LN2_LO), int(k));
}

double m_expm1(double x) {
    if (isnan(x)) return x;
    if (abs(x) <= 0.34657359lf) return m_expm1_small(x);
    if (x > 709.782712893384lf) return M_INF;
    if (x < -40.0lf) return -1.0lf;
    int n;
    precise double r = m_reduce_ln2(x, n);
    // 2^n (e^r - 1) + (2^n - 1); both terms exact to rounding for |n| < 53.
    return ldexp(m_expm1_small(r), n) + (ldexp(1.0lf, n) - 1.0lf);
}

// 2 atanh(s) = log((1 + s) / (1 - s)) for |s| <= 0.18: 2s sum s^2k / (2k + 1).
double m_log_series(double s) {
    precise double z = s * s;
    precise double p = 1.0lf / 31.0lf;
    for (int k = 14; k >= 0; k--) p = 1.0lf / double(2 * k + 1) + z * p;
    return 2.0lf * s * p;
}

// The result for x outside (0, inf), where the logarithms are not computed.
bool m_log_edge(double x, out double r) {
    r = x;
    if (isnan(x) || x < 0.0lf) r = 0.0lf / 0.0lf + x;
    else if (x == 0.0lf) r = -M_INF;
    return isnan(x) || x <= 0.0lf || isinf(x);
}

// log(m) where x = 2^e m with m in [sqrt(1/2), sqrt(2)).
double m_log_reduced(double x, out int e) {
    precise double m = frexp(x, e);
    if (m < 0.7071067811865476lf) {
        m *= 2.0lf;
        e -= 1;
    }
    precise double f = m - 1.0lf;
    return m_log_series(f / (2.0lf + f));
}

double m_log(double x) {
    precise double r;
    if (m_log_edge(x, r)) return r;
    int e;
    precise double l = m_log_reduced(x, e);
    return double(e) * LN2_HI + (double(e) * LN2_LO + l);
}

double m_log2(double x) {
    precise double r;
    if (m_log_edge(x, r)) return r;
    int e;
    precise double l = m_log_reduced(x, e);
    return double(e) + l * INV_LN2;
}

double m_log10(double x) {
    return m_log(x) * INV_LN10;
}

double m_log1p(double x) {
    if (isnan(x) || x < -1.0lf) return 0.0lf / 0.0lf + x;
    if (x == -1.0lf) return -M_INF;
    if (isinf(x)) return x;
    if (abs(x) < 0.25lf) return m_log_series(x / (2.0lf + x));
    // log(u) is off by the rounding of u = 1 + x; add it back to first order.
    precise double u = 1.0lf + x;
    return m_log(u) + (x - (u - 1.0lf)) / u;
}

// Sine and cosine of x; n is the quadrant of x (x = n pi/2 + r).
void m_sincos(double x, out double s, out double c) {
    if (isnan(x) || isinf(x)) {
        s = 0.0lf / 0.0lf;
        c = s;
        return;
    }
    precise double k = floor(x * TWO_OVER_PI + 0.5lf);
    precise double r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    precise double z = r * r;
    precise double ps = 1.0lf, pc = 1.0lf;
    for (int j = 11; j >= 1; j--) {
        ps = 1.0lf - z * ps / double((2 * j) * (2 * j + 1));
        pc = 1.0lf - z * pc / double((2 * j - 1) * (2 * j));
    }
    precise double sr = r * ps, cr = pc;
    int q = int(k - 4.0lf * floor(k * 0.25lf));
    s = q == 0 ? sr : (q == 1 ? cr : (q == 2 ? -sr : -cr));
    c = q == 0 ? cr : (q == 1 ? -sr : (q == 2 ? -cr : sr));
}

double m_sin(double x) {
    precise double s, c;
    m_sincos(x, s, c);
    return x == 0.0lf ? x : s;
}

double m_cos(double x) {
    precise double s, c;
    m_sincos(x, s, c);
    return c;
}

double m_tan(double x) {
    if (x == 0.0lf) return x;
    precise double s, c;
    m_sincos(x, s, c);
    return s / c;
}

// atan(t) for |t| <= tan(pi/12): t sum (-t^2)^k / (2k + 1).
double m_atan_series(double t) {
    precise double z = t * t;
    precise double p = 0.0lf;
    for (int k = 17; k >= 0; k--) p = ((k & 1) == 0 ? 1.0lf : -1.0lf) / double(2 * k + 1) + z * p;
    return t * p;
}

double m_atan(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    precise double a = abs(x);
    bool inv = a > 1.0lf;
    if (inv) a = 1.0lf / a;
    precise double r;
    if (a > TAN_PI12) {
        // atan(a) = pi/6 + atan((a sqrt3 - 1) / (sqrt3 + a))
        r = PIO6_HI + (m_atan_series((a * SQRT3 - 1.0lf) / (SQRT3 + a)) + PIO6_LO);
    } else {
        r = m_atan_series(a);
    }
    if (inv) r = PIO2_HI - (r - PIO2_LO);
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
    precise double r = m_atan(y / x);
    if (x < 0.0lf) r = y < 0.0lf ? (r - PI_HI) - PI_LO : (r + PI_HI) + PI_LO;
    return r;
}

double m_asin(double x) {
    if (isnan(x) || abs(x) > 1.0lf) return 0.0lf / 0.0lf + x;
    if (x == 0.0lf) return x;
    return m_atan2(x, sqrt((1.0lf - x) * (1.0lf + x)));
}

double m_acos(double x) {
    if (isnan(x) || abs(x) > 1.0lf) return 0.0lf / 0.0lf + x;
    return m_atan2(sqrt((1.0lf - x) * (1.0lf + x)), x);
}

double m_sinh(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    precise double a = abs(x), r;
    if (a < 1.0lf) {
        precise double e = m_expm1(a);
        r = 0.5lf * (e + e / (e + 1.0lf));
    } else if (a < 22.0lf) {
        precise double e = m_exp(a);
        r = 0.5lf * (e - 1.0lf / e);
    } else {
        precise double h = m_exp(0.5lf * a);
        r = (0.5lf * h) * h;
    }
    return x < 0.0lf ? -r : r;
}

double m_cosh(double x) {
    precise double a = abs(x);
    if (isnan(x)) return x;
    if (a < 22.0lf) {
        precise double e = m_exp(a);
        return 0.5lf * (e + 1.0lf / e);
    }
    precise double h = m_exp(0.5lf * a);
    return (0.5lf * h) * h;
}

double m_tanh(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    precise double a = abs(x);
    precise double r = 1.0lf;
    if (a < 22.0lf) {
        precise double e = m_expm1(2.0lf * a);
        r = e / (e + 2.0lf);
    }
    return x < 0.0lf ? -r : r;
}

double m_asinh(double x) {
    if (isnan(x) || isinf(x) || x == 0.0lf) return x;
    precise double a = abs(x), r;
    if (a > 1e150lf) {
        r = m_log(a) + LN2_HI + LN2_LO;
    } else if (a < 0.5lf) {
        r = m_log1p(a + a * a / (1.0lf + sqrt(1.0lf + a * a)));
    } else {
        r = m_log(a + sqrt(a * a + 1.0lf));
    }
    return x < 0.0lf ? -r : r;
}

double m_acosh(double x) {
    if (isnan(x) || x < 1.0lf) return 0.0lf / 0.0lf + x;
    if (isinf(x)) return x;
    if (x > 1e150lf) return m_log(x) + LN2_HI + LN2_LO;
    precise double t = x - 1.0lf;
    return x < 2.0lf ? m_log1p(t + sqrt(t * (x + 1.0lf))) : m_log(x + sqrt(x * x - 1.0lf));
}

double m_atanh(double x) {
    if (isnan(x) || abs(x) > 1.0lf) return 0.0lf / 0.0lf + x;
    if (x == 0.0lf) return x;
    precise double a = abs(x);
    precise double r = a == 1.0lf ? M_INF : 0.5lf * m_log1p(2.0lf * a / (1.0lf - a));
    return x < 0.0lf ? -r : r;
}

double m_cbrt(double x) {
    if (isnan(x) || isinf(x) || x == 0.0lf) return x;
    precise double a = abs(x);
    int e;
    precise double m = frexp(a, e);
    // a = m 2^e with e a multiple of 3, so the scaling is exact.
    int r3 = e - 3 * (e / 3);
    if (r3 < 0) r3 += 3;
    m = ldexp(m, r3);
    e -= r3;
    precise double r = m_exp(m_log(m) / 3.0lf);
    r = r - (r * r * r - m) / (3.0lf * r * r);
    r = ldexp(r, e / 3);
    return x < 0.0lf ? -r : r;
}

// erf: below 1, 2/sqrt(pi) e^(-x^2) sum 2^k x^(2k+1) / (1 3 5 ... (2k+1)), whose terms
// are all positive so nothing cancels; above, 1 - erfc with erfc's continued fraction
// e^(-x^2) / (sqrt(pi) (x + (1/2) / (x + (2/2) / (x + ...)))). e^(-x^2) uses the exact
// low part of x^2.
double m_erf(double x) {
    if (isnan(x) || x == 0.0lf) return x;
    precise double a = abs(x);
    if (a > 6.0lf) return x < 0.0lf ? -1.0lf : 1.0lf;
    precise double h, l;
    m_two_prod(a, a, h, l);
    precise double g = m_exp(-h) * (1.0lf - l);
    precise double r;
    if (a < 1.0lf) {
        precise double term = a, sum = a;
        for (int k = 1; k < 100 && term > sum * 1e-18lf; k++) {
            term *= 2.0lf * h / double(2 * k + 1);
            sum += term;
        }
        r = 1.1283791670955126lf * g * sum;
    } else {
        precise double t = a;
        for (int n = 200; n >= 1; n--) t = a + (double(n) * 0.5lf) / t;
        r = 1.0lf - 0.5641895835477563lf * g / t;
    }
    r = min(r, 1.0lf);
    return x < 0.0lf ? -r : r;
}

// a + b = s + e exactly.
void m_two_sum(double a, double b, out double s, out double e) {
    precise double ss = a + b;
    precise double bb = ss - a;
    precise double ee = (a - (ss - bb)) + (b - bb);
    s = ss;
    e = ee;
}

// log(x) = hi + lo, to about 2^-70 relative, for finite x > 0: the reduction of
// m_log_reduced with the rounding of s = f / (2 + f) carried in a low part.
void m_log_dd(double x, out double hi, out double lo) {
    int e;
    precise double m = frexp(x, e);
    if (m < 0.7071067811865476lf) {
        m *= 2.0lf;
        e -= 1;
    }
    precise double f = m - 1.0lf;
    precise double d = 2.0lf + f;
    precise double dl = (2.0lf - d) + f;
    precise double sh = f / d;
    precise double p1, p2;
    m_two_prod(sh, d, p1, p2);
    precise double sl = (((f - p1) - p2) - sh * dl) / d;
    precise double z = sh * sh;
    precise double q = 1.0lf / 31.0lf;
    for (int k = 14; k >= 1; k--) q = 1.0lf / double(2 * k + 1) + z * q;
    precise double lh, ll, t;
    m_two_sum(2.0lf * sh, 2.0lf * sl + 2.0lf * sh * z * q, lh, ll);
    m_two_sum(double(e) * LN2_HI, lh, hi, t);
    lo = t + ll + double(e) * LN2_LO;
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
    precise double lh, ll;
    m_log_dd(ax, lh, ll);
    precise double ph = y * lh;
    if (abs(ph) > 800.0lf) {
        precise double m = ph > 0.0lf ? M_INF : 0.0lf;
        return x < 0.0lf && yodd ? -m : m;
    }
    precise double pe;
    m_two_prod(y, lh, ph, pe);
    precise double r = m_exp(ph) * (1.0lf + (pe + y * ll));
    return x < 0.0lf && yodd ? -r : r;
}
