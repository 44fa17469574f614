#!/bin/sh
# Benchmarks the QUIC plugin on loopback and prints figures and ratios:
#   - our handshake (median of 200) and one-stream bulk goodput (100 MiB, best of 3),
#     per-message streams, and peak memory of a 100 000 x 16 384-byte transfer
#     (Benchmarks/QUICBench, the `quic-bench` executable);
#   - Debian's ngtcp2 example tools: gtlsserver -> gtlsclient 100 MiB HTTP/3 download;
#   - aioquic <-> aioquic running the same protocol (Tests/Interop/peerbench_quic_peer.py);
#   - the TCP plugin through `peerbench run --link none`, when the CLI and plugin exist.
# Everything runs in the same invocation, on 127.0.0.1 only.
# Each round measures ours, gtls and aioquic back to back; figures are the best round.
# Usage: scripts/bench-quic.sh            (RUNS=3 rounds by default)
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
CERTS=$ROOT/certs
RUNS=${RUNS:-3}
TMP=$(mktemp -d)
PIDS=""
cleanup() { for p in $PIDS; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now_ns() { date +%s%N; }

echo "== building (release)" >&2
swift build -c release --product quic-bench >&2
BIN=$ROOT/.build/release/quic-bench

# One benchmark in a fresh process (Benchmarks/QUICBench); its BENCH lines.
bench() { "$BIN" "$1" | grep '^BENCH' || echo "quic-bench $1 failed" >&2; }
best() { python3 -c "import sys; v = [float(x) for x in sys.argv[1:] if x]; print('%.3f' % max(v) if v else '')" "$@"; }
lowest() { python3 -c "import sys; v = [float(x) for x in sys.argv[1:] if x]; print('%.3f' % min(v) if v else '')" "$@"; }
fig() { awk -v k="$1" '$2 == k { print $3 }' "$TMP/ours" | tail -1; }
figs() { awk -v k="$1" '$2 == k { print $3 }' "$TMP/ours"; }

# The references, one transfer per call.
SERVER=$(command -v gtlsserver || echo /usr/sbin/gtlsserver)
HAVE_GTLS=""
if command -v gtlsclient >/dev/null && [ -x "$SERVER" ]; then
    HAVE_GTLS=1
    mkdir -p "$TMP/htdocs"
    head -c 104857600 /dev/zero > "$TMP/htdocs/100m"
    GPORT=$(free_port)
    "$SERVER" -q --no-quic-dump --no-http-dump -d "$TMP/htdocs" 127.0.0.1 "$GPORT" "$CERTS/server-key.pem" "$CERTS/server.pem" >/dev/null 2>&1 &
    PIDS="$PIDS $!"
    sleep 0.5
else
    echo "gtlsclient/gtlsserver not installed (apt-get install ngtcp2-client ngtcp2-server)" >&2
fi
gtls_once() {
    s=$(now_ns)
    gtlsclient -q --no-quic-dump --no-http-dump --exit-on-all-streams-close 127.0.0.1 "$GPORT" "https://127.0.0.1:$GPORT/100m" >/dev/null 2>&1
    e=$(now_ns)
    python3 -c "print('%.3f' % (104857600 / (($e - $s) / 1e9) / 1e6))"
}
HAVE_AIO=""
python3 -c 'import aioquic' 2>/dev/null && HAVE_AIO=1 || echo "aioquic not installed (pip install aioquic)" >&2
PEER=$ROOT/Tests/Interop/peerbench_quic_peer.py
aio_once() {
    python3 "$PEER" server --certs "$CERTS" --timeout 120 > "$TMP/aio-server" 2>&1 &
    AIO_PID=$!
    PIDS="$PIDS $AIO_PID"
    n=0
    while ! grep -q LISTENING "$TMP/aio-server" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    APORT=$(awk '/LISTENING/ { print $2 }' "$TMP/aio-server")
    python3 "$PEER" client --certs "$CERTS" --port "$APORT" --probes 10 --count 1600 --size 16384 \
        | python3 -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["goodput_MBps"])'
    wait "$AIO_PID" 2>/dev/null || true
}

# Rounds: each measures every side once, back to back, so a burst of load from
# elsewhere on the machine does not favour one of them. Best of the rounds.
: > "$TMP/ours"
GTLS_ALL=""
AIO_ALL=""
i=1
while [ $i -le "$RUNS" ]; do
    echo "== round $i of $RUNS" >&2
    bench handshake >> "$TMP/ours"
    bench bulk1 >> "$TMP/ours"
    echo "ours: handshake median $(fig quic_handshake_median_ms) ms, one stream $(fig quic_bulk_single_MBps) MB/s" >&2
    if [ -n "$HAVE_GTLS" ]; then
        r=$(gtls_once); GTLS_ALL="$GTLS_ALL $r"
        echo "gtlsserver -> gtlsclient: $r MB/s (wall time of gtlsclient, start-up and handshake included)" >&2
    fi
    if [ -n "$HAVE_AIO" ]; then
        r=$(aio_once); AIO_ALL="$AIO_ALL $r"
        echo "aioquic <-> aioquic: $r MB/s" >&2
    fi
    i=$((i + 1))
done
GTLS=$(best $GTLS_ALL)
AIO=$(best $AIO_ALL)
OURS=$(best $(figs quic_bulk_single_MBps))
HS=$(lowest $(figs quic_handshake_median_ms))
HS_ALL=$(figs quic_handshake_median_ms | tr '\n' ' ')
HS90=$(lowest $(figs quic_handshake_p90_ms))
echo "== stream per message; memory of a 100 000 x 16 384-byte transfer (fresh process)" >&2
bench perMessage >> "$TMP/ours"
bench memory >> "$TMP/ours"

echo "== TCP plugin through peerbench run --link none (if available)" >&2
TCP=""
QUIC_CLI=""
PB=$ROOT/.build/release/peerbench
if swift build -c release --product peerbench >&2 && "$PB" list 2>/dev/null | grep -qE '^ *tcp\b'; then
    # Both transports through the runner when the CLI offers quic; TCP alone otherwise.
    TRANSPORTS='{"plugin": "tcp", "label": "tcp"}'
    if "$PB" list 2>/dev/null | grep -qE '^ *quic\b'; then TRANSPORTS="$TRANSPORTS, {\"plugin\": \"quic\", \"label\": \"quic\"}"; fi
    cat > "$TMP/matrix.json" <<JSON
{"name": "bench-quic", "repetitions": $RUNS, "rttProbes": 10, "cellTimeoutSeconds": 120, "seed": 1,
 "transports": [$TRANSPORTS],
 "matrix": {"environments": [{"name": "loopback", "link": {}}], "distances": [1],
            "payloads": {"counts": [6400], "sizes": [16384]}}}
JSON
    if "$PB" run "$TMP/matrix.json" --out "$TMP/run" --link none >&2; then
        python3 - "$TMP/run/records.jsonl" > "$TMP/cli" <<'PY'
import json, sys
best = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("status") == "ok" and r.get("throughput_mbps"):
        label = r["transport"]["label"]
        best[label] = max(best.get(label, 0), r["throughput_mbps"] / 8)
print("%s %s" % ("%.3f" % best["tcp"] if "tcp" in best else "", "%.3f" % best["quic"] if "quic" in best else ""))
PY
        TCP=$(cut -d' ' -f1 "$TMP/cli")
        QUIC_CLI=$(cut -d' ' -f2 "$TMP/cli")
    fi
else
    echo "peerbench CLI or TCP plugin not available: no TCP ratio" >&2
fi

echo
echo "QUIC plugin benchmark, loopback, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-58s %12s\n' "figure" "value"
printf '%-58s %12s\n' "handshake median (ms), 200 per round, best round" "$HS"
printf '%-58s %12s\n' "  every round's median (ms)" "$HS_ALL"
printf '%-58s %12s\n' "handshake p90 (ms), best round" "$HS90"
printf '%-58s %12s\n' "bulk goodput, one stream, 100 MiB (MB/s, best of $RUNS)" "$OURS"
printf '%-58s %12s\n' "bulk goodput, stream per message, 100 MiB (MB/s)" "$(fig quic_bulk_perMessage_MBps)"
printf '%-58s %12s\n' "100000 x 16384 B goodput (MB/s)" "$(fig quic_100000x16384_MBps)"
printf '%-58s %12s\n' "100000 x 16384 B peak RSS (MB, limit 100)" "$(fig quic_100000x16384_peak_rss_MB)"
printf '%-58s %12s\n' "gtlsserver -> gtlsclient 100 MiB (MB/s, best of $RUNS)" "${GTLS:-n/a}"
printf '%-58s %12s\n' "aioquic <-> aioquic 26 MB (MB/s, best of $RUNS)" "${AIO:-n/a}"
printf '%-58s %12s\n' "TCP plugin via peerbench run, 100 MiB (MB/s)" "${TCP:-n/a}"
printf '%-58s %12s\n' "QUIC plugin via peerbench run, 100 MiB (MB/s)" "${QUIC_CLI:-n/a}"
ratio() { python3 -c "a, b = '$1', '$2'; print(f'{float(a) / float(b):.2f}x' if a and b and float(b) > 0 else 'n/a')"; }
printf '%-58s %12s   (target >= 1.0x)\n' "ratio: ours / gtls" "$(ratio "$OURS" "$GTLS")"
printf '%-58s %12s   (target >= 20x)\n' "ratio: ours / aioquic" "$(ratio "$OURS" "$AIO")"
if [ -n "$QUIC_CLI" ]; then
    printf '%-58s %12s\n' "ratio: QUIC / TCP (both via peerbench run)" "$(ratio "$QUIC_CLI" "$TCP")"
else
    printf '%-58s %12s\n' "ratio: QUIC (bench harness) / TCP (peerbench run)" "$(ratio "$OURS" "$TCP")"
fi
printf '%-58s %12s   (target <= 1.5 ms)\n' "handshake median (ms)" "$HS"
