#!/usr/bin/env python3
"""Per transport and place, the medians the field study reported, from a run of
matrices/field-study-2025.json: mean RTT and RTT sd (the study's jitter) over the
cells' pipelined probes, the receiver's data rate (receiver_span_mbps) and loss
(delivery.loss_ratio), over every distance and payload of the place; beside them the
worst cell's loss, the cells that received nothing at all, and the median CPU time
each side spent (cpu_seconds, records from peerbench.record/5 on).

    field-study-summary.py RUN_DIR

Prints a markdown table (the README's UDP and QUIC rows; the TCP rows beside the
phones' come from `peerbench compare RUN_DIR --measured ...`). Exit status: 0 done;
1 no ok record; 2 bad usage.
"""
import json
import os
import statistics
import sys

PLACES = ["underground", "inner-city", "free-field", "forest"]

if len(sys.argv) != 2:
    print(f"usage: {os.path.basename(sys.argv[0])} RUN_DIR", file=sys.stderr)
    sys.exit(2)
path = os.path.join(sys.argv[1], "records.jsonl")
if not os.path.isfile(path):
    print(f"field-study-summary: {path}: no such file (give a run folder)", file=sys.stderr)
    sys.exit(2)
cells = {}
with open(path, encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        if r["status"] not in ("ok", "partial"):
            continue
        g = cells.setdefault((r["transport"]["label"], r["environment"]), {"mean": [], "sd": [], "rate": [], "loss": [], "empty": 0,
                                                                          "cpu_client": [], "cpu_server": []})
        if r.get("rtt_ms"):
            g["mean"].append(r["rtt_ms"]["mean"])
            g["sd"].append(r["rtt_ms"]["stddev"])
        if r.get("receiver_span_mbps") is not None:
            g["rate"].append(r["receiver_span_mbps"])
        if r.get("delivery"):
            g["loss"].append(100 * r["delivery"]["loss_ratio"])
            if r["delivery"]["sent_messages"] > 0 and r["delivery"]["received_messages"] == 0:
                g["empty"] += 1
        for side in ("client", "server"):
            cpu = (r.get("cpu_seconds") or {}).get(side)
            if cpu is not None:
                g["cpu_" + side].append(cpu)
if not cells:
    print("field-study-summary: no ok record", file=sys.stderr)
    sys.exit(1)


def median(values, digits=1):
    return f"{statistics.median(values):.{digits}f}" if values else "-"


print("| transport | place | cells | mean RTT ms | RTT sd ms | receiver rate Mbit/s | loss % | worst loss % | nothing received "
      "| CPU s client | CPU s server |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for label in sorted({k[0] for k in cells}):
    for place in PLACES + sorted({k[1] for k in cells} - set(PLACES)):
        g = cells.get((label, place))
        if not g:
            continue
        print(f"| {label} | {place} | {len(g['loss'])} | {median(g['mean'])} | {median(g['sd'])} | "
              f"{median(g['rate'])} | {median(g['loss'], 2)} | {max(g['loss']) if g['loss'] else 0:.2f} | {g['empty']} "
              f"| {median(g['cpu_client'], 3)} | {median(g['cpu_server'], 3)} |")
