#!/usr/bin/env python3
"""The README's "what apps actually send" table and figure, from a run of
matrices/apps.json (or any run whose cells have workloads, docs/WORKLOADS.md).

    apps-table.py RUN_DIR [OUT_DIR]

Prints one Markdown table: a row per workload and place, a column per transport, each
cell the figure an app developer asks of that workload (median over the repetitions,
with the range): frame delay p99 and late frames for an isochronous call, transaction
time p50 for request-response, Mbit/s the way the data went for bulk. Cells that did
not end `ok` are counted beside the figure. With OUT_DIR, writes OUT_DIR/apps.vl.json
(one panel per workload, every cell a point) and renders it (.svg, .png) with
render-figures.py. Exit status: 0 done; 1 no cell with a workload in RUN_DIR; 2 bad usage.
"""
import json
import os
import statistics
import subprocess
import sys

if len(sys.argv) not in (2, 3):
    print(f"usage: {os.path.basename(sys.argv[0])} RUN_DIR [OUT_DIR]", file=sys.stderr)
    sys.exit(2)
run = sys.argv[1]
labels, workloads, places, cells = [], [], [], {}
with open(os.path.join(run, "records.jsonl"), encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        w = r.get("workload")
        if not w:
            continue
        place = f"{r['environment']} {r['distance_label']} m"
        for seen, x in ((labels, r["transport"]["label"]), (workloads, w["name"]), (places, place)):
            if x not in seen:
                seen.append(x)
        cells.setdefault((w["name"], place, r["transport"]["label"]), []).append(r)
if not cells:
    print(f"apps-table: no cell with a workload in {run}", file=sys.stderr)
    sys.exit(1)


def figure(r):
    """(value, unit text) of the figure that answers the workload's question; None if the cell has none."""
    w = r["workload"]
    if w["kind"] == "isochronous":
        d = r.get("frame_delay_ms") or {}
        return d.get("p99")
    if w["kind"] == "request-response":
        return (r.get("request_response_ms") or {}).get("p50")
    by = r.get("throughput_by_direction_mbps")
    if by and w["direction"] in ("up", "down"):
        return by.get(w["direction"])
    return r.get("throughput_mbps")


UNIT = {"isochronous": "frame delay p99, ms", "request-response": "transaction p50, ms", "bulk": "Mbit/s"}


def text(rs):
    vals = [v for v in map(figure, rs) if v is not None]
    if not vals:
        out = "–"
    else:
        m = statistics.median(vals)
        digits = 0 if m >= 100 else 1
        out = f"{m:.{digits}f}" if len(vals) == 1 else f"{m:.{digits}f} ({min(vals):.{digits}f}–{max(vals):.{digits}f})"
    late = [r["frames"]["late"] for r in rs if r.get("frames")]
    if late:
        sent = rs[0]["frames"]["sent"]
        out += f"; late {statistics.median(late):.0f}/{sent}"
    bad = sum(1 for r in rs if r["status"] != "ok")
    return out + (f"; {bad}/{len(rs)} not ok" if bad else "")


print("| workload (figure) | place | " + " | ".join(labels) + " |")
print("|---|---|" + "---|" * len(labels))
for w in workloads:
    kind = next(rs[0]["workload"]["kind"] for (name, _, _), rs in cells.items() if name == w)
    for place in places:
        row = [text(cells[(w, place, l)]) if (w, place, l) in cells else "–" for l in labels]
        print(f"| {w} ({UNIT[kind]}) | {place} | " + " | ".join(row) + " |")

if len(sys.argv) == 3:
    out = sys.argv[2]
    rows = []
    kinds = [(w, next(rs[0]["workload"]["kind"] for (n, _, _), rs in cells.items() if n == w)) for w in workloads]
    for (w, place, label), rs in cells.items():
        for r in rs:
            v = figure(r)
            if v is not None:
                rows.append({"workload": f"{w}: {UNIT[r['workload']['kind']]}", "place": place, "transport": label, "value": v})
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": "What apps send: each workload's own figure, per place and transport (every cell a point)",
        "data": {"values": rows},
        "facet": {"field": "workload", "type": "nominal", "title": None, "header": {"labelFontSize": 11},
                  "sort": [f"{w}: {UNIT[k]}" for w, k in kinds]},
        "columns": 3,
        "resolve": {"scale": {"y": "independent"}},
        "spec": {
            "width": 200, "height": 150,
            "mark": {"type": "point", "filled": True, "size": 50, "opacity": 0.8},
            "encoding": {
                "x": {"field": "place", "type": "nominal", "title": None, "sort": places},
                "y": {"field": "value", "type": "quantitative", "title": None},
                "color": {"field": "transport", "type": "nominal", "title": None, "sort": labels},
                "xOffset": {"field": "transport", "type": "nominal", "sort": labels},
            },
        },
    }
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "apps.vl.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=1)
    sys.exit(subprocess.call([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "render-figures.py"), path]))
