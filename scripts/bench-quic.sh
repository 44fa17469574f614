#!/bin/sh
# Benchmarks the QUIC plugin on loopback and prints figures and ratios:
#   - our handshake (median of 200) and one-stream bulk goodput (100 MiB, best of 3),
#     per-message streams, and peak memory of a 100 000 x 16 384-byte transfer;
#   - Debian's ngtcp2 example tools: gtlsserver -> gtlsclient 100 MiB HTTP/3 download;
#   - aioquic <-> aioquic running the same protocol (Tests/Interop/peerbench_quic_peer.py);
#   - the TCP plugin through `peerbench run --link none`, when the CLI and plugin exist.
# Everything runs in the same invocation, on 127.0.0.1 only.
# Usage: scripts/bench-quic.sh            (RUNS=3 by default for the external tools)
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
# -enable-testing: other test targets may use @testable imports, which a plain release build rejects.
swift build -c release --build-tests -Xswiftc -enable-testing >&2
BIN=$ROOT/.build/release/PeerBenchPackageTests.xctest

echo "== PeerBench QUIC (ngtcp2 + GnuTLS)" >&2
PEERBENCH_QUIC_BENCH=handshake "$BIN" --testing-library swift-testing --filter QUICBenchmarkTests 2>&1 | grep '^BENCH' > "$TMP/ours" || true
PEERBENCH_QUIC_BENCH=bulk "$BIN" --testing-library swift-testing --filter QUICBenchmarkTests 2>&1 | grep '^BENCH' >> "$TMP/ours" || true
# Memory in a fresh process, so the peak belongs to this transfer alone.
PEERBENCH_QUIC_BENCH=memory "$BIN" --testing-library swift-testing --filter QUICBenchmarkTests 2>&1 | grep '^BENCH' >> "$TMP/ours" || true
cat "$TMP/ours" >&2
fig() { awk -v k="$1" '$2 == k { print $3 }' "$TMP/ours"; }

echo "== gtlsserver -> gtlsclient, 100 MiB HTTP/3 download" >&2
GTLS=""
if command -v gtlsclient >/dev/null && { command -v gtlsserver >/dev/null || [ -x /usr/sbin/gtlsserver ]; }; then
    SERVER=$(command -v gtlsserver || echo /usr/sbin/gtlsserver)
    mkdir -p "$TMP/htdocs"
    head -c 104857600 /dev/zero > "$TMP/htdocs/100m"
    PORT=$(free_port)
    "$SERVER" -q --no-quic-dump --no-http-dump -d "$TMP/htdocs" 127.0.0.1 "$PORT" "$CERTS/server-key.pem" "$CERTS/server.pem" >/dev/null 2>&1 &
    PIDS="$PIDS $!"
    sleep 0.5
    i=0
    while [ $i -lt "$RUNS" ]; do
        s=$(now_ns)
        gtlsclient -q --no-quic-dump --no-http-dump --exit-on-all-streams-close 127.0.0.1 "$PORT" "https://127.0.0.1:$PORT/100m" >/dev/null 2>&1
        e=$(now_ns)
        r=$(python3 -c "print(f'{104857600 / (($e - $s) / 1e9) / 1e6:.3f}')")
        echo "gtls run $((i + 1)): $r MB/s (wall time of gtlsclient, handshake and start-up included)" >&2
        GTLS=$(python3 -c "print(max(float('${GTLS:-0}'), $r))")
        i=$((i + 1))
    done
else
    echo "gtlsclient/gtlsserver not installed (apt-get install ngtcp2-client ngtcp2-server)" >&2
fi

echo "== aioquic <-> aioquic, same protocol, 1600 x 16384 bytes on one stream" >&2
AIO=""
if python3 -c 'import aioquic' 2>/dev/null; then
    PEER=$ROOT/Tests/Interop/peerbench_quic_peer.py
    i=0
    while [ $i -lt "$RUNS" ]; do
        python3 "$PEER" server --certs "$CERTS" --timeout 120 > "$TMP/aio-server" 2>&1 &
        AIO_PID=$!
        PIDS="$PIDS $AIO_PID"
        n=0
        while ! grep -q LISTENING "$TMP/aio-server" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
        PORT=$(awk '/LISTENING/ { print $2 }' "$TMP/aio-server")
        r=$(python3 "$PEER" client --certs "$CERTS" --port "$PORT" --probes 10 --count 1600 --size 16384 \
            | python3 -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["goodput_MBps"])')
        echo "aioquic run $((i + 1)): $r MB/s" >&2
        AIO=$(python3 -c "print(max(float('${AIO:-0}'), $r))")
        wait "$AIO_PID" 2>/dev/null || true
        i=$((i + 1))
    done
else
    echo "aioquic not installed (pip install aioquic)" >&2
fi

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
printf '%-58s %12s\n' "handshake median (ms), 200 handshakes" "$(fig quic_handshake_median_ms)"
printf '%-58s %12s\n' "handshake p90 (ms)" "$(fig quic_handshake_p90_ms)"
printf '%-58s %12s\n' "bulk goodput, one stream, 100 MiB (MB/s, best of 3)" "$(fig quic_bulk_single_MBps)"
printf '%-58s %12s\n' "bulk goodput, stream per message, 100 MiB (MB/s)" "$(fig quic_bulk_perMessage_MBps)"
printf '%-58s %12s\n' "100000 x 16384 B goodput (MB/s)" "$(fig quic_100000x16384_MBps)"
printf '%-58s %12s\n' "100000 x 16384 B peak RSS (MB, limit 100)" "$(fig quic_100000x16384_peak_rss_MB)"
printf '%-58s %12s\n' "gtlsserver -> gtlsclient 100 MiB (MB/s, best of $RUNS)" "${GTLS:-n/a}"
printf '%-58s %12s\n' "aioquic <-> aioquic 26 MB (MB/s, best of $RUNS)" "${AIO:-n/a}"
printf '%-58s %12s\n' "TCP plugin via peerbench run, 100 MiB (MB/s)" "${TCP:-n/a}"
printf '%-58s %12s\n' "QUIC plugin via peerbench run, 100 MiB (MB/s)" "${QUIC_CLI:-n/a}"
ratio() { python3 -c "a, b = '$1', '$2'; print(f'{float(a) / float(b):.2f}x' if a and b and float(b) > 0 else 'n/a')"; }
OURS=$(fig quic_bulk_single_MBps)
printf '%-58s %12s   (target >= 1.0x)\n' "ratio: ours / gtls" "$(ratio "$OURS" "$GTLS")"
printf '%-58s %12s   (target >= 20x)\n' "ratio: ours / aioquic" "$(ratio "$OURS" "$AIO")"
if [ -n "$QUIC_CLI" ]; then
    printf '%-58s %12s\n' "ratio: QUIC / TCP (both via peerbench run)" "$(ratio "$QUIC_CLI" "$TCP")"
else
    printf '%-58s %12s\n' "ratio: QUIC (bench harness) / TCP (peerbench run)" "$(ratio "$OURS" "$TCP")"
fi
printf '%-58s %12s   (target <= 1.5 ms)\n' "handshake median (ms)" "$(fig quic_handshake_median_ms)"
