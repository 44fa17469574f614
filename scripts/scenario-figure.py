#!/usr/bin/env python3
"""The README's scenario figure: each transport's receiver throughput per 100 ms in
the cells of one scenario and environment of a run, from the run's own records and
samples (the bulk series of docs/RECORDS.md), rendered by render-figures.py.

    scenario-figure.py RUN_DIR SCENARIO ENVIRONMENT OUT_DIR

Writes OUT_DIR/scenario-SCENARIO-ENVIRONMENT.vl.json and, beside it, .svg and .png.
Time runs from each cell's first bulk byte (the series' origin), so the stall sits
where the event met that cell's bulk phase. Exit status: 0 done; 1 no cell of that
scenario and environment has a bulk series; 2 bad usage.
"""
import json
import os
import subprocess
import sys

if len(sys.argv) != 5:
    print(f"usage: {os.path.basename(sys.argv[0])} RUN_DIR SCENARIO ENVIRONMENT OUT_DIR", file=sys.stderr)
    sys.exit(2)
run, scenario, environment, out = sys.argv[1:]
cells = {}
with open(os.path.join(run, "records.jsonl"), encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        if (r.get("scenario") or {}).get("name") == scenario and r["environment"] == environment:
            cells[(r["run_id"], r["cell_id"], r["repetition"])] = r
rows = []
with open(os.path.join(run, "samples.jsonl"), encoding="utf-8") as f:
    for line in f:
        s = json.loads(line)
        r = cells.get((s["run_id"], s["cell_id"], s["repetition"]))
        series = s.get("bulk_series")
        if not r or not series:
            continue
        label = r["transport"]["label"]
        stall = r["scenario"].get("stall_ms")
        name = f"{label} (stall {stall / 1000:.1f} s)" if stall else label
        for i, b in enumerate(series["bytes"]):
            rows.append({"t": round(i * 0.1, 1), "mbps": round(b * 8 / 0.1 / 1e6, 2), "transport": name})
if not rows:
    print(f"scenario-figure: no cell of scenario {scenario!r} in {environment!r} has a bulk series in {run}", file=sys.stderr)
    sys.exit(1)
spec = {
    "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
    "title": f"{scenario} in {environment}: receiver throughput per 100 ms",
    "width": 640, "height": 260,
    "data": {"values": rows},
    "mark": {"type": "line", "interpolate": "step-after"},
    "encoding": {
        "x": {"field": "t", "type": "quantitative", "title": "seconds since the cell's first bulk byte"},
        "y": {"field": "mbps", "type": "quantitative", "title": "Mbit/s"},
        "color": {"field": "transport", "type": "nominal", "title": None},
    },
}
os.makedirs(out, exist_ok=True)
path = os.path.join(out, f"scenario-{scenario}-{environment}.vl.json")
with open(path, "w", encoding="utf-8") as f:
    json.dump(spec, f, indent=1)
sys.exit(subprocess.call([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "render-figures.py"), path]))
