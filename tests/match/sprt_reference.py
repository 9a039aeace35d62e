#!/usr/bin/env python3
"""The pentanomial GSPRT's LLR computed a second way, for test_match.c.

tools/match/cf_sprt.c finds each hypothesis's maximum-likelihood
distribution by bisection on the root of the Lagrange condition. Here the
same LLR comes from the dual: for a mean s, the best log-likelihood per pair
is sum p log p - max_theta D(theta) with the concave
D(theta) = sum_i p_i log(1 + theta (i/4 - s)), maximized by golden-section
search in 60-digit decimal arithmetic (no root finding, no floats), so
LLR = N (D0* - D1*). Prints one C initializer line per case; test_match.c
holds the output.
"""
from decimal import Decimal, getcontext

getcontext().prec = 60


def score(elo):
    return 1 / (1 + Decimal(10) ** (-Decimal(elo) / 400))


def dual_max(p, s):
    lo, hi = -1 / (1 - s), 1 / s
    span = hi - lo
    lo, hi = lo + span * Decimal("1e-30"), hi - span * Decimal("1e-30")
    phi = (Decimal(5).sqrt() - 1) / 2

    def d(t):
        return sum(pi * (1 + t * (Decimal(i) / 4 - s)).ln() for i, pi in enumerate(p))

    a, b = hi - phi * (hi - lo), lo + phi * (hi - lo)
    fa, fb = d(a), d(b)
    for _ in range(300):
        if fa < fb:
            lo, a, fa = a, b, fb
            b = lo + phi * (hi - lo)
            fb = d(b)
        else:
            hi, b, fb = b, a, fa
            a = hi - phi * (hi - lo)
            fa = d(a)
    return d((lo + hi) / 2)


def llr(counts, elo0, elo1):
    c = [Decimal(x) if x > 0 else Decimal("0.001") for x in counts]
    n = sum(c)
    p = [x / n for x in c]
    return n * (dual_max(p, score(elo0)) - dual_max(p, score(elo1)))


CASES = [
    ([10, 20, 40, 20, 10], 0, 10),
    ([5, 30, 60, 40, 15], 0, 5),
    ([12, 25, 50, 22, 9], -5, 5),
    ([0, 3, 10, 4, 1], 0, 10),
    ([40, 80, 150, 90, 60], 0, 10),
    ([1, 0, 0, 0, 0], 0, 10),
    ([0, 0, 7, 0, 0], -10, 10),
    ([300, 900, 1500, 1000, 350], 0, 2),
]

if __name__ == "__main__":
    for counts, e0, e1 in CASES:
        print("{{%s}, %g, %g, %.12f}," % (", ".join(map(str, counts)), e0, e1, llr(counts, e0, e1)))
