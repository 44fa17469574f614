#!/usr/bin/env bash
# How many shards one node holds: runs the same matrix (the same seed: the same cells
# and links) as K shards at once on this machine, K = 1, 2, 4 by default, each copy in
# its own folder with its own link namespaces (--link emulated, as root), and prints,
# against the run alone:
#   - each copy's emulator release error (its measurement floor, p50/p99) and wall time;
#   - per cell, against the same cell run alone: RTT p50's difference (ms), RTT p99 and
#     throughput as ratios; the median over cells x copies and its spread (10th-90th
#     percentile);
#   - the cells' own spread: the same between two runs alone ("1 again").
# Usage: scripts/shard-concurrency.sh [--keep DIR] [--matrix M] [PEERBENCH_BINARY] [K...]
# The machine's load average (uptime) is printed before and after each step: other
# work on the machine moves these figures (docs/UNATTENDED.md, "How many shards a
# node holds"). A node here is the whole machine: `nproc` cores.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
keep= matrix= peerbench= counts=()
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep=$2; shift 2 ;;
        --matrix) matrix=$2; shift 2 ;;
        -*) echo "shard-concurrency: unknown option $1" >&2; exit 64 ;;
        *) if [[ "$1" =~ ^[0-9]+$ ]]; then counts+=("$1"); else peerbench=$1; fi; shift ;;
    esac
done
peerbench=${peerbench:-$repo/.build/release/peerbench}
[ ${#counts[@]} -gt 0 ] || counts=(1 2 4)
[ -x "$peerbench" ] || { echo "shard-concurrency: no peerbench binary at $peerbench" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "shard-concurrency: --link emulated needs root" >&2; exit 2; }
work=$(mktemp -d /tmp/pb-concurrency.XXXXXX)
trap '[ -n "$keep" ] || rm -rf "$work"' EXIT
if [ -z "$matrix" ]; then
    # Part of the field study: tcp, udp and quic at 1 m in two environments (links of
    # about 170 Mbit/s), a small and a large payload (5 000 x 16 KiB: seconds of
    # packets at the link's rate, what keeps an emulator busy).
    matrix=$work/matrix.json
    cat >"$matrix" <<'EOF'
{"name": "shard-concurrency", "repetitions": 1, "rttProbes": 100, "cellTimeoutSeconds": 60, "seed": 3,
 "transports": [{"plugin": "tcp", "label": "tcp", "options": {"congestionControl": "cubic", "noDelay": true}},
                {"plugin": "udp", "label": "udp"}, {"plugin": "quic", "label": "quic"}],
 "matrix": {"environments": ["free-field", "forest"], "distances": [1],
            "payloads": {"counts": [100, 5000], "sizes": [16384]}}}
EOF
fi
echo "machine: $(nproc) cores; $(uptime)"
run_set() {  # name K
    local i pids=() t0=$(date +%s.%N)
    for i in $(seq "$2"); do
        "$peerbench" run "$matrix" --out "$work/$1-$i" --link emulated --quiet 2>"$work/$1-$i.err" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || [ $? -eq 1 ]; done
    echo "$1: $2 at once, $(python3 -c "import time; print(round(time.time() - $t0, 1))") s; $(uptime | sed 's/.*load/load/')"
}
sets=()
for k in "${counts[@]}"; do run_set "k$k" "$k"; sets+=("k$k"); done
run_set again 1
python3 - "$work" "${sets[@]}" <<'EOF'
import json, sys, glob, statistics
work, sets = sys.argv[1], sys.argv[2:]
def runs(name):
    out = []
    for d in sorted(glob.glob(f"{work}/{name}-*/")):
        m = json.load(open(d + "manifest.json"))
        recs = {}
        for line in open(d + "records.jsonl"):
            if line.strip():
                r = json.loads(line)
                recs[(r["cell_id"], r["repetition"])] = r
        out.append((m, recs))
    return out
def rtt(r):
    v = r.get("rtt_ms")
    return v.get("p50") if isinstance(v, dict) else None
def tput(r): return r.get("throughput_mbps")
def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]
solo = runs("k1")[0][1] if glob.glob(f"{work}/k1-*") else None
def compare(name, f, diff=False):
    out = []
    for _, recs in runs(name):
        for k, r in recs.items():
            a, b = f(r), (f(solo[k]) if k in solo else None)
            if a is not None and b:
                out.append(a - b if diff else a / b)
    return out
def rtt99(r):
    v = r.get("rtt_ms")
    return v.get("p99") if isinstance(v, dict) else None
def fmt(xs, digits=2):
    return "n/a" if not xs else f"{statistics.median(xs):.{digits}f} ({pct(xs, 0.1):.{digits}f} to {pct(xs, 0.9):.{digits}f})"
from datetime import datetime
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
print()
print("| shards at once | wall time per shard, median | emulator release p50 / p99 (µs), median of shards | RTT p50 minus alone (ms): median (p10 to p90) | RTT p99 / alone | throughput / alone | cells ok |")
print("|---|---|---|---|---|---|---|")
for name in sets + ["again"]:
    rs = runs(name)
    walls, p50s, p99s, ok, total = [], [], [], 0, 0
    for m, recs in rs:
        f = (m.get("measurement_floor") or {}).get("emulator_release_error") or {}
        if f: p50s.append(f["p50_us"]); p99s.append(f["p99_us"])
        walls.append((t(m["ended_at"]) - t(m["started_at"])).total_seconds())
        ok += sum(1 for r in recs.values() if r["status"] == "ok"); total += len(recs)
    label = name[1:] if name.startswith("k") else "1 (again: run-to-run spread)"
    alone = name == "k1"
    print(f"| {label} | {statistics.median(walls):.1f} s | {statistics.median(p50s) if p50s else 'n/a'} / {statistics.median(p99s) if p99s else 'n/a'} "
          f"| {'0' if alone else fmt(compare(name, rtt, diff=True), 3)} | {'1' if alone else fmt(compare(name, rtt99))} "
          f"| {'1' if alone else fmt(compare(name, tput))} | {ok}/{total} |")
EOF
[ -z "$keep" ] || { mkdir -p "$keep"; cp -r "$work"/. "$keep"/; echo "kept in $keep"; }
