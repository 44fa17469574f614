#!/usr/bin/env bash
# Figures of the link emulator (docs/PERFORMANCE.md (link emulator section)): TCP goodput through a
# zero-impairment link and through 20 ms one-way delay (iperf3 as an independent
# peer in the emulator's own namespaces), the emulator's scheduling error under
# 100 Mbit/s of UDP, its CPU cost per forwarded packet, and the sender-side shaper's
# backpressure (unpaced UDP, TCP through it). Needs root and iperf3.
# Traffic stays inside the two namespaces the benchmark creates (10.201.0.1/.2).
#
#   scripts/bench-link.sh            # all figures, 10 s each
#   SECONDS_EACH=5 scripts/bench-link.sh
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${SECONDS_EACH:-10}"
command -v iperf3 >/dev/null || { echo "bench-link: iperf3 is needed (apt-get install iperf3)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench-link: run as root (namespaces and TUN devices need CAP_NET_ADMIN)" >&2; exit 1; }
swift build -c release --product link-bench >/dev/null
bench=.build/release/link-bench

echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run() { echo; echo "\$ link-bench $*"; "$bench" "$@"; }
run --mode setup
run --mode tcp --mtu 1500 --seconds "$secs"
run --mode tcp --mtu 1500 --delay-ms 20 --seconds "$secs"
run --mode tcp --mtu 1500 --seconds "$secs" --no-tso
run --mode tcp --mtu 1500 --delay-ms 20 --seconds "$secs" --no-tso
run --mode udp --udp-mbps 100 --delay-ms 10 --seconds "$secs"
run --mode udp --udp-mbps 100 --delay-ms 10 --rate-mbps 200 --loss-percent 1 --seconds "$secs"
run --mode tcp --mtu 1484 --rate-mbps 443.6 --delay-ms 1 --schedule bulk --seconds "$secs"
# Backpressure: unpaced UDP (iperf3 -b 0) into a 50 Mbit/s link, without and with the
# sender-side shaper; TCP through the shaper (TSO super-packets must pass it whole).
run --mode udp --udp-mbps 0 --rate-mbps 50 --delay-ms 2 --seconds "$secs" --no-shaper
run --mode udp --udp-mbps 0 --rate-mbps 50 --delay-ms 2 --seconds "$secs"
run --mode udp --udp-mbps 0 --rate-mbps 300 --delay-ms 1 --mtu 1484 --seconds "$secs"
run --mode tcp --rate-mbps 50 --delay-ms 2 --seconds "$secs"
run --mode tcp --rate-mbps 50 --delay-ms 2 --seconds "$secs" --no-shaper
run --mode tcp --rate-mbps 1000 --delay-ms 1 --seconds "$secs"
run --mode tcp --rate-mbps 1000 --delay-ms 1 --seconds "$secs" --no-shaper
