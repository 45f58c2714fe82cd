#!/usr/bin/env python3
"""Prints the constants of src/backend/vulkan/math.glsl that are not plain decimal
literals: the bits of 2/pi for the large-argument reduction of sin/cos/tan, and the
splits of pi/2 and ln 2 into parts whose products with small integers are exact.
Needs mpmath (python3-mpmath). Run once; its output is pasted into math.glsl."""

from mpmath import mp, mpf, pi, log, floor, ldexp, frexp

mp.prec = 2000


def double(x):
    """x rounded to the nearest double, as a round-trip decimal literal."""
    return repr(float(x)) + "lf"


def split(x, bits):
    """x rounded to `bits` significant bits."""
    m, e = frexp(x)
    return ldexp(floor(ldexp(m, bits) + mpf(0.5)), e - bits)


# 2/pi in 32-bit words after the binary point, behind two zero words (the reduction
# indexes the table from the exponent of x and needs words "before" the point for the
# smallest arguments it takes).
words = 40
two_over_pi = 2 / pi
limbs = []
f = two_over_pi
for _ in range(words):
    f = f * 2**32
    w = int(floor(f))
    limbs.append(w)
    f -= w
table = ["0x00000000u", "0x00000000u"] + ["0x%08xu" % w for w in limbs]
print("const uint M_TWO_OVER_PI[%d] = uint[](" % len(table))
for i in range(0, len(table), 6):
    print("    " + ", ".join(table[i:i + 6]) + ("," if i + 6 < len(table) else ""))
print(");")

# pi/2 in three 33-bit parts and a tail: k * part is exact for |k| < 2^20.
p1 = split(pi / 2, 33)
p2 = split(pi / 2 - p1, 33)
p3 = split(pi / 2 - p1 - p2, 33)
p4 = pi / 2 - p1 - p2 - p3
for name, v in [("PIO2_1", p1), ("PIO2_2", p2), ("PIO2_3", p3), ("PIO2_4", p4)]:
    print("const double %s = %s;" % (name, double(v)))
hi = mpf(float(pi / 2))
print("const double PIO2_HI = %s;" % double(hi))
print("const double PIO2_LO = %s;" % double(pi / 2 - hi))

# ln 2 to 32 bits (k * LN2_HI exact for |k| < 2^21) and the rest.
l1 = split(log(2), 32)
print("const double LN2_HI = %s;" % double(l1))
print("const double LN2_LO = %s;" % double(log(2) - l1))

# log's table: for m in [sqrt(1/2), sqrt(2)), i = round(64 m) in 45..91, invc = 64 / i
# rounded to a double, and -log(invc) (for that double) as a double-double; then
# log m = -log(invc) + log1p(m invc - 1) with |m invc - 1| < 0.012.
invc, hi, lo = [], [], []
for i in range(45, 92):
    c = float(mpf(64) / i)
    l = -log(mpf(c))
    invc.append(repr(c) + "lf")
    hi.append(double(l))
    lo.append(double(l - mpf(float(l))))
# As functions picking entry i by binary search (a constant array indexed at run time is
# slow on lavapipe).
def pick(vals, lo, hi):
    if hi - lo == 1:
        return vals[lo]
    mid = (lo + hi) // 2
    return "(i < %d ? %s : %s)" % (mid, pick(vals, lo, mid), pick(vals, mid, hi))


for name, vals in [("m_log_invc", invc), ("m_log_c_hi", hi), ("m_log_c_lo", lo)]:
    print("double %s(int i) {\n    return %s;\n}" % (name, pick(vals, 0, len(vals))))
