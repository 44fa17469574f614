#!/usr/bin/env python3
"""The field-study checks `peerbench compare --measured` cannot make, against a run.

    scripts/field-study-checks.py RUN_DIR [--data DIR]

1. UDP loss per message count x size: data/field-study-2025/udp-transfer.csv ("Package
   Loss (%)", every place) against the run's udp records (delivery.loss_ratio x 100, ok
   and partial): the phones' median [q1, q3], the emulated median, and whether it lies
   inside the quartiles (type 7, as `compare --measured` computes them).
2. Transfer rate per place, every distance and payload pooled, tcp and udp: the run's
   receiver_span_mbps median against the thesis figure's median [q1, q3] (drawn from
   all 648 transfer tests; data/field-study-2025/README.md has the values, pixel-measured,
   and they are written below), since most places' rows are not machine-readable.
3. UDP's slow runs per place x distance: the share of 4 096 and 9 216 B transfers
   below 30 Mbit/s, the phones' (udp-transfer.csv) against the run's. The phones'
   large-message runs fall into two groups, about 7-25 and 40-640 Mbit/s, and the
   share in the slow group is what sets the block medians `compare --measured` checks
   (docs/FIELD-STUDY.md, "Where PeerBench still misses").

Exit status: 0 printed; 1 the run has no udp record; 2 bad usage or unreadable input.
"""
import argparse
import json
import os
import statistics
import sys

import fieldstudydata as data

# The thesis figure's transfer rates per place, Mbit/s: median, q1, q3
# (data/field-study-2025/README.md, "For the blocks that are not machine-readable").
FIGURE = {
    "tcp": {"free-field": (47, 18, 120), "forest": (50, 14, 97), "inner-city": (70, 16, 149), "underground": (118, 45, 211)},
    "udp": {"free-field": (41, 14, 171), "forest": (34, 14, 152), "inner-city": (63, 20, 212), "underground": (163, 32, 303)},
}


def per_place(rows):
    """Prints the per-place rate check for `rows` (the run's ok and partial records)."""
    print("\n| transport | place | figure's median [q1, q3] | n emu | emulated median | inside |")
    print("|---|---|---|---|---|---|")
    for transport, places in FIGURE.items():
        inside = 0
        for place, (med, q1, q3) in places.items():
            v = [r["receiver_span_mbps"] for r in rows if r.get("transport", {}).get("plugin") == transport
                 and r.get("environment") == place and r.get("receiver_span_mbps") is not None]
            if not v:
                print(f"| {transport} | {place} | {med} [{q1}, {q3}] | 0 | - | - |")
                continue
            e = statistics.median(v)
            inside += q1 <= e <= q3
            print(f"| {transport} | {place} | {med} [{q1}, {q3}] | {len(v)} | {e:.1f} | {'yes' if q1 <= e <= q3 else 'no'} |")
        print(f"| {transport} | **{inside} of {len(places)} places inside** | | | | |")


SLOW_MBPS = 30
ORDER = list(data.PLACES.values())  # the study's order: Field, Forest, Inner City, Underground


def slow_runs(rows, data_dir):
    """Prints check 3 for `rows` (the run's ok and partial records)."""
    phones = {}
    for t in data.transfer_tests("udp", data_dir):
        if t["rate"] is not None and t["size"] >= 4096:
            phones.setdefault((t["place"], t["distance"]), []).append(t["rate"])
    print(f"\n| place | distance | phones' udp transfers of 4 096-9 216 B below {SLOW_MBPS} Mbit/s | emulated |")
    print("|---|---|---|---|")
    for (place, d), v in sorted(phones.items(), key=lambda kv: (ORDER.index(kv[0][0]), kv[0][1])):
        e = [r["receiver_span_mbps"] for r in rows if r.get("transport", {}).get("plugin") == "udp"
             and r.get("environment") == place and round(r.get("distance_m") or 0) == d
             and (r.get("payload") or {}).get("size", 0) >= 4096 and r.get("receiver_span_mbps") is not None]
        slow = sum(x < SLOW_MBPS for x in v)
        emu = f"{sum(x < SLOW_MBPS for x in e)} of {len(e)}" if e else "-"
        print(f"| {place} | {d} m | {slow} of {len(v)} | {emu} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a run folder with records.jsonl")
    ap.add_argument("--data", default=data.DATA)
    a = ap.parse_args()
    measured = {}
    try:
        for t in data.transfer_tests("udp", a.data):
            if t["loss"] is not None:
                measured.setdefault((t["count"], t["size"]), []).append(t["loss"])
    except (OSError, KeyError, ValueError) as e:
        print(f"field-study-checks: {os.path.join(a.data, 'udp-transfer.csv')}: {e}", file=sys.stderr)
        sys.exit(2)
    emulated, rows = {}, []
    records = os.path.join(a.run, "records.jsonl")
    try:
        with open(records, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    print(f"field-study-checks: {records}:{n}: not a JSON line, skipped", file=sys.stderr)
                    continue
                if r.get("status") not in ("ok", "partial"):
                    continue
                rows.append(r)
                if r.get("transport", {}).get("plugin") != "udp":
                    continue
                d, p = r.get("delivery") or {}, r.get("payload") or {}
                if d.get("loss_ratio") is None or not p:
                    continue
                emulated.setdefault((p["count"], p["size"]), []).append(d["loss_ratio"] * 100)
    except OSError as e:
        print(f"field-study-checks: {records}: {e}", file=sys.stderr)
        sys.exit(2)
    if not emulated:
        print(f"field-study-checks: {records}: no udp record with a loss", file=sys.stderr)
        sys.exit(1)
    inside = compared = 0
    print("| count | size | n meas | phones' loss % median [q1, q3] | n emu | emulated median | inside |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(measured):
        q1, med, q3 = data.quartiles(measured[key])
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
    per_place(rows)
    slow_runs(rows, a.data)


if __name__ == "__main__":
    main()
