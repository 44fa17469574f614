#!/usr/bin/env bash
# The main job: set up, build PeerBench (release), and run a matrix.
#   ./scripts/run.sh                                  # the field-study matrix.json into results/<time>
#   ./scripts/run.sh matrices/quick.json --out results/quick
#   ./scripts/run.sh compare results/quick            # any peerbench verb works too
set -euo pipefail
cd "$(dirname "$0")/.."
# What running needs, and the chart renderer when the verb is report (scripts/setup.sh --list run).
if [ "${1:-}" = "report" ]; then ./scripts/setup.sh report; else ./scripts/setup.sh run; fi
swift build -c release --product peerbench >&2
bin="$(swift build -c release --show-bin-path)/peerbench"

case "${1:-}" in
  run|validate|list|compare|merge|report|baseline|help|--help|-h|--version) exec "$bin" "$@" ;;
esac
matrix="${1:-matrix.json}"
[ $# -gt 0 ] && shift
if [[ " $* " != *" --out "* && " $* " != *" --resume "* ]]; then
  set -- --out "results/$(basename "$matrix" .json)-$(date -u +%Y%m%dT%H%M%SZ)" "$@"
fi
exec "$bin" run "$matrix" "$@"
