#!/usr/bin/env bash
# Estimate against actual: for each matrix, `peerbench validate` (the cost model)
# and a real run on the emulated link (wall time from the manifest's started_at to
# ended_at), and their ratio; the target is 0.8-1.25. Needs root (namespaces).
# Usage: scripts/check-estimates.sh [--keep DIR] [MATRIX[@K/N]...]
#   default: matrices/quick.json matrices/hypotheses.json matrices/edge-large.json
#   --keep DIR: keep the run folders in DIR (DIR/NAME), e.g. to refit the model from
#   their per-cell times or to pass one to `validate --calibrate-from`.
#   MATRIX@K/N: only shard K of N (`run --shard K/N`), against that shard's estimate:
#   a subset of a matrix too long to run whole (matrix.json, matrices/reconnect.json).
# A loaded machine inflates the actual times: say so when quoting the figures.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
peerbench=${PEERBENCH:-$repo/.build/release/peerbench}
[ -x "$peerbench" ] || peerbench=$repo/.build/debug/peerbench
[ -x "$peerbench" ] || { echo "check-estimates: build peerbench first (swift build -c release)" >&2; exit 2; }
keep=
if [ "${1:-}" = --keep ]; then
    [ $# -ge 2 ] || { echo "check-estimates: --keep needs a folder" >&2; exit 2; }
    keep=$2
    shift 2
fi
[ $# -gt 0 ] || set -- "$repo/matrices/quick.json" "$repo/matrices/hypotheses.json" "$repo/matrices/edge-large.json"
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d /tmp/pb-estimates.XXXXXX)
    trap 'rm -rf "$work"' EXIT
fi
printf '%-20s %6s %10s %10s %7s\n' matrix cells "estimate s" "actual s" ratio
status=0
for arg in "$@"; do
    m=${arg%@*}
    name=$(basename "$m" .json)
    shard=()
    if [ "$arg" != "$m" ]; then
        shard=(--shard "${arg##*@}")
        name=$name-${arg##*@}
        name=${name//\//of}
        # The dry run's last line: "... estimated duration [H h ][M min ]S s (at most ...".
        est=$("$peerbench" run "$m" --dry-run "${shard[@]}" | sed -n 's/.*estimated duration \(.*\) s (at most.*/\1/p' |
            awk '{ t = 0; for (i = 1; i < NF; i += 2) t += $i * ($(i + 1) == "h" ? 3600 : 60); print t + $NF }')
    else
        est=$("$peerbench" validate "$m" | sed -n 's/.*estimated duration: .* (\([0-9]*\) s; .*/\1/p')
    fi
    [ -n "$est" ] || { echo "check-estimates: no estimate for $arg" >&2; exit 2; }
    [ ! -e "$work/$name" ] || { echo "check-estimates: $work/$name exists; choose another --keep folder" >&2; exit 2; }
    "$peerbench" run "$m" "${shard[@]}" --out "$work/$name" --link emulated --quiet >/dev/null 2>&1 || [ $? -eq 1 ]
    read -r cells actual < <(python3 - "$work/$name/manifest.json" <<'PY'
import json, sys
from datetime import datetime
m = json.load(open(sys.argv[1]))
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
print(m["cells_recorded"], f'{(t(m["ended_at"]) - t(m["started_at"])).total_seconds():.1f}')
PY
)
    ratio=$(awk -v e="$est" -v a="$actual" 'BEGIN { printf "%.2f", e / a }')
    printf '%-20s %6s %10s %10s %7s\n' "$name" "$cells" "$est" "$actual" "$ratio"
    awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8 && r <= 1.25) }' || status=1
done
exit $status
