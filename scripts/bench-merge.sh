#!/usr/bin/env bash
# Time and peak memory of `peerbench merge` on a large run: N records (default
# 200 000) in 4 shard folders, made from a real record of a one-cell loopback run.
# Usage: scripts/bench-merge.sh [RECORDS] [REFERENCE_PEERBENCH]
# DuckDB reads the same shards, drops exact duplicates and writes the merged JSONL and a
# CSV (scripts/duckdb-reference.py merge) in the same run; the ratio of the wall times is
# printed. With REFERENCE_PEERBENCH (e.g. a build of an older commit), it is measured on
# the same folders in the same run and the ratios printed. Uses /usr/bin/time -v.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-200000}
reference=${2:-}
peerbench=${PEERBENCH:-$repo/.build/release/peerbench}
[ -x "$peerbench" ] || peerbench=$repo/.build/debug/peerbench
[ -x "$peerbench" ] || { echo "bench-merge: build peerbench first (swift build -c release)" >&2; exit 2; }
python=$("$repo/scripts/duckdb-env.sh")
work=$(mktemp -d /tmp/pb-bench-merge.XXXXXX)
trap 'rm -rf "$work"' EXIT

cat >"$work/m.json" <<'JSON'
{"name": "bench-merge", "repetitions": 1, "rttProbes": 10, "cellTimeoutSeconds": 30, "seed": 1,
 "transports": [{"plugin": "tcp", "label": "tcp"}],
 "matrix": {"environments": ["free-field"], "distances": [10], "payloads": {"counts": [100], "sizes": [1024]}}}
JSON
"$peerbench" run "$work/m.json" --out "$work/template" --link none --quiet
python3 - "$work" "$n" <<'PY'
import json, os, sys
work, n = sys.argv[1], int(sys.argv[2])
template = json.loads(open(f"{work}/template/records.jsonl").readline())
manifest = json.load(open(f"{work}/template/manifest.json"))
shards = 4
for k in range(1, shards + 1):
    d = f"{work}/shard-{k}-of-{shards}"
    os.makedirs(d)
    m = dict(manifest, shard=f"{k}/{shards}", matrix_cells_total=n, cells_total=len(range(k - 1, n, shards)))
    json.dump(m, open(f"{d}/manifest.json", "w"))
    with open(f"{d}/records.jsonl", "w") as f:
        for i in range(k - 1, n, shards):
            template["cell_id"] = f"{i:016x}"
            f.write(json.dumps(template, separators=(",", ":")) + "\n")
PY
echo "bench-merge: $n records of $(wc -c <"$work/shard-1-of-4/records.jsonl" | awk -v n="$n" '{printf "%d", $1 * 4 / n}') bytes in 4 shards" >&2

measure() {  # label binary -> prints "seconds kib"
    rm -rf "$work/out"
    /usr/bin/time -v "$2" merge "$work"/shard-*-of-4 --out "$work/out" 2>"$work/time.txt" >/dev/null || { cat "$work/time.txt" >&2; exit 1; }
    local wall rss cpu
    wall=$(grep 'Elapsed (wall clock)' "$work/time.txt" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
    rss=$(grep 'Maximum resident set size' "$work/time.txt" | awk '{print $NF}')
    # CPU time (user + system) says more than wall time on a shared machine.
    cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/time.txt")
    [ "$(wc -l <"$work/out/records.jsonl")" -eq "$n" ] || { echo "bench-merge: $1 wrote a wrong number of records" >&2; exit 1; }
    printf '%-10s %8.1f s wall  %8.1f s CPU  %8.1f MiB peak RSS\n' "$1" "$wall" "$cpu" "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" >&2
    echo "$wall $rss"
}
read -r t rss < <(measure merge "$peerbench")
read -r _ _ _ dt _ dcpu _ < <("$python" "$repo/scripts/duckdb-reference.py" merge "$work/duckdb-out" "$work"/shard-*-of-4/records.jsonl)
printf '%-10s %8.1f s wall  %8.1f s CPU\n' duckdb "$dt" "$dcpu" >&2
awk -v t="$t" -v d="$dt" 'BEGIN { printf "bench-merge: merge/duckdb wall %.2f\n", t / d }' >&2
if [ -n "$reference" ]; then
    read -r rt rrss < <(measure reference "$reference")
    python3 -c "import sys; t,r,rt,rr=map(float,sys.argv[1:]); print(f'bench-merge: time {t/rt:.2f}x and peak RSS {r/rr:.2f}x the reference', file=sys.stderr)" "$t" "$rss" "$rt" "$rrss"
fi
