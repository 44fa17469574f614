#!/usr/bin/env bash
# A real Slurm run of docs/examples/peerbench-shards.slurm on a one-node cluster set
# up on this machine, then the failure path. Usage (as root, from anywhere):
#   scripts/slurm-test.sh [PEERBENCH_BINARY]
#   scripts/slurm-test.sh --nodes N [--keep DIR] [PEERBENCH_BINARY]
# With --nodes, scripts/slurm-nodes-test.sh runs instead: N slurmd, each in its own
# network and UTS namespace, shards with emulated links, a node killed mid-run (see
# that script). What follows is the one-node test:
# 1. Installs Slurm (slurmctld, slurmd, slurm-client) and munge if missing (exit 77 = skipped: they cannot be
#    installed here), starts munged, slurmctld and slurmd for localhost with no cgroup
#    requirement (proctrack/linuxproc, task/none), all state in one temporary folder.
# 2. Submits the documented array job for a small matrix in 3 shards (--link none),
#    waits, merges, and checks: every cell exactly once, and the same cell ids, seeds
#    and resolved links as a single-machine run of the same matrix and seed.
# 3. Submits it again, scancels shard 2 mid-run, resubmits that index (the entry
#    script resumes its folder), merges, and checks the same.
# Stops the daemons and removes everything it created, whatever happens.
# Exit 0 = passed, 77 = skipped (message says why), anything else = failed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
for arg in "$@"; do
    case "$arg" in
        --nodes|--nodes=*) exec "$repo/scripts/slurm-nodes-test.sh" "$@" ;;
        --keep|--keep=*) echo "slurm-test: --keep goes with --nodes N (the one-node test keeps nothing)" >&2; exit 64 ;;
    esac
done
peerbench=${1:-$repo/.build/debug/peerbench}
say() { echo "slurm-test: $*" >&2; }
skip() { say "SKIPPED: $*"; exit 77; }
die() { say "FAILED: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "needs root to start slurmctld, slurmd and munged"
[ -x "$peerbench" ] || die "no peerbench binary at $peerbench (swift build first)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing Slurm and munge"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 slurmctld slurmd slurm-client munge; } >&2 \
        || skip "Slurm and munge cannot be installed here (apt-get failed)"
fi

work=$(mktemp -d /tmp/pb-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    set +e
    if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
        # Jobs first, so slurmd stops the shards it started before it goes.
        scancel --quiet --user=root >/dev/null 2>&1
        for _ in $(seq 60); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.25; done
    fi
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 50); do
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && break
        sleep 0.2
    done
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- munge: its own key and socket, nothing in /etc ---------------------------------
mkdir -p "$work/munge" && chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
    --seed-file="$work/munge/munged.seed" || die "munged did not start: $(tail -3 "$work/munge/munged.log" 2>/dev/null)"
pids+=("$(cat "$work/munge/munged.pid")")
chmod 755 "$work/munge"

# --- slurm.conf for this host --------------------------------------------------------
free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 20000))
        ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
    done
}
host=$(hostname -s)
ctld_port=$(free_port)
slurmd_port=$(free_port)
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=peerbench-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=10
MinJobAge=600
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=6 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -i -f "$SLURM_CONF" || die "slurmctld did not start: $(tail -5 "$work/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" || die "slurmd did not start: $(tail -5 "$work/slurmd.log" 2>/dev/null)"
for f in slurmctld slurmd; do
    for _ in $(seq 50); do [ -s "$work/$f.pid" ] && break; sleep 0.1; done
    [ -s "$work/$f.pid" ] || die "$f wrote no pid file: $(tail -5 "$work/$f.log" 2>/dev/null)"
    pids+=("$(cat "$work/$f.pid")")
done
for _ in $(seq 120); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || die "the node did not become idle (state \"$state\"): $(tail -5 "$work/slurmd.log")"
say "one-node cluster up: $host, slurmctld :$ctld_port, slurmd :$slurmd_port"

# --- the matrix and the reference run ------------------------------------------------
# Small, but each shard runs for several seconds (two-second UWB cells), so shard 2
# can be cancelled mid-run.
cat >"$work/matrix.json" <<'EOF'
{"name": "slurm-test", "repetitions": 1, "rttProbes": 10, "cellTimeoutSeconds": 30, "seed": 7,
 "transports": [{"plugin": "tcp", "label": "tcp"}, {"plugin": "udp", "label": "udp"},
                {"plugin": "uwb", "label": "uwb", "options": {"durationSeconds": 2}}],
 "matrix": {"environments": ["free-field", "forest"], "distances": [1, 10, "max"],
            "payloads": {"counts": [100, 1000], "sizes": [1024]}}}
EOF
bindir=$work/bin
mkdir -p "$bindir"
ln -s "$peerbench" "$bindir/peerbench"
export PATH=$bindir:$PATH
"$peerbench" validate "$work/matrix.json" --shards 3 | sed -n '/^Shards/,$p' >&2
"$peerbench" run "$work/matrix.json" --out "$work/single" --link none --quiet || die "the single-machine run failed"

# Submits the documented array job (resource lines as written; only the array
# range, results and log paths set here). Prints the job id.
submit() {  # results-dir array-range
    mkdir -p "$1"
    (cd "$repo" && PEERBENCH_MATRIX=$work/matrix.json PEERBENCH_RESULTS=$1 PEERBENCH_SHARDS=3 PEERBENCH_LINK=none \
        sbatch --parsable --array="$2" --output="$1/slurm-%A_%a.log" docs/examples/peerbench-shards.slurm) | cut -d';' -f1
}
wait_job() {  # job-id seconds
    for _ in $(seq $(($2 * 2))); do
        [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    squeue >&2
    die "job $1 still queued or running after $2 s"
}
task_states() { scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | tr -s ' ' | tr '\n' ' '; }

# Compares a merged folder with the single-machine run: same cells (id, repetition),
# seeds and resolved links, every cell exactly once.
check_merged() {  # merged-dir
    python3 - "$work/single" "$1" <<'EOF' || die "merged run $1 differs from the single-machine run"
import json, sys
def load(d):
    rows = [json.loads(l) for l in open(d + "/records.jsonl") if l.strip()]
    link = lambda r: {k: v for k, v in r["link"].items() if not k.startswith(("packets_", "bytes_"))}
    return rows, {(r["cell_id"], r["repetition"]): (r["seed"], json.dumps(link(r), sort_keys=True)) for r in rows}
single_rows, single = load(sys.argv[1])
merged_rows, merged = load(sys.argv[2])
keys = [(r["cell_id"], r["repetition"]) for r in merged_rows]
dupes = len(keys) - len(set(keys))
assert dupes == 0, f"{dupes} cells appear more than once in the merged records"
assert set(merged) == set(single), f"cells differ: {len(set(single) - set(merged))} missing, {len(set(merged) - set(single))} extra"
bad = [k for k in single if single[k] != merged[k]]
assert not bad, f"{len(bad)} cells differ in seed or resolved link, e.g. {bad[0]}: {single[bad[0]]} vs {merged[bad[0]]}"
m = json.load(open(sys.argv[2] + "/manifest.json"))
assert m["status"] == "merged", m["status"]
print(f"slurm-test: {len(merged)} cells, each exactly once; ids, seeds and links match the single-machine run", file=sys.stderr)
EOF
}

# --- 1. the array job, all shards ----------------------------------------------------
t0=$(date +%s)
job=$(submit "$work/run1" 1-3)
say "submitted array job $job (3 shards)"
wait_job "$job" 240
say "job $job done in $(( $(date +%s) - t0 )) s: $(task_states "$job")"
for k in 1 2 3; do
    s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$work/run1/shard-$k-of-3/manifest.json" 2>/dev/null) \
        || die "shard $k wrote no manifest; its log: $(cat "$work/run1"/slurm-*_"$k".log 2>/dev/null | tail -5)"
    [ "$s" = finished ] || die "shard $k ended \"$s\"; its log: $(tail -5 "$work/run1"/slurm-*_"$k".log)"
done
"$peerbench" merge "$work"/run1/shard-*-of-3 --out "$work/run1/all" || die "merge of the three shards failed"
check_merged "$work/run1/all"

# --- 2. a shard cancelled mid-run, resubmitted, resumed --------------------------------
job=$(submit "$work/run2" 1-3)
say "submitted array job $job; cancelling shard 2 once it has recorded a cell"
journal=$work/run2/shard-2-of-3/records.jsonl
for _ in $(seq 1800); do
    [ -s "$journal" ] && break
    sleep 0.1
done
[ -s "$journal" ] || die "shard 2 recorded nothing in 180 s (with --exclusive the shards of the one node run one after another)"
scancel "${job}_2"
wait_job "$job" 240
before=$(wc -l <"$journal")
total2=$("$peerbench" run "$work/matrix.json" --dry-run --shard 2/3 --link none | sed -n 's/^\([0-9]*\) cells to run.*/\1/p')
[ "$before" -lt "$total2" ] || die "shard 2 finished ($before of $total2 cells) before scancel reached it; nothing was tested"
say "shard 2 cancelled after $before of $total2 cells: $(task_states "$job")"
if "$peerbench" merge "$work"/run2/shard-*-of-3 --out "$work/run2/partial" 2>"$work/merge-incomplete.err"; then
    die "merge of an incomplete set of shards succeeded"
fi
grep -q "shard-2-of-3" "$work/merge-incomplete.err" || die "merge refused the incomplete set without naming shard 2: $(cat "$work/merge-incomplete.err")"
job=$(submit "$work/run2" 2)
say "resubmitted shard 2 as job $job"
wait_job "$job" 240
s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$work/run2/shard-2-of-3/manifest.json")
[ "$s" = finished ] || die "the resumed shard 2 ended \"$s\": $(tail -5 "$work/run2"/slurm-"$job"_2.log)"
"$peerbench" merge "$work"/run2/shard-*-of-3 --out "$work/run2/all" || die "merge after the resumed shard failed"
check_merged "$work/run2/all"
say "PASSED in $(( $(date +%s) - t0 )) s"
