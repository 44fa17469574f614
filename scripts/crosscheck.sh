#!/usr/bin/env bash
# Cross-checks against independent tools on the same emulated links, interleaved
# (docs/PERFORMANCE.md, "Cross-checks"): tcp and udp against iperf3, quic against
# aioquic (an independent implementation of PeerBench's QUIC protocol) and against
# ngtcp2's own example tools (gtlsserver/gtlsclient, HTTP/3), on a lossless
# 50 Mbit/s 10 ms link, the same link with 2 % loss, and the built-in free-field
# environment at 10 m. Prints median throughput and RTT side by side with ratios.
#   scripts/crosscheck.sh [OUT_DIR] [REPS]     (needs root; iperf3, aioquic, ngtcp2-client/-server)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/peerbench-crosscheck}
reps=${2:-3}
bin=${PEERBENCH:-.build/debug/peerbench}
[ -x "$bin" ] || swift build --product peerbench
for tool in iperf3 gtlsserver gtlsclient; do command -v "$tool" >/dev/null || { echo "crosscheck: $tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }; done
python3 -c 'import aioquic' 2>/dev/null || { echo "crosscheck: the aioquic module is missing (scripts/setup.sh installs it)" >&2; exit 2; }
matrix=$(mktemp --suffix=.json)
trap 'rm -f "$matrix"' EXIT
cat > "$matrix" <<JSON
{"name": "crosscheck", "repetitions": $reps, "rttProbes": 50, "cellTimeoutSeconds": 90, "seed": 11, "order": "interleaved",
 "transports": [
  {"plugin": "tcp",  "label": "tcp"},
  {"plugin": "exec", "label": "iperf3-tcp",
   "options": {"server": ["plugins/iperf3/iperf3-peer", "server"], "client": ["plugins/iperf3/iperf3-peer", "client", "--tcp"]}},
  {"plugin": "udp",  "label": "udp", "options": {"rateMbps": 40}},
  {"plugin": "exec", "label": "iperf3-udp",
   "options": {"server": ["plugins/iperf3/iperf3-peer", "server"], "client": ["plugins/iperf3/iperf3-peer", "client", "--udp", "--bitrate", "40M"]}},
  {"plugin": "quic", "label": "quic"},
  {"plugin": "exec", "label": "aioquic",
   "options": {"server": ["plugins/crosscheck/aioquic-peer", "server"], "client": ["plugins/crosscheck/aioquic-peer", "client"]}},
  {"plugin": "exec", "label": "ngtcp2-tools",
   "options": {"server": ["plugins/crosscheck/ngtcp2-peer", "server"], "client": ["plugins/crosscheck/ngtcp2-peer", "client"]}}],
 "matrix": {"environments": [
    {"name": "lab-50mbit-10ms", "link": {"rateMbps": 50, "delayMs": 10, "mtu": 1500}},
    {"name": "lab-50mbit-10ms-loss2", "link": {"rateMbps": 50, "delayMs": 10, "lossPercent": 2, "mtu": 1500}},
    "free-field"],
  "distances": [10], "payloads": {"counts": [600], "sizes": [16384]}}}
JSON
rm -rf "$out"
"$bin" run "$matrix" --out "$out" --link emulated --quiet || true
python3 - "$out/records.jsonl" <<'PY'
import json, statistics, sys
cells = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    cells.setdefault((r["environment"], r["transport"]["label"]), []).append(r)
def med(env, label, f):
    xs = [f(r) for r in cells.get((env, label), []) if r["status"] == "ok" and f(r) is not None]
    return (statistics.median(xs) if xs else None), len(xs)
def fmt(x, d=2):
    return "-" if x is None else f"{x:.{d}f}"
envs = sorted({e for e, _ in cells}, key=["lab-50mbit-10ms", "lab-50mbit-10ms-loss2", "free-field"].index)
pairs = [("tcp", "iperf3-tcp"), ("udp", "iperf3-udp"), ("quic", "aioquic"), ("quic", "ngtcp2-tools")]
print("| environment | ours | reference | Mbit/s ours | Mbit/s ref | ratio | RTT p50 ours (ms) | RTT p50 ref (ms) | ratio | n |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---|")
for env in envs:
    for a, b in pairs:
        ta, na = med(env, a, lambda r: r["throughput_mbps"]); tb, nb = med(env, b, lambda r: r["throughput_mbps"])
        ra, _ = med(env, a, lambda r: r["rtt_ms"] and r["rtt_ms"]["p50"]); rb, _ = med(env, b, lambda r: r["rtt_ms"] and r["rtt_ms"]["p50"])
        tr = ta / tb if ta and tb else None
        rr = ra / rb if ra and rb else None
        print(f"| {env} | {a} | {b} | {fmt(ta)} | {fmt(tb)} | {fmt(tr, 3)} | {fmt(ra, 3)} | {fmt(rb, 3)} | {fmt(rr, 3)} | {na}/{nb} |")
bad = [(e, l, r["status"], (r["error"] or "")[:160]) for (e, l), rs in cells.items() for r in rs if r["status"] != "ok"]
for b in bad:
    print("not ok:", *b)
PY
