#!/bin/sh
# Loopback RTT floor of every built-in plugin through a real `peerbench run --link none`
# (issue 13 §1): 100 probes of 128 B per cell, 3 repetitions, a fixed `lab` environment.
# Prints per cell p50/p99/max of the probes, max/p50, connect_ms (and QUIC's
# handshake_confirmed_ms), then one line per plugin. A probe that waited for a timer
# of ours or of the protocol (an ACK delay, a pacing wait) shows as max >> p50.
# Usage: scripts/bench-rtt.sh     (PB=path/to/peerbench to skip the debug build)
set -eu
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
if [ -z "${PB:-}" ]; then
    echo "== building peerbench (debug)" >&2
    swift build --product peerbench >&2
    PB=$PWD/.build/debug/peerbench
fi
REPS=${REPS:-3}
cat > "$TMP/matrix.json" <<JSON
{"name": "bench-rtt", "repetitions": $REPS, "rttProbes": 100, "cellTimeoutSeconds": 60, "seed": 1,
 "transports": [
   {"plugin": "tcp", "label": "tcp"},
   {"plugin": "tcp", "label": "tcp-nodelay", "options": {"noDelay": true}},
   {"plugin": "udp", "label": "udp"},
   {"plugin": "tls", "label": "tls"},
   {"plugin": "uwb", "label": "uwb"},
   {"plugin": "quic", "label": "quic"}],
 "matrix": {"environments": [{"name": "lab", "link": {"delayMs": 10, "jitterMs": 1, "lossPercent": 0.5, "rateMbps": 50, "mtu": 1500}}],
            "distances": [1], "payloads": {"counts": [100], "sizes": [128]}}}
JSON
"$PB" run "$TMP/matrix.json" --out "$TMP/run" --link none >&2 || true
echo
echo "Loopback RTT per plugin, peerbench run --link none, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$TMP/run/records.jsonl" <<'PY'
import json, sys, statistics
rows = {}
print("%-12s %3s %-7s %8s %8s %8s %8s %10s %12s" % ("label", "rep", "status", "p50 ms", "p99 ms", "max ms", "max/p50", "connect ms", "hs confirmed"))
for line in open(sys.argv[1]):
    r = json.loads(line)
    label = r["transport"]["label"]
    rtt = r.get("rtt_ms") or {}
    p50, p99, mx = rtt.get("p50"), rtt.get("p99"), rtt.get("max")
    quic = (r.get("extra") or {}).get("quic") or {}
    conf = quic.get("handshake_confirmed_ms")
    f = lambda v: "%.3f" % v if isinstance(v, (int, float)) else "-"
    ratio = mx / p50 if p50 and mx else None
    print("%-12s %3s %-7s %8s %8s %8s %8s %10s %12s" % (label, r.get("repetition"), r.get("status"), f(p50), f(p99), f(mx),
          "%.1f" % ratio if ratio else "-", f(r.get("connect_ms")), f(conf)))
    if p50 is not None:
        rows.setdefault(label, []).append((p50, p99, mx, r.get("connect_ms")))
print()
print("%-12s %12s %12s %12s %12s %14s" % ("plugin", "median p50", "worst p99", "worst max", "max/p50", "median connect"))
for label, v in rows.items():
    p50 = statistics.median(x[0] for x in v)
    worst = max(x[2] for x in v)
    conns = [x[3] for x in v if x[3] is not None]
    print("%-12s %12.3f %12.3f %12.3f %12.1f %14s" % (label, p50, max(x[1] for x in v), worst, worst / p50 if p50 else 0,
          "%.3f" % statistics.median(conns) if conns else "-"))
PY
