#!/usr/bin/env bash
# What loaded RTT probes cost the throughput they ride on (docs/PERFORMANCE.md,
# "Loaded RTT probes: cost"): each of tcp, tls, udp and quic with and without
# `loadedRttProbes` (100 ms) on the same emulated 50 Mbit/s, 10 ms link, interleaved,
# REPS repetitions: on the data's own flow for all four, and on a separate flow
# (a second connection or socket pair) for all four. Prints median throughput with/without and
# their ratio, and the loaded RTT and responsiveness the probes measured.
#   scripts/loaded-probe-cost.sh [OUT_DIR] [REPS]     (needs root for the emulated link)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/peerbench-loaded-probe-cost}
reps=${2:-3}
bin=${PEERBENCH:-.build/debug/peerbench}
[ -x "$bin" ] || swift build --product peerbench
matrix=$(mktemp --suffix=.json)
trap 'rm -f "$matrix"' EXIT
cat > "$matrix" <<JSON
{"name": "loaded-probe-cost", "repetitions": $reps, "rttProbes": 20, "cellTimeoutSeconds": 60, "seed": 7, "order": "interleaved",
 "transports": [
  {"plugin": "tcp", "label": "tcp"},
  {"plugin": "tcp", "label": "tcp-probes", "options": {"loadedRttProbes": {"intervalMs": 100}}},
  {"plugin": "tls", "label": "tls"},
  {"plugin": "tls", "label": "tls-probes", "options": {"loadedRttProbes": {"intervalMs": 100}}},
  {"plugin": "udp", "label": "udp", "options": {"rateMbps": 40}},
  {"plugin": "tcp", "label": "tcp-separate", "options": {"loadedRttProbes": {"intervalMs": 100, "flow": "separate"}}},
  {"plugin": "tls", "label": "tls-separate", "options": {"loadedRttProbes": {"intervalMs": 100, "flow": "separate"}}},
  {"plugin": "udp", "label": "udp-probes", "options": {"rateMbps": 40, "loadedRttProbes": {"intervalMs": 100}}},
  {"plugin": "udp", "label": "udp-separate", "options": {"rateMbps": 40, "loadedRttProbes": {"intervalMs": 100, "flow": "separate"}}},
  {"plugin": "quic", "label": "quic"},
  {"plugin": "quic", "label": "quic-probes", "options": {"loadedRttProbes": {"intervalMs": 100}}},
  {"plugin": "quic", "label": "quic-separate", "options": {"loadedRttProbes": {"intervalMs": 100, "flow": "separate"}}}],
 "matrix": {"environments": [{"name": "lab-50mbit-10ms", "link": {"rateMbps": 50, "delayMs": 10, "mtu": 1500}}],
            "distances": [1], "payloads": {"counts": [1500], "sizes": [16384]}}}
JSON
rm -rf "$out"
"$bin" run "$matrix" --out "$out" --link emulated --quiet
python3 - "$out/records.jsonl" <<'PY'
import json, statistics, sys
by = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("status") == "ok":
        by.setdefault(r["transport"]["label"], []).append(r)
med = lambda xs: statistics.median(xs) if xs else float("nan")
print(f"{'transport':<8} {'flow':<8} {'Mbit/s off':>10} {'Mbit/s on':>10} {'on/off':>7} {'n':>3}  {'idle RTT p50':>12} {'loaded p50':>10} {'loaded p99':>10} {'probes':>6} {'RPM':>6}")
for base, flow in (("tcp", "same"), ("tcp", "separate"), ("tls", "same"), ("tls", "separate"), ("udp", "same"),
                   ("udp", "separate"), ("quic", "same"), ("quic", "separate")):
    label = base + ("-probes" if flow == "same" else "-separate")
    off, on = by.get(base, []), by.get(label, [])
    a, b = med([r["throughput_mbps"] for r in off]), med([r["throughput_mbps"] for r in on])
    lp50 = med([r["rtt_loaded_ms"]["p50"] for r in on if r["rtt_loaded_ms"]])
    lp99 = med([r["rtt_loaded_ms"]["p99"] for r in on if r["rtt_loaded_ms"]])
    n = med([r["rtt_loaded_ms"]["count"] for r in on if r["rtt_loaded_ms"]])
    rpm = med([r["responsiveness_rpm"] for r in on if r["responsiveness_rpm"]])
    idle = med([r["rtt_ms"]["p50"] for r in off])
    print(f"{base:<8} {flow:<8} {a:>10.2f} {b:>10.2f} {b / a:>7.3f} {min(len(off), len(on)):>3}  {idle:>10.2f}ms {lp50:>8.1f}ms {lp99:>8.1f}ms {n:>6.0f} {rpm:>6.0f}")
PY
