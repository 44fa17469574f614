#!/usr/bin/env python3
"""UDP loss per message count x size: the phones' transfer tests against a run.

    scripts/field-study-loss.py RUN_DIR [--data DIR]

Reads data/field-study-2025/udp-transfer.csv ("Package Loss (%)", every place) and the
run's udp records (delivery.loss_ratio x 100, ok and partial), and prints per count x size
the phones' median [q1, q3], the emulated median and whether it lies inside the
quartiles (type 7, as `peerbench compare --measured` computes them). `compare
--measured` compares rates and round trips; this is the loss of issue 39's checks.

Exit status: 0 printed; 1 the run has no udp record; 2 bad usage or unreadable input.
"""
import argparse
import csv
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def quartiles(values):
    if len(values) == 1:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[1], q[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a run folder with records.jsonl")
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "field-study-2025"))
    a = ap.parse_args()
    measured = {}
    path = os.path.join(a.data, "udp-transfer.csv")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                try:
                    loss = float(row["Package Loss (%)"])
                except ValueError:
                    continue
                measured.setdefault((int(row["Number of Packages"]), int(row["Package Size (Bytes)"])), []).append(loss)
    except (OSError, KeyError) as e:
        sys.exit(f"field-study-loss: {path}: {e}")
    emulated = {}
    records = os.path.join(a.run, "records.jsonl")
    try:
        with open(records, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    print(f"field-study-loss: {records}:{n}: not a JSON line, skipped", file=sys.stderr)
                    continue
                if r.get("transport", {}).get("plugin") != "udp" or r.get("status") not in ("ok", "partial"):
                    continue
                d, p = r.get("delivery") or {}, r.get("payload") or {}
                if d.get("loss_ratio") is None or not p:
                    continue
                emulated.setdefault((p["count"], p["size"]), []).append(d["loss_ratio"] * 100)
    except OSError as e:
        sys.exit(f"field-study-loss: {records}: {e}")
    if not emulated:
        print(f"field-study-loss: {records}: no udp record with a loss", file=sys.stderr)
        sys.exit(1)
    inside = compared = 0
    print("| count | size | n meas | phones' loss % median [q1, q3] | n emu | emulated median | inside |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(measured):
        q1, med, q3 = quartiles(measured[key])
        emu = emulated.get(key)
        if not emu:
            print(f"| {key[0]} | {key[1]} B | {len(measured[key])} | {med:.1f} [{q1:.1f}, {q3:.1f}] | 0 | - | - |")
            continue
        e = statistics.median(emu)
        ok = q1 <= e <= q3
        inside += ok
        compared += 1
        print(f"| {key[0]} | {key[1]} B | {len(measured[key])} | {med:.1f} [{q1:.1f}, {q3:.1f}] | {len(emu)} | {e:.1f} | {'yes' if ok else 'no'} |")
    print(f"\nudp loss per count x size: {inside} of {compared} inside the phones' quartiles")


if __name__ == "__main__":
    main()
