#!/usr/bin/env python3
"""Independent reference values for `peerbench compare`'s statistics (docs/COMPARE.md).

Prints one JSON document: fixed sample pairs (ties, small n, large n) with what scipy
and plain Python compute for them. Tests/PeerBenchCoreTests/StatisticsReferenceTests.swift
runs this and compares PeerBench's Swift implementation against it.

- Mann-Whitney U: scipy.stats.mannwhitneyu, two-sided, method "exact" when the pooled
  sample has no ties and n*m <= 10000, else "asymptotic" (tie and continuity corrected).
- Cliff's delta: the mean of sign(x_i - y_j) over all pairs.
- Hodges-Lehmann shift: the median of all x_i - y_j; its 95 % interval from the null
  distribution of U, counted here by the recurrence c(i, j, u) = c(i-1, j, u-j) + c(i, j-1, u)
  (exact integers; PeerBench uses a different algorithm), or the normal approximation above 10000.
- Median interval: scipy.stats.quantile_test(...).confidence_interval(0.95).
- Holm: written out here (statsmodels is not a dependency).
"""
import json
import math
import sys

import numpy as np
import scipy.stats as st

EXACT_LIMIT = 10_000


def lcg(seed):
    """A fixed generator so the vectors are the same on every machine and Python."""
    state = seed
    while True:
        state = (6364136223846793005 * state + 1442695040888963407) % 2**64
        yield (state >> 11) / 2**53


def vector(seed, n, scale, offset, digits=None):
    g = lcg(seed)
    xs = [offset + scale * next(g) for _ in range(n)]
    return [round(x, digits) for x in xs] if digits is not None else xs


def u_counts(n, m):
    """Number of arrangements giving U = 0..n*m (x's U: pairs where x is larger)."""
    prev_row = [[1] for _ in range(m + 1)]  # i = 0: U = 0 only
    for i in range(1, n + 1):
        row = [[1] + [0] * 0]  # j = 0: U = 0 only
        for j in range(1, m + 1):
            size = i * j + 1
            c = [0] * size
            a = prev_row[j]  # last value from x: U gains j
            for u, v in enumerate(a):
                c[u + j] += v
            b = row[j - 1]  # last value from y: U unchanged
            for u, v in enumerate(b):
                c[u] += v
            row.append(c)
        prev_row = row
    return prev_row[m]


def shift_rank(n, m):
    nm = n * m
    if nm <= EXACT_LIMIT:
        counts = u_counts(n, m)
        total = sum(counts)
        k, cum = 0, 0
        while k < len(counts) and (cum + counts[k]) / total <= 0.025:
            cum += counts[k]
            k += 1
    else:
        k = math.floor(nm / 2 + 0.5 - st.norm.ppf(0.975) * math.sqrt(nm * (n + m + 1) / 12))
    return k if 1 <= k <= (nm + 1) // 2 else None


def median_interval(xs):
    ci = st.quantile_test(xs, q=float(np.median(xs)), p=0.5).confidence_interval(0.95)
    low, high = float(ci.low), float(ci.high)
    if math.isinf(low) or math.isinf(high) or math.isnan(low) or math.isnan(high):
        return None
    return [low, high]


def holm(ps):
    k = len(ps)
    order = sorted(range(k), key=lambda i: ps[i])
    out, running = [0.0] * k, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * ps[i]))
        out[i] = running
    return out


def case(name, x, y):
    n, m = len(x), len(y)
    ties = len(set(x + y)) < n + m
    method = "exact" if not ties and n * m <= EXACT_LIMIT else "asymptotic"
    r = st.mannwhitneyu(x, y, alternative="two-sided", method=method, use_continuity=True)
    d = np.subtract.outer(np.array(x), np.array(y)).ravel()
    d.sort()
    k = shift_rank(n, m)
    return {
        "name": name, "x": x, "y": y, "method": method,
        "u1": float(r.statistic), "p_value": float(r.pvalue),
        "cliffs_delta": float(np.sign(d).sum() / (n * m)),
        "shift": float(np.median(d)),
        "shift_ci": None if k is None else [float(d[k - 1]), float(d[n * m - k])],
        "median_x": float(np.median(x)),
        "median_ci_x": median_interval(x),
    }


cases = [
    case("separated n=m=3 (smallest p 0.1)", [1.1, 2.3, 3.5], [5.0, 6.1, 7.7]),
    case("separated n=m=4", [1.1, 2.3, 3.5, 4.2], [5.0, 6.1, 7.7, 8.2]),
    case("overlapping 5 vs 6", [12.1, 15.3, 9.8, 14.2, 11.0], [10.5, 13.3, 8.9, 9.1, 7.6, 10.1]),
    case("ties small", [1.0, 2.0, 2.0, 3.0, 3.0, 3.0], [2.0, 3.0, 4.0, 4.0, 5.0]),
    case("ties rounded 20 vs 18", vector(7, 20, 10, 50, 0), vector(8, 18, 10, 53, 0)),
    case("no ties 12 vs 10", vector(1, 12, 5, 30), vector(2, 10, 5, 32)),
    case("no ties 40 vs 35", vector(3, 40, 20, 100), vector(4, 35, 20, 108)),
    case("asymptotic 120 vs 100", vector(5, 120, 3, 2), vector(6, 100, 3, 2.4)),
    case("one each", [3.0], [4.0]),
    case("identical values", [1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0, 1.0]),
]
# scipy gives NaN where every value is equal; PeerBench reports 1 (no evidence of a difference).
for c in cases:
    if math.isnan(c["p_value"]):
        c["p_value"] = 1.0
holm_in = [0.01, 0.04, 0.03, 0.005, 0.2, 0.04]
binom_check = []
for n in range(1, 61):
    k = max([k for k in range(1, n // 2 + 2) if st.binom.cdf(k - 1, n, 0.5) <= 0.025] or [0])
    binom_check.append({"n": n, "k": k if k >= 1 else None})
json.dump({"scipy": st.__name__ and __import__("scipy").__version__, "cases": cases,
           "holm": {"p": holm_in, "adjusted": holm(holm_in)}, "median_ranks": binom_check}, sys.stdout)
