#!/usr/bin/env python3
"""The phones' TCP and UDP transfer tests that started in the same second, side by side.

    scripts/field-study-pairs.py [--data DIR] [--slow MBPS]

Every transfer test's file name carries the second it started (`...-1.5.2025_11_38_53.csv`).
Pairs a TCP test with the UDP test of the same place, distance, count, size and second,
and prints how many pair, the rank correlation of the pairs' rates for 4 096 and 9 216 B
(Spearman, scipy), and the pairs in which either transport ran at `--slow` Mbit/s or
less (default 25). A slow state that both transports met at the same moment shows as
slow twins; one that only a transport's own stack had, as slow tests beside fast twins.
Reads only the calibration set (data/field-study-2025/tcp-transfer.csv and
udp-transfer.csv). Exit status: 0 printed; 2 bad usage or unreadable input.
"""
import argparse
import math
import os
import sys

from scipy.stats import spearmanr

import fieldstudydata as data

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(transport, data_dir):
    """(stamp, place, distance, count, size) -> (rate or None, loss or None)."""
    return {(t["stamp"], t["scenario"], t["planned"], t["count"], t["size"]): (t["rate"], t["loss"])
            for t in data.transfer_tests(transport, data_dir) if t["stamp"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "field-study-2025"))
    ap.add_argument("--slow", type=float, default=25, help="a rate at or below this is slow, Mbit/s")
    a = ap.parse_args()
    try:
        tcp = load("tcp", a.data)
        udp = load("udp", a.data)
    except (OSError, KeyError, ValueError) as e:
        print(f"field-study-pairs: cannot read the transfer tests in {a.data}: {e}", file=sys.stderr)
        sys.exit(2)
    paired = sorted(k for k in tcp if k in udp)
    print(f"{len(tcp)} TCP and {len(udp)} UDP transfer tests; {len(paired)} pairs started in the same second")
    large = [(tcp[k][0], udp[k][0], k) for k in paired if k[4] >= 4096 and tcp[k][0] and udp[k][0]]
    rho = spearmanr([math.log(t) for t, _, _ in large], [math.log(u) for _, u, _ in large])
    print(f"4 096-9 216 B: {len(large)} pairs, Spearman rho {rho.statistic:.2f} (p {rho.pvalue:.1e}) between their rates")
    slow = [(t, u, k) for t, u, k in large if t <= a.slow or u <= a.slow]
    both = sum(1 for t, u, _ in slow if t <= a.slow and u <= a.slow)
    print(f"pairs with a run at {a.slow:g} Mbit/s or less: {len(slow)}; both slow: {both}; "
          f"TCP slow {sum(1 for t, _, _ in large if t <= a.slow)}, UDP slow {sum(1 for _, u, _ in large if u <= a.slow)}")
    print("\n| place | distance (planned) | count | size | started | TCP Mbit/s | UDP Mbit/s | UDP loss % |")
    print("|---|---|---|---|---|---|---|---|")
    for t, u, k in slow:
        print(f"| {k[1]} | {k[2]} | {k[3]} | {k[4]} | {k[0]} | {t:.0f} | {u:.0f} | {'-' if udp[k][1] is None else format(udp[k][1], 'g')} |")


if __name__ == "__main__":
    main()
