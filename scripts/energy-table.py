#!/usr/bin/env python3
"""The README's energy table: per transport label and competing flow, the medians over
a run's ok records of the client's radio-on fraction and energy estimate
(link.radio_on_fraction, link.energy_mj: the model of docs/LINK-MODEL.md section 9),
the cell's wall time, the mean radio power over the cell (energy / wall time), and
the competing flow's goodput.

    energy-table.py RUN_DIR

Prints a markdown table. Exit status: 0 done; 1 no ok record carries an energy
estimate (a run without the emulator); 2 bad usage.
"""
import json
import os
import statistics
import sys

if len(sys.argv) != 2:
    print(f"usage: {os.path.basename(sys.argv[0])} RUN_DIR", file=sys.stderr)
    sys.exit(2)
groups = {}
with open(os.path.join(sys.argv[1], "records.jsonl"), encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        energy = (r.get("link") or {}).get("energy_mj")
        if r.get("status") != "ok" or not energy:
            continue
        cross = r.get("cross_traffic") or {}
        flow = f"{cross['service_class']} {'saturating' if cross.get('offered_mbps') is None else str(cross['offered_mbps']) + ' Mbit/s'}" \
            if cross.get("service_class") else "none"
        g = groups.setdefault((flow != "none", flow, r["transport"]["label"]), {"on": [], "mj": [], "mw": [], "s": [], "bg": []})
        g["on"].append(r["link"]["radio_on_fraction"]["client"])
        g["mj"].append(energy["client"])
        g["s"].append(r["total_seconds"])
        g["mw"].append(energy["client"] / r["total_seconds"])
        if cross.get("goodput_mbps") is not None:
            g["bg"].append(cross["goodput_mbps"])
if not groups:
    print("energy-table: no ok record with link.energy_mj (was the run emulated?)", file=sys.stderr)
    sys.exit(1)
print("| transport | competing flow | n | radio on | energy mJ | cell s | mean power mW | competing goodput Mbit/s |")
print("|---|---|---|---|---|---|---|---|")
for (_, flow, label), g in sorted(groups.items()):
    med = statistics.median
    bg = f"{med(g['bg']):.1f}" if g["bg"] else "—"
    print(f"| {label} | {flow} | {len(g['mj'])} | {med(g['on']):.3f} | {med(g['mj']):.0f} | {med(g['s']):.2f} | {med(g['mw']):.0f} | {bg} |")
