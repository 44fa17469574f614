#!/usr/bin/env python3
"""The README's "back to work after the peer returns" table and figure, from a run of
matrices/reconnect.json (or any run whose cells have link scenarios).

    reconnect-table.py RUN_DIR [OUT_DIR]

Prints two Markdown tables: per transport and scenario, how the cells ended (with
`reconnect`: the median `scenario.reconnect_ms`, from the link's return to the first
byte delivered on the new connection, with its range; without: how the transport
noticed the dead link or rode it out); and per transport, whether every message
arrived exactly once, how often the re-made connection was resumed, and the bytes sent
again. With OUT_DIR, writes OUT_DIR/reconnect-time.vl.json (each cell's reconnect_ms)
and renders it (.svg, .png) with render-figures.py. Exit status: 0 done; 1 no cell
with a scenario in RUN_DIR; 2 bad usage.
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
labels, scenarios, cells = [], [], {}
with open(os.path.join(run, "records.jsonl"), encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        s = r.get("scenario") or {}
        if not s or s.get("kind") == "static":
            continue
        label, name = r["transport"]["label"], s["name"]
        if label not in labels:
            labels.append(label)
        if name not in scenarios:
            scenarios.append(name)
        cells.setdefault((label, name), []).append(r)
if not cells:
    print(f"reconnect-table: no cell with a link scenario in {run}", file=sys.stderr)
    sys.exit(1)


def ms(values):
    """Median and range of a list of ms, as text."""
    if not values:
        return "–"
    m = statistics.median(values)
    if len(values) == 1 or min(values) == max(values):
        return f"{m:,.0f}".replace(",", " ")
    return f"{m:,.0f} ({min(values):,.0f}–{max(values):,.0f})".replace(",", " ")


def outcome(rs):
    """One table cell: what happened to these repetitions."""
    n = len(rs)
    sc = [r["scenario"] for r in rs]
    reconnected = [s["reconnect_ms"] for s in sc if (s.get("reconnects") or 0) > 0 and s.get("reconnect_ms") is not None]
    redone = sum(1 for s in sc if (s.get("reconnects") or 0) > 0)
    survived = sum(1 for s in sc if s.get("survived"))
    if redone:
        return f"{ms(reconnected)}; {redone}/{n} reconnected, {survived}/{n} complete"
    died = [s["detect_ms"] for s in sc if s.get("survived") is False and s.get("detect_ms") is not None]
    if died:
        return f"gave up after {ms(died)}; {survived}/{n} complete"
    stalls = [s["stall_ms"] for s in sc if s.get("stall_ms") is not None]
    return f"rode it out, stall {ms(stalls)}; {survived}/{n} complete"


print("| reconnect_ms, median (range); cells | " + " | ".join(scenarios) + " |")
print("|---|" + "---|" * len(scenarios))
for label in labels:
    print(f"| {label} | " + " | ".join(outcome(cells.get((label, s), [])) if cells.get((label, s)) else "–" for s in scenarios) + " |")
print()
print("| transport | cells ok | messages once (received = sent, no duplicates) | resumed | resent, median MB |")
print("|---|---|---|---|---|")
for label in labels:
    rs = [r for s in scenarios for r in cells.get((label, s), [])]
    ok = sum(1 for r in rs if r["status"] == "ok")
    once = sum(1 for r in rs if (d := r.get("delivery")) and d["received_messages"] == d["sent_messages"]
               and not d.get("duplicated") and not (r["scenario"].get("duplicates") or 0))
    resumed = [r["scenario"].get("resumed") for r in rs if r["scenario"].get("resumed") is not None]
    resent = [r["scenario"]["resent_bytes"] / 1e6 for r in rs if r["scenario"].get("resent_bytes") is not None]
    resumed_text = f"{sum(resumed)}/{len(resumed)}" if resumed else "–"
    resent_text = f"{statistics.median(resent):.2f}" if resent else "–"
    print(f"| {label} | {ok}/{len(rs)} | {once}/{len(rs)} | {resumed_text} | {resent_text} |")

if len(sys.argv) == 3:
    out = sys.argv[2]
    rows = [{"transport": label, "scenario": name, "reconnect_ms": r["scenario"]["reconnect_ms"]}
            for (label, name), rs in cells.items() for r in rs if r["scenario"].get("reconnect_ms") is not None]
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": "Time back to work after the peer returns: each cell's reconnect_ms",
        "width": 560, "height": 220,
        "data": {"values": rows},
        "mark": {"type": "point", "filled": True, "size": 60, "opacity": 0.8},
        "encoding": {
            "x": {"field": "reconnect_ms", "type": "quantitative", "title": "ms from the link's return to the first byte on the new connection"},
            "y": {"field": "transport", "type": "nominal", "title": None, "sort": labels},
            "color": {"field": "scenario", "type": "nominal", "title": None, "sort": scenarios},
        },
    }
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "reconnect-time.vl.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=1)
    sys.exit(subprocess.call([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "render-figures.py"), path]))
