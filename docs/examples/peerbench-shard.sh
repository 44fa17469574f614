#!/bin/sh
# Runs (or resumes) one shard of a PeerBench matrix; used by the Slurm and
# Kubernetes examples next to this file. Usage:
#   peerbench-shard.sh MATRIX RESULTS K N [extra peerbench run options...]
# Writes RESULTS/shard-K-of-N. Started again after a preemption, a node failure or
# a time limit, it resumes that folder instead of starting over.
set -u
matrix=$1 results=$2 k=$3 n=$4
shift 4
out="$results/shard-$k-of-$n"
mkdir -p "$results"
if [ -f "$out/manifest.json" ]; then
    # The run's options (seed, shard, link, order, ...) come from its manifest.
    set -- peerbench run "$matrix" --resume "$out" --quiet
else
    set -- peerbench run "$matrix" --out "$out" --shard "$k/$n" --quiet "$@"
fi
# Forward SIGTERM (Slurm's and Kubernetes' stop signal) so peerbench stops cleanly:
# current cell abandoned, namespaces removed, manifest marked "interrupted".
"$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT
while :; do
    wait "$pid"
    rc=$?
    kill -0 "$pid" 2>/dev/null || break
done
# 1 = the shard finished but some cells did not end ok: that is a result (see its
# records), not a reason to run the shard again.
[ "$rc" -eq 1 ] && rc=0
exit "$rc"
