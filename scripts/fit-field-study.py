#!/usr/bin/env python3
"""Fits the emulated AWDL link's [F] parameters to the field study's TCP measurements.

    scripts/fit-field-study.py [--peerbench BIN] [--data DIR] [--work DIR] [--quick] [--write]

What it fits (docs/FIELD-STUDY.md, "Calibration"), with PeerBench itself: every candidate
is a real `peerbench run` over the emulated link, through inline radio profiles that
override one parameter of a built-in environment.
  1. rateFactor (one value): the share of PHY x MAC efficiency the phones' link carries,
     against the TCP transfers of 10 000 x 9 216 B (the longest, least slow-start-bound),
     field and forest at 1/5/10 m, by the study's receiver-span data rate.
  2. awdlWindowMiss (per place): the probability that a frame misses its availability
     window, against each place's TCP RTT tests: the median over tests of the mean RTT
     and of the RTT standard deviation (1 000 pipelined probes, Nagle on).
Only the TCP calibration set is read (data/field-study-2025/tcp-*.csv). The study's UDP
and QUIC measurements are the validation set and are never used here.

Each candidate's score is the sum of |log(emulated median / measured median)| over its
targets (so 10 % too high and 10 % too low cost the same); the lowest score wins.
--write rewrites Sources/LinkEmulation/FieldStudyCalibration.swift with the winners
(then rebuild). --quick tries fewer candidates with one repetition (about 4 minutes
instead of 12). Needs root (network namespaces) and the release binary (built if missing).

Exit status: 0 done; 1 a run failed or produced no usable record; 2 bad usage.
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACES = {"Field": "free-field", "Forest": "forest", "Inner City": "inner-city", "Underground": "underground"}
CALIBRATION = os.path.join(ROOT, "Sources", "LinkEmulation", "FieldStudyCalibration.swift")


def measured(data_dir):
    """The TCP calibration set: RTT per place, and the 10 000 x 9 216 B transfers."""
    rtt = {}
    with open(os.path.join(data_dir, "tcp-rtt.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            place = PLACES[row["Scenario"]]
            rtt.setdefault(place, {"mean": [], "sd": []})
            rtt[place]["mean"].append(float(row["Average RTT (ms)"]))
            rtt[place]["sd"].append(float(row["Jitter (ms)"]))
    bulk = []
    with open(os.path.join(data_dir, "tcp-transfer.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["Number of Packages"] == "10000" and row["Package Size (Bytes)"] == "9216" \
                    and PLACES[row["Scenario"]] in ("free-field", "forest"):
                bulk.append(float(row["Transfer Speed (Mbps)"]))
    return rtt, bulk


def run(peerbench, work, name, environments, payload, probes, repetitions):
    """One `peerbench run` of the tcp transport (Nagle on and CUBIC, as on the phones); its ok records."""
    matrix = {
        "name": name, "repetitions": repetitions, "rttProbes": probes, "rttMethod": "pipelined",
        "rttProbeIntervalMs": 1, "cellTimeoutSeconds": 60, "seed": 1,
        "transports": [{"plugin": "tcp", "label": "tcp", "options": {"noDelay": False, "keepAlive": {"idleSeconds": 2},
                                                                   "congestionControl": "cubic"}}],
        "matrix": {"environments": environments, "distances": [1, 5, 10],
                   "payloads": {"counts": [payload[0]], "sizes": [payload[1]]}},
    }
    path = os.path.join(work, name + ".json")
    out = os.path.join(work, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(matrix, f, indent=1)
    subprocess.run(["rm", "-rf", out], check=True)
    p = subprocess.run([peerbench, "run", path, "--out", out, "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"fit-field-study: {name}: peerbench run exited {p.returncode}:\n{p.stderr[-2000:]}")
    records = []
    with open(os.path.join(out, "records.jsonl"), encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["status"] == "ok":
                records.append(r)
    if not records:
        sys.exit(f"fit-field-study: {name}: no ok record (see {out})")
    return records


def log_error(emulated, target):
    return abs(math.log(emulated / target)) if emulated and emulated > 0 else float("inf")


def profile(place, **overrides):
    return {"name": place, "radio": {"base": place, **overrides}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peerbench", default=os.path.join(ROOT, ".build", "release", "peerbench"))
    ap.add_argument("--data", default=os.path.join(ROOT, "data", "field-study-2025"))
    ap.add_argument("--work", default=os.path.join(ROOT, "results", "fit-field-study"))
    ap.add_argument("--quick", action="store_true", help="fewer candidates, one repetition")
    ap.add_argument("--write", action="store_true", help="rewrite FieldStudyCalibration.swift with the winners")
    a = ap.parse_args()
    if not os.path.exists(a.peerbench):
        subprocess.run(["swift", "build", "-c", "release", "--product", "peerbench"], cwd=ROOT, check=True)
    os.makedirs(a.work, exist_ok=True)
    rtt, bulk = measured(a.data)
    reps = 1 if a.quick else 2

    rate_candidates = [0.25, 0.35, 0.45] if a.quick else [0.2, 0.25, 0.3, 0.35, 0.4, 0.5]
    target_bulk = statistics.median(bulk)
    print(f"1. rateFactor: TCP 10 000 x 9 216 B, field and forest, measured median {target_bulk:.1f} Mbit/s (n={len(bulk)})")
    best_rate = None
    for c in rate_candidates:
        recs = run(a.peerbench, a.work, f"rate-{c}", [profile("free-field", rateFactor=c), profile("forest", rateFactor=c)],
                   (10_000, 9_216), 0, 1)
        spans = [r["receiver_span_mbps"] for r in recs if r.get("receiver_span_mbps")]
        emulated = statistics.median(spans) if spans else None
        score = log_error(emulated, target_bulk)
        print(f"   rateFactor {c:<5} emulated median {emulated or float('nan'):7.1f} Mbit/s (n={len(spans)})  score {score:.3f}")
        if best_rate is None or score < best_rate[1]:
            best_rate = (c, score)
    rate = best_rate[0]
    print(f"   -> rateFactor {rate}")

    miss_candidates = [0, 0.02, 0.04] if a.quick else [0, 0.01, 0.02, 0.03, 0.05, 0.08]
    print("2. awdlWindowMiss per place: TCP RTT tests, median of mean RTT and of RTT sd")
    scores = {place: [] for place in rtt}
    for c in miss_candidates:
        envs = [profile(place, rateFactor=rate, awdlWindowMiss=c) for place in rtt]
        recs = run(a.peerbench, a.work, f"miss-{c}", envs, (100, 128), 1_000, reps)
        for place, m in rtt.items():
            rows = [r for r in recs if r["environment"] == place and r.get("rtt_ms")]
            if not rows:
                scores[place].append((c, float("inf"), None, None))
                continue
            mean = statistics.median(r["rtt_ms"]["mean"] for r in rows)
            sd = statistics.median(r["rtt_ms"]["stddev"] for r in rows)
            score = log_error(mean, statistics.median(m["mean"])) + log_error(sd, statistics.median(m["sd"]))
            scores[place].append((c, score, mean, sd))
    winners = {}
    for place, rows in scores.items():
        m = rtt[place]
        print(f"   {place}: measured mean RTT {statistics.median(m['mean']):.1f} ms, sd {statistics.median(m['sd']):.1f} ms")
        for c, score, mean, sd in rows:
            print(f"     awdlWindowMiss {c:<5} emulated mean {mean or float('nan'):6.1f} ms, sd {sd or float('nan'):5.1f} ms  score {score:.3f}")
        winners[place] = min(rows, key=lambda r: r[1])[0]
        print(f"     -> {winners[place]}")

    if a.write:
        with open(CALIBRATION, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"(public static let rateFactor = )[0-9.]+", rf"\g<1>{rate}", text)
        for place, c in winners.items():
            text = re.sub(rf'("{place}": )[0-9.]+', rf"\g<1>{float(c)}", text)
        with open(CALIBRATION, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {os.path.relpath(CALIBRATION, ROOT)}; rebuild to use it")


if __name__ == "__main__":
    main()
