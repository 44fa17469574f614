#!/usr/bin/env python3
"""How a run's pipelined probes travelled: the flights each RTT test split into.

    scripts/rtt-flights.py RUN [--transport tcp] [--gap MS]

Reads RUN/records.jsonl and RUN/samples.jsonl (the per-probe `rtt_ns`, in send
order). Consecutive probes whose RTTs differ by less than `--gap` ms (default 8, half
an availability window) travelled in one flight; a jump starts the next. Prints, per
place, the tests, how many probes the first flight carried (median and range), the
flights' median RTTs, and each test's mean and SD beside what the split alone gives:
a test whose probes all wait for one flight or the next, p of them the next, has
SD = d x sqrt(p (1 - p)) for flights d ms apart. When the SDs are that, the spread is
the split between flights, not a spread inside one.
Only the emulated run is read, never the phones' data. Exit status: 0 printed;
1 no test of the transport has per-probe RTTs; 2 bad usage or unreadable input.
"""
import argparse
import json
import math
import os
import statistics
import sys


def flights(rtts_ms, gap_ms):
    """[(first index, last index, median RTT)] of runs without a jump above gap_ms."""
    out, start = [], 0
    for i in range(1, len(rtts_ms) + 1):
        if i == len(rtts_ms) or abs(rtts_ms[i] - rtts_ms[i - 1]) > gap_ms:
            out.append((start, i - 1, statistics.median(rtts_ms[start:i])))
            start = i
    return out


def split_sd(rtts_ms, runs):
    """The SD the test would have if every probe took its flight's median RTT."""
    values = [m for a, b, m in runs for _ in range(b - a + 1)]
    return statistics.pstdev(values) if len(values) > 1 else 0.0


def read_lines(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        print(f"rtt-flights: {path}: {e}", file=sys.stderr)
        sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run")
    ap.add_argument("--transport", default="tcp", help="the records' transport label (default tcp)")
    ap.add_argument("--gap", type=float, default=8.0, help="ms between two probes' RTTs that starts a new flight")
    a = ap.parse_args()
    if not a.gap > 0:
        ap.error(f"--gap must be above 0 ms, got {a.gap:g}")
    records = read_lines(os.path.join(a.run, "records.jsonl"))
    samples = read_lines(os.path.join(a.run, "samples.jsonl"))
    cells = {(r.get("cell_id"), r.get("repetition")): r for r in records if (r.get("transport") or {}).get("label") == a.transport}
    by_place = {}
    for s in samples:
        r = cells.get((s.get("cell_id"), s.get("repetition")))
        if r is None or not s.get("rtt_ns"):
            continue
        ms = [x / 1e6 for x in s["rtt_ns"]]
        by_place.setdefault(r.get("environment", "?"), []).append((r.get("distance_m"), ms, flights(ms, a.gap)))
    if not by_place:
        print(f"rtt-flights: {a.run}: no {a.transport} test with per-probe RTTs", file=sys.stderr)
        return 1
    print(f"| place | tests | probes in the first flight, median [range] | flights' median RTT, ms | mean, ms | SD, ms | SD of the split alone, ms |")
    print("|---|---|---|---|---|---|---|")
    for place in sorted(by_place):
        tests = by_place[place]
        first = [runs[0][1] - runs[0][0] + 1 for _, _, runs in tests]
        depth = max(len(runs) for _, _, runs in tests)
        medians = []
        for k in range(depth):
            at = [runs[k][2] for _, _, runs in tests if len(runs) > k]
            medians.append(f"{statistics.median(at):.1f} ({len(at)})")
        mean = statistics.median(statistics.mean(ms) for _, ms, _ in tests)
        sd = statistics.median(statistics.pstdev(ms) for _, ms, _ in tests)
        alone = statistics.median(split_sd(ms, runs) for _, ms, runs in tests)
        print(f"| {place} | {len(tests)} | {statistics.median(first):g} [{min(first)}-{max(first)}] | "
              f"{', '.join(medians)} | {mean:.1f} | {sd:.1f} | {alone:.1f} |")
    print(f"\nA flight is a run of probes whose RTTs differ by {a.gap:g} ms or less; the number in brackets "
          "after a flight's RTT is how many tests had that flight.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
