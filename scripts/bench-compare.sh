#!/usr/bin/env bash
# Time and peak memory of `peerbench compare` on a large journal (docs/COMPARE.md,
# "Scale"): generates RECORDS records (default 200 000: 5 transports x 10 repetitions
# x 4 000 scenarios, uwb-like and failed cells included) from a real record's layout,
# then runs `compare --format json` (text for REF) under /usr/bin/time -v, and DuckDB's
# group-by of the same file (scripts/duckdb-reference.py) in the same run: the ratio
# of the two wall times is the figure docs/PERFORMANCE.md keeps. With REF=path/to/peerbench
# (an older build), the same journal is measured with it too (the same --format json; an
# old build without it: REF_FORMAT=text) and the ratios printed. ROUNDS=N (default 1)
# repeats the three measurements in turn, REF, this build and DuckDB alternating, so a
# shared machine's drift does not favour one of them.
#
#   scripts/bench-compare.sh                       # release build of this tree
#   REF=/tmp/peerbench-old ROUNDS=3 scripts/bench-compare.sh
#   BIN=.build/debug/peerbench RECORDS=50000 scripts/bench-compare.sh
set -euo pipefail
cd "$(dirname "$0")/.."
records="${RECORDS:-200000}"
if [ -z "${BIN:-}" ]; then
  swift build -c release --product peerbench >/dev/null
  BIN=.build/release/peerbench
fi
python=$(scripts/duckdb-env.sh)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/run"

python3 - "$records" "$work/run/records.jsonl" <<'PY'
import json, random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(1)
labels = ["tcp", "tcp-nodelay", "udp", "quic", "tls"]
reps = 10
null_link = {k: None for k in ["delay_ms", "jitter_ms", "loss_percent", "rate_mbps", "mtu", "rssi_dbm", "snr_db", "mcs",
                               "phy_rate_mbps", "packets_up", "packets_down", "bytes_up", "bytes_down", "drops_up", "drops_down"]}
with open(path, "w") as f:
    i = 0
    scenario = 0
    while i < n:
        env, dist, count, size = f"env{scenario // 400}", str(scenario // 40 % 10), 10 ** (1 + scenario % 4), [128, 4096, 16384, 1024, 512, 256, 2048, 8192, 64, 32][scenario // 4 % 10]
        for li, label in enumerate(labels):
            for rep in range(1, reps + 1):
                if i >= n:
                    break
                ok = rng.random() > 0.02
                mbps = 50 + 10 * li + rng.gauss(0, 5)
                rec = {"schema": "peerbench.record/1", "run_id": "bench", "cell_id": f"{scenario:08x}{li:08x}", "repetition": rep,
                       "seed": rep, "transport": {"plugin": label.split("-")[0], "label": label, "options": {"noDelay": label.endswith("nodelay")}},
                       "environment": env, "distance_m": float(dist), "distance_label": dist, "payload": {"count": count, "size": size},
                       "link": dict(null_link, mode="emulated", delay_ms=1, rate_mbps=300, mtu=1484),
                       "status": "ok" if ok else "failed", "error": None if ok else "cell deadline reached during the bulk phase",
                       "started_at": "2026-11-23T01:58:55.525Z", "connect_ms": 2 + rng.random(), "bulk_seconds": 0.5, "total_seconds": 1.2,
                       "rtt_ms": {"count": 100, "min": 1.1, "mean": 2.3, "p50": 2 + rng.random(), "p90": 3.0, "p99": 3 + rng.random(), "max": 4.0, "stddev": 0.5},
                       "jitter_ms": {"ipdv_mean": rng.random(), "rfc3550": None}, "throughput_mbps": mbps if ok else None,
                       "delivery": {"sent_messages": count, "received_messages": count, "sent_bytes": count * size, "received_bytes": count * size,
                                    "loss_ratio": 0, "reordered": 0, "duplicated": 0},
                       "extra": {"tcp": {"retransmits": 0, "lost": 0, "rtt_us": 2490, "rttvar_us": 424, "snd_cwnd": 41, "snd_mss": 1432,
                                         "pmtu": 1484, "segs_out": 34, "segs_in": 28, "bytes_acked": 13675, "bytes_retrans": 0},
                                 "link_drops": {"loss": 0, "off_channel": 0, "queue": 0, "sender_queue": 0}}}
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
                i += 1
        scenario += 1
PY
size=$(du -h "$work/run/records.jsonl" | cut -f1)
echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $records records ($size) in $work/run"

measure() {  # BINARY FORMAT: prints "wall_seconds cpu_seconds peak_kB"
  /usr/bin/time -v "$1" compare "$work/run" --format "$2" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
  local wall cpu rss
  wall=$(grep "Elapsed (wall clock)" "$work/time.txt" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/time.txt")
  rss=$(grep "Maximum resident set size" "$work/time.txt" | awk '{print $NF}')
  echo "$wall $cpu $rss"
}
# Both use every core: wall time is the figure; CPU time (user + system) is shown too.
mb() { awk -v a="$1" 'BEGIN { print a / 1024 }'; }
for round in $(seq 1 "${ROUNDS:-1}"); do
  [ "${ROUNDS:-1}" -gt 1 ] && echo "# round $round"
  if [ -n "${REF:-}" ]; then
    read -r rt rcpu rrss < <(measure "$REF" "${REF_FORMAT:-json}")
    printf "compare %-40s wall %8.2f s  cpu %8.2f s  peak RSS %8.1f MB\n" "$REF (reference, ${REF_FORMAT:-json})" "$rt" "$rcpu" "$(mb "$rrss")"
  fi
  read -r t cpu rss < <(measure "$BIN" json)
  printf "compare %-40s wall %8.2f s  cpu %8.2f s  peak RSS %8.1f MB\n" "$BIN" "$t" "$cpu" "$(mb "$rss")"
  read -r _ _ _ dt _ dcpu _ < <("$python" scripts/duckdb-reference.py compare "$work/run/records.jsonl")
  printf "duckdb  %-40s wall %8.2f s  cpu %8.2f s\n" "group by scenario and label" "$dt" "$dcpu"
  printf "ratio compare/duckdb: wall %.2f, cpu %.2f\n" "$(awk -v a="$t" -v b="$dt" 'BEGIN { print a / b }')" "$(awk -v a="$cpu" -v b="$dcpu" 'BEGIN { print a / b }')"
  if [ -n "${REF:-}" ]; then
    printf "ratio reference/duckdb: wall %.2f\n" "$(awk -v a="$rt" -v b="$dt" 'BEGIN { print a / b }')"
    printf "ratio this/reference: wall %.2f, cpu %.2f, peak RSS %.2f\n" "$(awk -v a="$t" -v b="$rt" 'BEGIN { print a / b }')" \
      "$(awk -v a="$cpu" -v b="$rcpu" 'BEGIN { print a / b }')" "$(awk -v a="$rss" -v b="$rrss" 'BEGIN { print a / b }')"
  fi
done
