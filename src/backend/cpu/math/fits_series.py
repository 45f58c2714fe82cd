#!/usr/bin/env python3
"""Writes, for fits.sollya, the functions Sollya cannot evaluate as polynomials accurate far
beyond the fits (mpmath, 200 bits): log Gamma(2 + t) and log(sin(pi r) / (pi r)) from their
zeta series, Stirling's correction from the Bernoulli numbers, and erfinv(x) / x of each of
erfinv's pieces as a Chebyshev interpolant. Run in an empty directory, then `sollya
fits.sollya` there (it reads the four files).   Needs: mpmath."""
import sys

import mpmath as mp

mp.mp.prec = 200


def write(name, expr):
    with open(name + ".sollya", "w") as f:
        f.write("%s = %s;\n" % (name, expr))


def series(coefficients):
    return " + ".join("(%s)*x^%d" % (mp.nstr(c, 70), k) for k, c in coefficients)


# log Gamma(2 + t) = (1 - gamma) t + sum_{k>=2} (-1)^k (zeta(k) - 1) t^k / k (radius 2).
write("lgamma2", series([(1, 1 - mp.euler)] + [(k, (-1) ** k * (mp.zeta(k) - 1) / k) for k in range(2, 141)]))
# log(sin(pi r) / (pi r)) = -sum_{k>=1} zeta(2k) z^k / k, z = r^2 (radius 1).
write("lsin", series([(k, -mp.zeta(2 * k) / k) for k in range(1, 91)]))
# Stirling: log Gamma(x) - ((x - 1/2) log x - x + log(2 pi)/2) = u C(u^2), u = 1/x,
# C(s) = sum B_2k / (2k (2k - 1)) s^(k-1) (asymptotic; 25 terms are far below 2^-60 from x = 8).
write("stirling", series([(k - 1, mp.bernoulli(2 * k) / (2 * k * (2 * k - 1))) for k in range(1, 26)]))


def erfinv_over_x(c, in_sqrt):
    def f(t):
        w = (t + c) ** 2 if in_sqrt else t + c
        if w == 0:
            return mp.sqrt(mp.pi) / 2
        x = mp.sqrt(-mp.expm1(-w))
        return mp.erfinv(x) / x

    return f


for name, lo, hi, c, in_sqrt in [
    ("einv_a", 0, 3.125, 1.5625, False),
    ("einv_b", 3.125, 6.25, 4.6875, False),
    ("einv_c", 2.5, 4.0, 3.25, True),
    ("einv_d", 4.0, 6.1, 5.05, True),
]:
    c = mp.mpf(c)
    poly, err = mp.chebyfit(erfinv_over_x(c, in_sqrt), [mp.mpf(lo) - c, mp.mpf(hi) - c], 48, error=True)
    print(name, "interpolation error", mp.nstr(err, 3), file=sys.stderr)
    n = len(poly) - 1
    write(name, series([(n - i, coefficient) for i, coefficient in enumerate(poly)]))
