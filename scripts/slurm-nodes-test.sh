#!/usr/bin/env bash
# The field study's shards on a real Slurm cluster of several nodes, all on this
# machine, with emulated links; then a node lost mid-run. Called by
# `scripts/slurm-test.sh --nodes N` (N >= 2); usage (as root, from anywhere):
#   scripts/slurm-nodes-test.sh [--nodes N] [--keep DIR] [PEERBENCH_BINARY]
#
# The cluster (Debian's slurmctld, slurmd, slurm-client and munge; nothing simulated):
# - a network namespace pbsl-<pid>-ctl holding a private bridge (10.231.0.1/24) and
#   slurmctld, with its own UTS namespace (hostname "ctl");
# - N network namespaces pbsl-<pid>-nodeK, each joined to the bridge by a veth pair
#   (nodeK at 10.231.0.1K, K up to 9), each running one slurmd in its own UTS
#   namespace (hostname nodeK): slurm.conf has a NodeName/NodeAddr per node, CPUs=2;
# - one munged and one munge key for all of them (its socket is a file: every
#   namespace sees it), one slurm.conf, and the run folders on this machine's
#   filesystem, which every node sees (the shared storage of a real cluster).
# Nothing touches the host's interfaces, routes or /etc: the bridge and the veths
# live only inside these namespaces, /etc/hosts is bind-mounted only inside them.
#
# Case 1, three-node run: submits docs/examples/peerbench-shards.slurm as written (its
#   resource lines, --link emulated) for a reduced field-study matrix in 3 shards; each
#   shard creates its link namespaces inside its node and removes them; merges; checks
#   every cell exactly once, cell ids, seeds and resolved links equal to a one-machine
#   run of the same matrix and seed, link.mode "emulated", each manifest's "node" a
#   Slurm node, at least two distinct nodes, and no pb-* namespace left on any node.
# Case 2, killed node: submits it again, kills the node running shard 2 (its slurmd
#   and every process of that node, SIGKILL) once the shard has recorded a cell; Slurm
#   marks the node DOWN and requeues the task (--requeue), which resumes its folder on
#   another node; merges into DIR/merged and checks the same, and that the killed
#   shard's manifest names both nodes in its sessions.
# With --keep DIR: DIR/shards/<case>-shard-K-of-3/ (the shard folders), DIR/merged
# (case 2), DIR/merged-three-node (case 1), DIR/single (the one-machine run), DIR/logs;
# DIR must not exist or be empty. Without it, everything goes.
# Stops every daemon, removes every namespace and temporary file it made, whatever
# happens (trap). Exit 0 = passed, 77 = skipped (the message says why), else failed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "slurm-test: $*" >&2; }
skip() { say "SKIPPED: $*"; exit 77; }
die() { say "FAILED: $*"; exit 1; }

nodes=3 keep= peerbench=
while [ $# -gt 0 ]; do
    case "$1" in
        --nodes) [ $# -ge 2 ] || { say "--nodes needs a count"; exit 64; }; nodes=$2; shift 2 ;;
        --keep) [ $# -ge 2 ] || { say "--keep needs a folder"; exit 64; }; keep=$2; shift 2 ;;
        --nodes=*) nodes=${1#*=}; shift ;;
        --keep=*) keep=${1#*=}; shift ;;
        -*) say "unknown option $1 (use --nodes N, --keep DIR, PEERBENCH_BINARY)"; exit 64 ;;
        *) [ -z "$peerbench" ] || { say "one binary only: $peerbench, then $1"; exit 64; }; peerbench=$1; shift ;;
    esac
done
peerbench=${peerbench:-$repo/.build/debug/peerbench}
[[ "$nodes" =~ ^[0-9]+$ ]] && [ "$nodes" -ge 2 ] && [ "$nodes" -le 9 ] || { say "--nodes $nodes: give 2 to 9"; exit 64; }
shards=3

[ "$(id -u)" -eq 0 ] || skip "needs root to create network namespaces and start slurmctld, slurmd and munged"
[ -x "$peerbench" ] || die "no peerbench binary at $peerbench (swift build first)"
peerbench=$(cd "$(dirname "$peerbench")" && pwd)/$(basename "$peerbench")
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    say "installing Slurm and munge"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 slurmctld slurmd slurm-client munge; } >&2 \
        || skip "Slurm and munge cannot be installed here (apt-get failed)"
fi
for tool in ip unshare nsenter python3; do command -v "$tool" >/dev/null || skip "$tool is not installed"; done
if [ -n "$keep" ]; then
    if [ -e "$keep" ] && [ -n "$(ls -A "$keep" 2>/dev/null)" ]; then die "--keep $keep: the folder exists and is not empty; give a new one"; fi
    mkdir -p "$keep"
    out=$(cd "$keep" && pwd)
fi

tag=pbsl-$$
ctl_ns=$tag-ctl
tmp=$(mktemp -d /tmp/pb-slurm-nodes.XXXXXX)
chmod 755 "$tmp"
[ -n "$keep" ] || { out=$tmp/out; mkdir -p "$out"; }
mkdir -p "$out/logs" "$out/shards"
made_ns=()
node_uts=()   # the UTS namespace of each node, to find every process of a node
pids=()

node_ns() { echo "$tag-node$1"; }
node_addr() { echo "10.231.0.$((10 + $1))"; }
sl() { nsenter --net="/run/netns/$ctl_ns" -- "$@"; }   # a Slurm client command, from the controller's namespace
uts_pids() {  # UTS-namespace-id -> the pids in it
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/uts" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
    done
    return 0
}
kill_uts() {  # UTS-namespace-id: SIGKILL every process in it, until none is left
    local left
    for _ in $(seq 50); do
        left=$(uts_pids "$1")
        [ -z "$left" ] && return 0
        kill -KILL $left 2>/dev/null || true
        sleep 0.1
    done
    return 1
}

cleanup() {
    set +e
    if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] && [ -n "${ctld_pid:-}" ] && kill -0 "$ctld_pid" 2>/dev/null; then
        # Jobs first: slurmd signals its shards (TERM), which remove their namespaces.
        timeout 10 nsenter --net="/run/netns/$ctl_ns" -- scancel --quiet --user=root >/dev/null 2>&1
        for _ in $(seq 80); do [ -z "$(timeout 5 nsenter --net="/run/netns/$ctl_ns" -- squeue -h 2>/dev/null)" ] && break; sleep 0.25; done
    fi
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for _ in $(seq 50); do
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && break
        sleep 0.2
    done
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    # Whatever a node still runs (a shard slurmd left behind) goes with the node; its
    # mount namespace, and the link namespaces a shard made in it, go with the last process.
    for u in "${node_uts[@]}"; do kill_uts "$u"; done
    for ns in "${made_ns[@]}"; do
        left=$(ip netns pids "$ns" 2>/dev/null)
        [ -z "$left" ] || kill -KILL $left 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$tmp"
    ip netns list | grep -q "^$tag-" && say "FAILED to remove the namespaces $(ip netns list | grep "^$tag-" | tr '\n' ' ')"
    for u in "${node_uts[@]}"; do [ -z "$(uts_pids "$u")" ] || say "FAILED to stop the processes $(uts_pids "$u" | tr '\n' ' ')of a node"; done
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# --- the network: a bridge in the controller's namespace, a veth to each node --------
ip netns add "$ctl_ns" 2>"$tmp/ns.err" || skip "network namespaces cannot be created here: $(cat "$tmp/ns.err")"
made_ns+=("$ctl_ns")
ip -n "$ctl_ns" link set lo up
ip -n "$ctl_ns" link add br0 type bridge 2>"$tmp/ns.err" || skip "no bridge support in this kernel: $(cat "$tmp/ns.err")"
ip -n "$ctl_ns" addr add 10.231.0.1/24 dev br0
ip -n "$ctl_ns" link set br0 up
{
    echo "127.0.0.1 localhost"
    echo "10.231.0.1 ctl"
    for k in $(seq "$nodes"); do echo "$(node_addr "$k") node$k"; done
} >"$tmp/hosts"
for k in $(seq "$nodes"); do
    ns=$(node_ns "$k")
    ip netns add "$ns"
    made_ns+=("$ns")
    ip -n "$ns" link set lo up
    ip -n "$ctl_ns" link add "veth$k" type veth peer name eth0 netns "$ns"
    ip -n "$ctl_ns" link set "veth$k" master br0 up
    ip -n "$ns" addr add "$(node_addr "$k")/24" dev eth0
    ip -n "$ns" link set eth0 up
done

# --- munge: one key, one socket, for every node --------------------------------------
mkdir -p "$tmp/munge" && chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
    --seed-file="$tmp/munge/munged.seed" || die "munged did not start: $(tail -3 "$tmp/munge/munged.log" 2>/dev/null)"
pids+=("$(cat "$tmp/munge/munged.pid")")
chmod 755 "$tmp/munge"

# --- slurm.conf: a controller and N two-CPU nodes on the bridge ----------------------
mkdir -p "$tmp/state" "$tmp/spool"
export SLURM_CONF=$tmp/slurm.conf
{
cat <<EOF
ClusterName=peerbench-nodes
SlurmctldHost=ctl(10.231.0.1)
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: how long a requeued job waits before it may start again (Slurm's
# default 120 s; a credential is checked within a second of being made here).
AuthInfo=socket=$tmp/munge/munge.socket,cred_expire=20
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
# The main scheduling loop every 2 s (default 60): a requeued task that becomes
# eligible with no other event starts then, not up to a minute later.
SchedulerParameters=sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
# A node that stops answering is DOWN after 10 s (a real site: minutes); its batch
# jobs that allow it (--requeue) are requeued.
SlurmdTimeout=10
JobRequeue=1
ReturnToService=2
KillWait=10
MinJobAge=600
EOF
for k in $(seq "$nodes"); do echo "NodeName=node$k NodeAddr=$(node_addr "$k") CPUs=2 State=UNKNOWN"; done
echo "PartitionName=test Nodes=node[1-$nodes] Default=YES MaxTime=INFINITE State=UP"
} >"$SLURM_CONF"

# Each daemon in its node's network namespace, a UTS namespace of its own and a mount
# namespace of its own (a slave of this machine's: the same files, /sys/fs/cgroup
# included, which slurmd needs), where the cluster's hosts file is bind-mounted on
# /etc/hosts. A shard's link namespaces (ip netns add) are mounted in its node's mount
# namespace: each node sees its own, and they go when the node's last process does.
start_in() {  # netns hostname command...
    local ns=$1 name=$2
    shift 2
    nsenter --net="/run/netns/$ns" -- unshare --mount --propagation slave --uts -- \
        sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"' sh "$name" "$tmp/hosts" "$@"
}
wait_pidfile() {  # file what
    for _ in $(seq 100); do [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && return 0; sleep 0.1; done
    die "$2 did not start: $(tail -5 "${1%.pid}.log" 2>/dev/null)"
}
start_in "$ctl_ns" ctl slurmctld -i -f "$SLURM_CONF" || die "slurmctld did not start: $(tail -5 "$tmp/slurmctld.log" 2>/dev/null)"
wait_pidfile "$tmp/slurmctld.pid" slurmctld
ctld_pid=$(cat "$tmp/slurmctld.pid")
pids+=("$ctld_pid")
for k in $(seq "$nodes"); do
    mkdir -p "$tmp/spool/node$k"
    start_in "$(node_ns "$k")" "node$k" slurmd -f "$SLURM_CONF" || die "slurmd of node$k did not start: $(tail -5 "$tmp/slurmd-node$k.log" 2>/dev/null)"
    wait_pidfile "$tmp/slurmd-node$k.pid" "slurmd of node$k"
    p=$(cat "$tmp/slurmd-node$k.pid")
    pids+=("$p")
    node_uts+=("$(readlink "/proc/$p/ns/uts")")
done
for _ in $(seq 120); do
    idle=$(sl sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
    [ "$idle" -eq "$nodes" ] && break
    sleep 0.5
done
[ "$idle" -eq "$nodes" ] || die "$idle of $nodes nodes became idle: $(sl sinfo -N 2>&1 | tr '\n' ';'); $(tail -3 "$tmp"/slurmd-node*.log)"
say "$nodes-node cluster up: slurmctld on ctl (10.231.0.1), slurmd on $(for k in $(seq "$nodes"); do printf 'node%s (%s) ' "$k" "$(node_addr "$k")"; done)"
slurmd_pid() { cat "$tmp/slurmd-$1.pid"; }

# --- the matrix and the one-machine run ----------------------------------------------
# A reduced field study: its transports but quic, two environments, three distances
# (a clean link, no radio link, a lossy one), one payload: 24 cells, every one over
# an emulated link. Each shard runs for over ten seconds, so a node can be killed
# mid-shard. (Two payloads, 42 cells, made the test two minutes longer and checked
# nothing more: a payload count is one more field of the cell id.)
cat >"$tmp/matrix.json" <<'EOF'
{"name": "slurm-nodes-test", "repetitions": 1, "rttProbes": 20, "cellTimeoutSeconds": 30, "seed": 11,
 "transports": [{"plugin": "tcp", "label": "tcp", "options": {"congestionControl": "cubic", "noDelay": false}},
                {"plugin": "tcp", "label": "tcp-nodelay", "options": {"congestionControl": "cubic", "noDelay": true}},
                {"plugin": "udp", "label": "udp"},
                {"plugin": "uwb", "label": "uwb", "options": {"durationSeconds": 2}}],
 "matrix": {"environments": ["free-field", "forest"], "distances": [1, 30, "max"],
            "payloads": {"counts": [100], "sizes": [1024]}}}
EOF
bindir=$tmp/bin
mkdir -p "$bindir"
ln -s "$peerbench" "$bindir/peerbench"
export PATH=$bindir:$PATH
"$peerbench" validate "$tmp/matrix.json" --shards "$shards" | sed -n '/^Shards/,$p' >&2
t0=$(date +%s)
rc=0
"$peerbench" run "$tmp/matrix.json" --out "$out/single" --link emulated --quiet 2>"$out/logs/single.err" || rc=$?
[ "$rc" -le 1 ] || die "the one-machine run failed (exit $rc): $(tail -5 "$out/logs/single.err")"
say "one-machine run: $(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["cells_recorded"], "cells,", m["summary"])' "$out/single/manifest.json") in $(( $(date +%s) - t0 )) s"

# Submits the documented array job (its resource lines as written; the array range,
# results and log paths set here). Prints the job id.
submit() {  # results-dir array-range
    mkdir -p "$1"
    (cd "$repo" && PEERBENCH_MATRIX=$tmp/matrix.json PEERBENCH_RESULTS=$1 PEERBENCH_SHARDS=$shards PEERBENCH_LINK=emulated \
        sl sbatch --parsable --array="$2" --output="$out/logs/slurm-%A_%a.log" docs/examples/peerbench-shards.slurm) | cut -d';' -f1
}
wait_job() {  # job-id seconds
    for _ in $(seq $(($2 * 2))); do
        [ -z "$(sl squeue -h -j "$1" 2>/dev/null)" ] && return 0
        sleep 0.5
    done
    sl squeue >&2
    die "job $1 still queued or running after $2 s"
}
task_field() { sl scontrol -o show job "$1" 2>/dev/null | { grep -o "\b$2=[^ ]*" || true; } | head -1 | cut -d= -f2; }
manifest_field() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else v)' "$1" "$2" 2>/dev/null; }

# No link namespace of a shard is left on any live node. A node's mount namespace is
# a slave of this machine's: it sees the namespaces its own shards made, and also any
# this machine has (other runs'), which are not the node's and are left out.
# The machine's are listed before and after the node's: tests running beside this
# one (test.sh's first phase) make and remove theirs all the time, and one made just
# after the first listing would otherwise count as the node's.
check_nodes_clean() {
    local k p left host_ns node_ns
    host_pb() { ip netns list 2>/dev/null | { grep -o '^pb-[^ ]*' || true; }; }
    for k in $(seq "$nodes"); do
        p=$(slurmd_pid "node$k" 2>/dev/null) || continue
        kill -0 "$p" 2>/dev/null || continue
        host_ns=$(host_pb)
        node_ns=$(nsenter -t "$p" -m -- ip netns list 2>/dev/null | { grep -o '^pb-[^ ]*' || true; } | sort)
        host_ns=$( { echo "$host_ns"; host_pb; } | sort -u)
        left=$(echo "$node_ns" | { grep . || true; } | comm -23 - <(echo "$host_ns") | tr '\n' ' ')
        [ -z "$left" ] || die "node$k still has the namespaces $left after its shards ended"
    done
    say "no link namespace of a shard left on any node"
}

# Every cell exactly once; ids, seeds and resolved links as in the one-machine run;
# emulated links; each shard's manifest names its Slurm node.
check_merged() {  # merged-dir shard-dir...
    python3 - "$out/single" "$@" <<'EOF' || die "merged run $1 differs from the one-machine run"
import json, sys
single_dir, merged_dir, shard_dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(d):
    rows = [json.loads(l) for l in open(d + "/records.jsonl") if l.strip()]
    # The resolved link: what the link model set (delay, jitter, loss, rate, MCS, ...),
    # not what the cell measured on it (packets, bytes, drops) or the radio power
    # model's estimate from the cell's duration (energy_mj, radio_on_fraction).
    measured = ("packets_", "bytes_", "drops_", "energy_mj", "radio_on_fraction")
    link = lambda r: {k: v for k, v in r["link"].items() if not k.startswith(measured)}
    return rows, {(r["cell_id"], r["repetition"]): (r["seed"], json.dumps(link(r), sort_keys=True)) for r in rows}
single_rows, single = load(single_dir)
merged_rows, merged = load(merged_dir)
keys = [(r["cell_id"], r["repetition"]) for r in merged_rows]
dupes = len(keys) - len(set(keys))
assert dupes == 0, f"{dupes} cells appear more than once in the merged records"
assert set(merged) == set(single), f"cells differ: {len(set(single) - set(merged))} missing, {len(set(merged) - set(single))} extra"
bad = [k for k in single if single[k] != merged[k]]
assert not bad, f"{len(bad)} cells differ in seed or resolved link, e.g. {bad[0]}: {single[bad[0]]} vs {merged[bad[0]]}"
modes = {r["link"].get("mode") for r in merged_rows}
assert modes == {"emulated"}, f"link.mode is {modes}, not emulated"
m = json.load(open(merged_dir + "/manifest.json"))
assert m["status"] == "merged", m["status"]
nodes = {}
for d in shard_dirs:
    sm = json.load(open(d + "/manifest.json"))
    assert sm.get("node"), f"{d}/manifest.json names no node"
    assert sm["status"] == "finished", f"{d} ended {sm['status']}"
    assert sm.get("measurement_floor", {}).get("emulator_release_error"), f"{d}/manifest.json has no emulator floor"
    nodes[d.rsplit("/", 1)[1]] = sm["node"]
assert len(set(nodes.values())) >= 2, f"every shard ran on one node: {nodes}"
print(f"slurm-test: {len(merged)} cells, each exactly once, link.mode emulated; ids, seeds and links match the one-machine run; "
      f"nodes: {', '.join(f'{k} on {v}' for k, v in sorted(nodes.items()))}", file=sys.stderr)
EOF
}

# Moves a case's shard folders into DIR/shards/<case>-shard-K-of-N and prints them.
collect() {  # results-dir case
    local k
    for k in $(seq "$shards"); do
        mv "$1/shard-$k-of-$shards" "$out/shards/$2-shard-$k-of-$shards"
        echo "$out/shards/$2-shard-$k-of-$shards"
    done
    rmdir "$1" 2>/dev/null || true
}
merge() {  # out-dir shard-dir...
    local o=$1
    shift
    "$peerbench" merge "$@" --out "$o" 2>"$out/logs/merge-$(basename "$o").err" \
        || die "merge into $o failed: $(cat "$out/logs/merge-$(basename "$o").err")"
    sed 's/^/slurm-test: merge: /' "$out/logs/merge-$(basename "$o").err" >&2
}

# --- 1. the three-node run ---------------------------------------------------------
t0=$(date +%s)
job=$(submit "$out/three-node" "1-$shards")
say "case 1: submitted array job $job ($shards shards, --link emulated)"
for _ in $(seq 120); do
    placed=$(sl squeue -h -j "$job" -t running -o '%i on %N' | sort | tr '\n' ' ')
    [ "$(wc -w <<<"$placed")" -ge $((shards * 3)) ] && break
    sleep 0.5
done
say "case 1: running: $placed"
wait_job "$job" 600
say "case 1: job $job done in $(( $(date +%s) - t0 )) s"
for k in $(seq "$shards"); do
    s=$(manifest_field "$out/three-node/shard-$k-of-$shards/manifest.json" status) || true
    [ "$s" = finished ] || die "case 1: shard $k ended \"$s\"; its log: $(tail -5 "$out/logs/slurm-${job}_$k.log" 2>/dev/null)"
done
check_nodes_clean
mapfile -t run1 < <(collect "$out/three-node" three-node)
merge "$out/merged-three-node" "${run1[@]}"
check_merged "$out/merged-three-node" "${run1[@]}"

# --- 2. a node lost mid-run ----------------------------------------------------------
t0=$(date +%s)
job=$(submit "$out/killed-node" "1-$shards")
say "case 2: submitted array job $job; killing the node of shard 2 once it has recorded a cell"
journal=$out/killed-node/shard-2-of-$shards/records.jsonl
for _ in $(seq 1200); do
    [ -s "$journal" ] && break
    sleep 0.1
done
[ -s "$journal" ] || die "case 2: shard 2 recorded nothing in 120 s: $(tail -5 "$out/logs/slurm-${job}_2.log" 2>/dev/null)"
victim=$(sl squeue -h -j "${job}_2" -o '%N')
[ -n "$victim" ] || die "case 2: squeue does not say where task ${job}_2 runs"
victim_pid=$(slurmd_pid "$victim")
victim_uts=$(readlink "/proc/$victim_pid/ns/uts")
victim_procs=$(uts_pids "$victim_uts" | wc -l)
kill_uts "$victim_uts" || die "case 2: processes of $victim survived SIGKILL"
before=$(wc -l <"$journal")
total2=$(manifest_field "$out/killed-node/shard-2-of-$shards/manifest.json" cells_total)
[ "$before" -lt "$total2" ] || die "case 2: shard 2 had finished ($before of $total2 cells) when its node was killed; nothing was tested"
say "case 2: KILLED node $victim: its slurmd (pid $victim_pid) and all $victim_procs processes of the node, SIGKILL, while it ran task ${job}_2 (shard 2, $before cells recorded)"
t_kill=$(date +%s)
for _ in $(seq 240); do
    state=$(sl sinfo -h -n "$victim" -o '%T' 2>/dev/null)
    case "$state" in down*) break ;; esac
    sleep 0.5
done
case "$state" in down*) ;; *) die "case 2: slurmctld did not mark $victim down in 120 s (state \"$state\")" ;; esac
say "case 2: slurmctld marked $victim $state after $(( $(date +%s) - t_kill )) s"
how=
for _ in $(seq 240); do
    restarts=$(task_field "${job}_2" Restarts)
    tstate=$(task_field "${job}_2" JobState)
    if [ "${restarts:-0}" -ge 1 ] && [ "$tstate" != NODE_FAIL ]; then how=requeued; break; fi
    case "$tstate" in NODE_FAIL|FAILED|CANCELLED|COMPLETED) break ;; esac
    sleep 0.5
done
if [ "$how" = requeued ]; then
    say "case 2: Slurm REQUEUED task ${job}_2 (Restarts=$restarts, now $tstate): it resumes shard-2-of-$shards on another node"
    wait_job "$job" 600
    task2=${job}_2
else
    # A site whose Slurm does not requeue on node failure (JobRequeue=0): resubmit the
    # index, as docs/examples/peerbench-shards.slurm says; it resumes its folder.
    wait_job "$job" 600
    job2=$(submit "$out/killed-node" 2)
    say "case 2: task ${job}_2 ended $tstate, not requeued; RESUBMITTED shard 2 as job $job2"
    wait_job "$job2" 600
    task2=${job2}_2
fi
say "case 2: done in $(( $(date +%s) - t0 )) s"
m2=$out/killed-node/shard-2-of-$shards/manifest.json
for k in $(seq "$shards"); do
    s=$(manifest_field "$out/killed-node/shard-$k-of-$shards/manifest.json" status) || true
    [ "$s" = finished ] || die "case 2: shard $k ended \"$s\"; its log: $(tail -5 "$out/logs"/slurm-*_"$k".log 2>/dev/null)"
done
python3 - "$m2" "$victim" "$before" <<'EOF' || die "case 2: the resumed shard 2 is not what it should be"
import json, sys
m = json.load(open(sys.argv[1]))
victim, before = sys.argv[2], int(sys.argv[3])
nodes = [s.get("node") for s in m["sessions"]]
assert len(nodes) >= 2, f"one session only: {nodes}; the task did not resume its folder"
assert nodes[0] == victim, f"the first session ran on {nodes[0]}, not on the killed {victim}"
assert m["node"] != victim and nodes[-1] == m["node"], f"the last session ran on {m['node']}, the killed node"
assert m["cells_recorded"] == m["cells_total"], m
print(f"slurm-test: case 2: shard 2 ran on {' then '.join(nodes)} (sessions {[s['status'] for s in m['sessions']]}); "
      f"{before} cells kept from {victim}, {m['cells_total'] - before} run after the resume", file=sys.stderr)
EOF
check_nodes_clean
mapfile -t run2 < <(collect "$out/killed-node" killed-node)
merge "$out/merged" "${run2[@]}"
check_merged "$out/merged" "${run2[@]}"
[ -z "$keep" ] || say "kept: $out/shards/*/ (shard folders), $out/merged (the killed-node case), $out/merged-three-node, $out/single, $out/logs"
say "PASSED"
