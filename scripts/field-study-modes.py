#!/usr/bin/env python3
"""Which run explains the field study's TCP data better: each run folder is compared with
the calibration set by `peerbench compare RUN --measured ... --format json`, and per table
(mean RTT, RTT sd, transfer per place x distance, transfer per count x size) this prints
the mean |ln(emulated median / measured median)| over the table's rows (0: every median
equal; lower is closer) and how many emulated medians lie inside the measured quartiles.
docs/FIELD-STUDY.md ("One transport at a time, or all at once?") uses it on a sequential
and a transportsAtOnce run of matrices/field-study-2025*.json.

    field-study-modes.py [--peerbench PATH] RUN_DIR...

Only the TCP files are read: the study's UDP and QUIC data are the held-back validation
set. Exit status: 0 done; 1 a comparison failed; 2 bad usage.
"""
import argparse
import json
import math
import os
import subprocess
import sys

MEASURED = ["data/field-study-2025/tcp-rtt.csv", "data/field-study-2025/tcp-transfer.csv"]


def tables(peerbench, run):
    """The comparison's tables of one run: metric -> (mean |ln ratio|, inside, rows)."""
    out = subprocess.run([peerbench, "compare", run, "--format", "json"] + sum((["--measured", m] for m in MEASURED), []),
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"field-study-modes: peerbench compare {run} failed: {out.stderr.strip()}")
    result = {}
    for t in json.loads(out.stdout)["tables"]:
        ratios = [r["ratio"] for r in t["rows"] if r.get("ratio")]
        inside = sum(1 for r in t["rows"] if r.get("inside"))
        score = sum(abs(math.log(x)) for x in ratios) / len(ratios) if ratios else float("nan")
        result[t["metric"]] = (score, inside, len(t["rows"]))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="run folders (peerbench run --out)")
    parser.add_argument("--peerbench", default=".build/release/peerbench", help="the peerbench binary")
    args = parser.parse_args()
    if not os.path.exists(args.peerbench):
        print(f"field-study-modes: {args.peerbench}: no such binary (swift build -c release --product peerbench)", file=sys.stderr)
        return 2
    per_run = [tables(args.peerbench, r) for r in args.runs]
    print("| table | " + " | ".join(args.runs) + " |")
    print("|---|" + "---|" * len(args.runs))
    for metric in per_run[0]:
        cells = []
        for t in per_run:
            score, inside, rows = t.get(metric, (float("nan"), 0, 0))
            cells.append(f"{score:.3f}, {inside} of {rows} inside")
        print(f"| {metric} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
