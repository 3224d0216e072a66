"""Is a per-query metric difference distinguishable from noise? (ADR 0030)

Both tests are paired over the same queries: ``deltas[i]`` is variant minus
baseline on query i. The paired bootstrap gives a confidence interval for the
mean delta; the exact sign test asks whether wins outnumber losses more than
coin flips would. A difference counts as real only when both agree, which
keeps a 20-cell tune grid from crying wolf on 40 queries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05
EPS = 1e-12  # deltas smaller than this are ties (float noise, not a change)


@dataclass(frozen=True)
class Bootstrap:
    mean: float
    ci_low: float
    ci_high: float
    p_value: float  # two-sided: how often the resampled mean lands on the other side of 0


@dataclass(frozen=True)
class SignTest:
    wins: int
    losses: int
    ties: int
    p_value: float  # exact two-sided binomial, ties dropped


@dataclass(frozen=True)
class Significance:
    bootstrap: Bootstrap
    sign: SignTest
    significant: bool


def paired_bootstrap(deltas: Sequence[float], *, resamples: int = 10_000, seed: int = 0,
                     alpha: float = ALPHA) -> Bootstrap:
    d = np.asarray(deltas, dtype=np.float64)
    if d.size == 0:
        return Bootstrap(0.0, 0.0, 0.0, 1.0)
    mean = float(d.mean())
    if np.all(np.abs(d) < EPS):
        return Bootstrap(0.0, 0.0, 0.0, 1.0)
    rng = np.random.default_rng(seed)  # seeded: the same data gives the same verdict
    idx = rng.integers(0, d.size, size=(resamples, d.size))
    means = d[idx].mean(axis=1)
    lo, hi = np.quantile(means, [alpha / 2, 1 - alpha / 2])
    below = float(np.mean(means <= 0))
    above = float(np.mean(means >= 0))
    p = min(1.0, 2 * min(below, above))
    return Bootstrap(mean, float(lo), float(hi), p)


def _binom_two_sided(k: int, n: int) -> float:
    if n == 0:
        return 1.0
    lo = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(lo + 1)) / 2**n
    return min(1.0, 2 * tail)


def sign_test(deltas: Sequence[float]) -> SignTest:
    wins = sum(1 for x in deltas if x > EPS)
    losses = sum(1 for x in deltas if x < -EPS)
    ties = len(deltas) - wins - losses
    return SignTest(wins, losses, ties, _binom_two_sided(wins, wins + losses))


def compare(deltas: Sequence[float], *, alpha: float = ALPHA, seed: int = 0) -> Significance:
    b = paired_bootstrap(deltas, seed=seed, alpha=alpha)
    s = sign_test(deltas)
    excludes_zero = b.ci_low > 0 or b.ci_high < 0
    return Significance(b, s, excludes_zero and s.p_value < alpha)
