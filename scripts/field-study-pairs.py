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
import csv
import math
import os
import re
import sys

from scipy.stats import spearmanr

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAMP = re.compile(r"(\d+\.\d+\.\d{4}_\d+_\d+_\d+)")


def load(path):
    """(stamp, place, distance, count, size) -> (rate or None, loss text)."""
    tests = {}
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            m = STAMP.search(row["file"])
            if not m:
                continue
            try:
                rate = float(row["Transfer Speed (Mbps)"])
            except ValueError:
                rate = None  # one row reads `8.650.004883`
            key = (m.group(1), row["Scenario"], row["Distance (m)"], int(row["Number of Packages"]), int(row["Package Size (Bytes)"]))
            tests[key] = (rate, row["Package Loss (%)"])
    return tests


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "field-study-2025"))
    ap.add_argument("--slow", type=float, default=25, help="a rate at or below this is slow, Mbit/s")
    a = ap.parse_args()
    try:
        tcp = load(os.path.join(a.data, "tcp-transfer.csv"))
        udp = load(os.path.join(a.data, "udp-transfer.csv"))
    except (OSError, KeyError) as e:
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
        print(f"| {k[1]} | {k[2]} | {k[3]} | {k[4]} | {k[0]} | {t:.0f} | {u:.0f} | {udp[k][1]} |")


if __name__ == "__main__":
    main()
