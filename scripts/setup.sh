#!/usr/bin/env bash
# Installs everything PeerBench needs on a fresh Debian/Ubuntu machine (idempotent:
# packages already present are skipped, so a second run takes a second).
# Swift itself is expected on PATH (https://www.swift.org/install/linux/).
set -euo pipefail

# System packages: iproute2 for namespaces, ngtcp2 + GnuTLS for QUIC and TLS,
# gnutls-bin (certtool) to regenerate certs/, iperf3 and ngtcp2's example tools as
# independent peers in tests and benchmarks; openssl as an independent TLS 1.3 PSK peer
# of the control channel; Slurm and munge for the one-node cluster
# of scripts/slurm-test.sh; Avahi (and the D-Bus daemon it talks over) for DNS-SD
# discovery (serve --advertise, run --peer auto).
APT_PACKAGES=(
  iproute2 iperf3
  libngtcp2-dev libngtcp2-crypto-gnutls-dev libgnutls28-dev gnutls-bin
  ngtcp2-client ngtcp2-server openssl
  python3 python3-pip pkg-config
  chromium
  slurmctld slurmd slurm-client munge time
  avahi-daemon avahi-utils dbus-daemon
)
# Python packages: aioquic is an independent QUIC peer for interoperability tests;
# vl-convert-python renders the report's figures (chromium above shows the page in tests);
# scipy is the independent reference for compare's statistics (Tests/Reference).
# An entry is NAME or NAME:MODULE when the import name differs.
PIP_PACKAGES=(aioquic scipy vl-convert-python:vl_convert)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

for entry in "${PIP_PACKAGES[@]}"; do
  p="${entry%%:*}"
  if ! python3 -c "import ${entry##*:}" >/dev/null 2>&1; then
    echo "setup: installing Python package $p" >&2
    python3 -m pip install -q "$p" 2>/dev/null || python3 -m pip install -q --break-system-packages "$p"
  fi
done

command -v swift >/dev/null || { echo "setup: swift is not on PATH; install Swift 6.1 or later first" >&2; exit 1; }
