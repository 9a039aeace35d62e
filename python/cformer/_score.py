"""Centipawns from W/D/L, as Lc0 shows a score by default (its ScoreType
``WDL_mu``; cformer's UCI ``score cp`` and ``cformer analyse``'s ``[%eval]``
use the same formula, engine/uci/cf_uci_score.h).

mu is the mean of the logistic model that fits W/D/L exactly (W =
sigmoid((mu - 1) / s), L = sigmoid((-1 - mu) / s)); the score is 100 mu
when that fit is meaningful, else 45 tan(1.56728071628 (W - L)). The
arithmetic is float32 where the C code's is, so the two agree."""

import math
from typing import Sequence, Union

import numpy as np

_EPS = 0.0001


def _round_half_away(x: float) -> int:
    """C's lround: halves away from zero (Python's round() goes to even)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def centipawns(wdl: Union[Sequence[float], np.ndarray]) -> int:
    """The centipawn score of a [win, draw, loss] triple (probabilities for
    the side to move, a list, tuple or NumPy array): Lc0's default
    (``WDL_mu``), positive when the side to move is better."""
    w, d, l = (np.float32(x) for x in wdl)
    wl = np.float32(w - l)
    x = min(max(float(wl), -0.999999), 0.999999)
    fallback = 45 * math.tan(1.56728071628 * x)
    mu = 0.0
    pw = float(np.float32((np.float32(1) + wl - d) / np.float32(2)))
    pl = float(np.float32((np.float32(1) - wl - d) / np.float32(2)))
    pd = float(d)
    if all(_EPS < p < 1 - _EPS for p in (pw, pd, pl)):
        a, b = math.log(1 / pl - 1), math.log(1 / pw - 1)
        mu = (a - b) / (a + b)
    use_mu = (mu != 0 and abs(float(wl)) + pd < 0.996
              and (abs(mu) < 1 or abs(fallback) < abs(100 * mu)))
    return _round_half_away(100 * mu if use_mu else fallback)
