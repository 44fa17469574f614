#!/usr/bin/env python3
"""The share of a lossless radio link's usable rate that tcp and quic's bulk phases reach.

    scripts/bulk-share.py [--peerbench BIN] [--out DIR] [--repetitions N]

What `CostHints.kernelTCP` (tcp, tls) and quic's cost hints take as their share of an
open window (`bulkRateShare`) rests on it: 3 000 x 9 216 B (27.6 MB, long enough for
the window to open) over the free field at 1 m, lossless: 6 MPDUs an aggregate (the
fitted value) with rateFactor 0.1, 0.25, 0.5 (fitted) and 1, and 64 MPDUs with 0.25,
so the link's usable rate spans the field study's range.
Each cell's share is its receiver-span rate over the record's `link.rate_mbps`;
printed per transport x link, with the median per transport. Needs root (network
namespaces) and the release binary. Exit status: 0 done; 1 a run failed; 2 bad usage.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINKS = [(6, factor) for factor in (0.1, 0.25, 0.5, 1)] + [(64, 0.25)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peerbench", default=os.path.join(ROOT, ".build", "release", "peerbench"))
    ap.add_argument("--out", help="keep the run folder here (default: a temporary one, removed afterwards)")
    ap.add_argument("--repetitions", type=int, default=3)
    a = ap.parse_args()
    if a.repetitions < 1:
        ap.error("--repetitions must be at least 1")
    if not os.path.exists(a.peerbench):
        sys.exit(f"bulk-share: {a.peerbench} not found: swift build -c release --product peerbench")
    envs = [{"name": f"agg{m}-rate{f}", "radio": {"base": "free-field", "aggregateMPDUs": m, "rateFactor": f}}
            for m, f in LINKS]
    matrix = {
        "name": "bulk-share", "repetitions": a.repetitions, "rttProbes": 5, "seed": 1, "cellTimeoutSeconds": 60,
        "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "quic", "label": "quic"}],
        "matrix": {"environments": envs, "distances": [1], "payloads": {"counts": [3000], "sizes": [9216]}},
    }
    with tempfile.TemporaryDirectory(prefix="pb-bulk-share.") as work:
        run(a, matrix, work)


def run(a, matrix, work):
    """Runs the matrix (written into `work`) and prints each cell's share."""
    path = os.path.join(work, "bulk-share.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(matrix, f, indent=1)
    out = a.out or os.path.join(work, "run")
    p = subprocess.run([a.peerbench, "run", path, "--out", out, "--quiet"])
    if p.returncode != 0:
        where = f"records in {out}" if a.out else "rerun with --out DIR to keep its records"
        sys.exit(f"bulk-share: peerbench run exited {p.returncode} ({where})")
    shares = {}
    with open(os.path.join(out, "records.jsonl"), encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            rate, got = r["link"].get("rate_mbps"), r.get("receiver_span_mbps")
            if r["status"] == "ok" and rate and got:
                shares.setdefault((r["transport"]["label"], r["environment"], rate), []).append(got / rate)
    print(f"{'transport':<9} {'link':<16} {'rate Mbit/s':>11}  shares")
    for (label, env, rate), xs in sorted(shares.items()):
        print(f"{label:<9} {env:<16} {rate:>11.1f}  " + " ".join(f"{x:.2f}" for x in xs))
    for label in sorted({k[0] for k in shares}):
        xs = [x for k, v in shares.items() if k[0] == label for x in v]
        print(f"{label}: median {statistics.median(xs):.2f}, {min(xs):.2f}-{max(xs):.2f} over {len(xs)} cells")


if __name__ == "__main__":
    main()
