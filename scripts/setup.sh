#!/usr/bin/env bash
# Installs what PeerBench needs on a fresh Debian/Ubuntu machine, by purpose:
#   scripts/setup.sh run      build PeerBench, run matrices, compare (what run.sh uses)
#   scripts/setup.sh report   run + the report's chart renderer (run.sh report ...)
#   scripts/setup.sh remote   run + DNS-SD for serve --advertise / run --peer auto
#   scripts/setup.sh bench    the analysis benchmarks' DuckDB reference (its own venv) and time
#   scripts/setup.sh test     everything: the tests' independent peers and references (test.sh);
#                             also what no purpose means
#   scripts/setup.sh --list PURPOSE   print the packages PURPOSE installs, install nothing
# Idempotent: packages already present are skipped, so a second run takes a second.
# Swift itself is expected on PATH (https://www.swift.org/install/linux/).
set -euo pipefail

# run: iproute2 for the namespaces and the sender-side shaper (tc); ngtcp2 + GnuTLS
# development packages and pkg-config to build the QUIC and TLS plugins.
RUN_APT=(iproute2 libngtcp2-dev libngtcp2-crypto-gnutls-dev libgnutls28-dev pkg-config python3)
RUN_PIP=()
# report: vl-convert-python renders the report's Vega-Lite figures (SVG, PNG, JS bundle).
REPORT_APT=(python3-pip)
REPORT_PIP=(vl-convert-python:vl_convert)
# remote: Avahi (and the D-Bus daemon it talks over) for DNS-SD discovery.
REMOTE_APT=(avahi-daemon avahi-utils dbus-daemon)
REMOTE_PIP=()
# test: iperf3, ngtcp2's example tools, aioquic (PyPI) and openssl as independent peers;
# gnutls-bin (certtool) for certs/; chromium shows the report in a real browser; Slurm and
# munge for the one-node cluster of scripts/slurm-test.sh; scipy is the statistics'
# reference.
# bench: DuckDB, the analysis benchmarks' reference, goes into its own virtual environment
# (scripts/duckdb-env.sh); `time` measures peak memory.
BENCH_APT=(python3-venv time)
BENCH_PIP=()
TEST_APT=(iperf3 ngtcp2-client ngtcp2-server openssl gnutls-bin chromium slurmctld slurmd slurm-client munge)
TEST_PIP=(aioquic scipy)

# An entry is NAME or NAME:MODULE when the Python import name differs.
packages() {  # PURPOSE KIND -> the package list, one per line
  local purpose=$1 kind=$2
  local -a sets
  case "$purpose" in
    run) sets=(RUN) ;;
    report) sets=(RUN REPORT) ;;
    remote) sets=(RUN REMOTE) ;;
    bench) sets=(RUN BENCH) ;;
    test) sets=(RUN REPORT REMOTE BENCH TEST) ;;
  esac
  local s
  for s in "${sets[@]}"; do
    local -n list="${s}_${kind}"
    [ ${#list[@]} -eq 0 ] || printf '%s\n' "${list[@]}"
  done
}

list=false
if [ "${1:-}" = "--list" ]; then list=true; shift; fi
purpose="${1:-test}"
case "$purpose" in
  run|report|remote|bench|test) ;;
  *) echo "setup: unknown purpose '$purpose'; use run, report, remote, bench or test (--list PURPOSE shows the packages)" >&2; exit 2 ;;
esac
mapfile -t apt_packages < <(packages "$purpose" APT)
mapfile -t pip_packages < <(packages "$purpose" PIP)

if $list; then
  echo "apt: ${apt_packages[*]}"
  pips=()
  for entry in "${pip_packages[@]}"; do pips+=("${entry%%:*}"); done
  echo "pip: ${pips[*]:-(none)}"
  exit 0
fi

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup ($purpose): installing ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for entry in "${pip_packages[@]}"; do
  p="${entry%%:*}"
  if ! python3 -c "import ${entry##*:}" >/dev/null 2>&1; then
    echo "setup ($purpose): installing Python package $p" >&2
    python3 -m pip install -q "$p" 2>/dev/null || python3 -m pip install -q --break-system-packages "$p"
  fi
done

command -v swift >/dev/null || { echo "setup: swift is not on PATH; install Swift 6.1 or later first" >&2; exit 1; }
