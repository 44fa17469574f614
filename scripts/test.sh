#!/usr/bin/env bash
# Sets up the machine and runs the whole test suite (unit, plugin, link-emulation and
# end-to-end CLI tests). Tests that create network namespaces need root.
#
#   scripts/test.sh                          the whole suite (the README's test command)
#   scripts/test.sh [OPTION...]              what the options to Swift Testing select
#                                            (--filter RE...), in one process
#   scripts/test.sh --repeat N [--hogs K]    only the timing suites, N times in a row as
#                                            the whole suite runs them (K busy loops
#                                            beside them: a loaded machine), then each
#                                            test's pass count
#
# Every suite runs in a process of its own (a suite in SPLIT, each of its tests), a few
# at a time, in two phases side by side (docs/TESTING.md):
#  1. the suites that measure no timing, UNTIMED_LANES at a time, at nice 10 until the
#     timing suites are done. BESIDE (the scaffold end-to-end test, building a copy of
#     the package on the package's own build products, then the Slurm clusters:
#     minutes, mostly waiting) runs in a process of its own from the start, through both;
#  2. the timing suites (TIMING below), TIMING_LANES at a time. They assert times,
#     rates or ratios measured on this machine, with bounds that hold beside two busy
#     loops, or on what the code decided (counters, planned release times); most of
#     their time is scenario time (outages, idle timeouts, back-offs), spent waiting.
#     Then, when everything else is done, the tests in ALONE, one at a time.
# Each process's log is printed when it ends and kept; the processes' exit statuses
# and xUnit results make the summary (tests, failures, the longest processes), and
# when a test fails its issues are repeated at the end of the output, where a CI page
# that shows only the tail still names them.
set -euo pipefail
cd "$(dirname "$0")/.."

# Suites that assert a time, rate or ratio measured on this machine. A new suite that
# does belongs here; one that does not runs in phase 1.
TIMING=(
    # emulated links: delay, rate, queueing, EDCA, scenarios
    BulkSeriesOverLinkTests EDCATests EmulatedLinkTests FrameAggregationTests TCPReceiveBufferTests SendLoopTransferTests ScenarioEmulatorTests ScenarioTimelineTests AvailabilityWindowTests
    # plugins on loopback: deadlines, cancellation, loaded RTTs, pacing
    TCPPluginTests TCPBulkSeriesTests TCPSeparateFlowTests TCPVanishedServerTests
    # pipelined probes through delaying relays (the study's RTT method)
    TCPPipelinedProbeTests TLSPipelinedProbeTests UDPPipelinedProbeTests QUICPipelinedProbeTests
    TLSPluginTests TLSLoadedProbesTests TLSSeparateFlowTests TLSVanishedServerTests
    UDPPluginTests UDPKeepAliveTests UDPSeparateFlowTests
    QUICLatencyTests QUICLoadedProbesTests QUICRecoveryTests QUICStrayClientTests QUICTLSFailureTests
    QUICWorkloadTests QUICIdleTimeoutTests QUICBulkSeriesTests QUICResumptionTests
    # connection migration: a blackholed 4-tuple in a namespace, migration vs reconnect times
    QUICMigrationTests QUICMigrationRunTests RemoteQUICMigrationTests
    UWBPluginTests TokenChannelTests RangingProtocolTests
    ExecFailureTests IperfTransportTests BuiltInPluginContractTests
    # control channel and remote peers: RTTs, handshake and idle deadlines
    ControlChannelRTTTests ControlChannelRobustnessTests ControlChannelTests ControlFuzzTests
    FieldPromptTests RemoteEmulatedLinkTests RemoteReconnectTests RemoteEndToEndTests RemoteResumptionTests
    # serve under hostile input: handshake slots and timeouts, cut-short cells, spoofed udp
    ServeLockoutTests ServeSessionHygieneTests ServeCellOutcomeTests UDPAuthenticationTests
    # runner and CLI: cell deadlines, grace periods, the measurement floor
    MeasurementFloorClockTests RunnerTests InterruptionTests WorkerProcessTests SocketCloseTests
    CLIMeasurementFloorTests CLIUnattendedTests CLIUnattendedTCPTests ScenarioRunTests FragmentReassemblyTests
    CLITimeoutStatusTests ScenarioKeepAliveIdleTimeoutTests ScenarioReconnectTests QUICReconnectRunTests CLIRunnerDeathTests HarnessFailureStatusTests CLIAutoRepetitionsTests
    # session resumption and 0-RTT over a 20 ms emulated link: round trips saved or not
    ResumptionRunTests
    # workloads: frames on schedule and none late, transactions a round trip, rates per direction
    StreamWorkloadKindsTests TLSWorkloadKindsTests QUICWorkloadKindsTests UDPWorkloadKindsTests WorkloadRunTests RemoteWorkloadTests
    # parallel streams: flows at once (first bytes before last bytes), udp paced at a shared rate
    QUICParallelStreamsTests UDPParallelFlowsTests RemoteParallelStreamsTests
)
# Phase 1's own process, from the start: suites that take long but mostly wait (a build
# of the scaffold's copy, Slurm daemons and their jobs) and assert no time.
BESIDE=(ScaffoldEndToEndTests SlurmClusterTests)
# Tests that run after the timing suites, one at a time with nothing beside them. The
# first two check what a run does to the namespaces that killed runs left behind, and
# every other run on the machine sweeps those too (a run that starts beside them
# removes the namespace first, and says so on its own stderr). quic's migration in an
# outage depends on probe timeouts from round trips a busy neighbour stretches: beside
# the other timing suites it moved before the outage, or not within it (docs/TESTING.md).
ALONE=(
    CLIRunnerDeathTests/theNextRunRemovesAKilledRunsNamespacesAndSaysSo EmulatedLinkTests/cleanupAfterInterrupt
    QUICMigrationRunTests/outage
)
# Suites whose tests run as processes of their own, not one after another in one: their
# tests are long (a minute of scenario time, or of report rendering, and more between
# them) and independent.
SPLIT=(WorkloadRunTests QUICReconnectRunTests CLIUnattendedTests ReportCommandTests CLIRunFolderTests SharedLinkRunTests)
# Started first, longest first (seconds alone on this two-core machine, 2026-12-01), so
# that no long one is left to run alone at the end; the rest follow in their order.
LONGEST=(
    WorkloadRunTests/headOfLineBlocking WorkloadRunTests/headOfLineBlockingCleanLink  # 84 together until issue 42
    WorkloadRunTests/everyKindThrough  # 37
    QUICReconnectRunTests/walkAwayAndBack QUICReconnectRunTests/outage  # 30, 29
    ScenarioReconnectTests CLITimeoutStatusTests ScenarioRunTests EmulatedLinkTests EDCATests  # 31-39
    CLIRunnerDeathTests AvailabilityWindowTests BulkSeriesOverLinkTests ScenarioKeepAliveIdleTimeoutTests  # 21-25
    RemoteEndToEndTests HarnessFailureStatusTests QUICReconnectRunTests/zeroRTTAfterLongOutage  # 18-20
    RemoteQUICMigrationTests CLIUnattendedTests/crashingAndHangingCellsAreRecordedAndTheRunGoesOn  # 17
    WorkloadRunTests/parallelStreams ScenarioEmulatorTests ResumptionRunTests RemoteReconnectTests  # 14-16
    # phase 1 (the report's tests 10-16 s each alone, 72 in all)
    QUICWorkloadStreamFuzzTests CLIRunFolderTests/aDiskThatFillsUpMidRunEndsTheRunCleanly  # 25, 21
    ReportCommandTests/workloadMetricsHaveFiguresOnlyWhenTheRunHasThem ReportCommandTests/missingSamplesAreNamedPerFigureNotAFailure
    ServeLiveFuzzTests DiscoveryTests CLIMeasuredTests QUICInteropTests  # 12-15
)
# Processes at once in each phase (PEERBENCH_TEST_LANES="UNTIMED TIMING" overrides).
# Alone, one after another, phase 1 used 123 s of CPU in 337 s and phase 2 199 s in
# 870 s (scenario time, waiting). Phase 2: four. Five took 191-201 s against 224-250,
# but two of three fresh clones failed with them (a resumed tls handshake 10.8 ms over
# a full one, quic's parallel upload at 13.2 Mbit/s for a bound of 14, a paced span
# 7 % long), where four passed three of three, one beside two busy loops: a fifth
# process's scheduling delays are the size of those bounds' margins (docs/TESTING.md).
# Phase 1: three; with four, on a machine busy with other builds, its processes took
# 732 s in all against 394 s with two, and the phase no less time: computing, they
# share the cores.
read -r UNTIMED_LANES TIMING_LANES <<<"${PEERBENCH_TEST_LANES:-3 4}"

repeat=0
hogs=0
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --repeat|--hogs)
            if [ $# -lt 2 ]; then echo "test.sh: $1 needs a count" >&2; exit 64; fi
            if [ "$1" = --repeat ]; then repeat=$2; else hogs=$2; fi
            shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
if ! [[ "$repeat" =~ ^[0-9]+$ && "$hogs" =~ ^[0-9]+$ && "$UNTIMED_LANES" =~ ^[1-9][0-9]*$ && "$TIMING_LANES" =~ ^[1-9][0-9]*$ ]]; then
    echo "test.sh: --repeat and --hogs take a whole number, PEERBENCH_TEST_LANES two from 1" >&2
    exit 64
fi
if [ "$hogs" -gt 0 ] && [ "$repeat" -eq 0 ]; then
    echo "test.sh: --hogs only goes with --repeat (the whole suite runs on a quiet machine)" >&2
    exit 64
fi

./scripts/setup.sh test
# The toolchain's own formatter, with the checked-in .swift-format: a file it would
# change fails the run here, before the build (`swift format -i -r Sources Tests
# Benchmarks` fixes most of what it names).
swift format lint --strict --parallel --recursive Sources Tests Benchmarks
# The layers are enforced at build time: an import of a module the target does not
# declare (a transport importing the run core) fails here, not only in Package.swift.
swift build --build-tests --explicit-target-dependency-import-check error
# The test bundle itself, not `swift test`: SwiftPM holds a lock while it runs, so two
# `swift test` processes would run one after the other. No colours, so the summary's
# patterns match.
bundle=$(swift build --show-bin-path)/PeerBenchPackageTests.xctest
run_tests() { NO_COLOR=1 "$bundle" --testing-library swift-testing --no-parallel "$@"; }
# A test process that is still running after this many seconds is stopped (the longest
# takes 90 s alone, the BESIDE one 400 s beside two busy loops): a hang fails its unit,
# naming the tests it started and did not finish and what its processes were doing,
# instead of holding the run until CI gives up on it.
UNIT_LIMIT=${PEERBENCH_TEST_UNIT_LIMIT:-600}
BESIDE_LIMIT=$((UNIT_LIMIT * 2))
descendants() {  # PID -> PID and its descendants, parents first
    ps -e -o pid=,ppid= | awk -v root="$1" '{ kids[$2] = kids[$2] " " $1 }
        END { queue[1] = root; n = 1; for (i = 1; i <= n; i++) { print queue[i]; m = split(kids[queue[i]], k, " "); for (j = 1; j <= m; j++) queue[++n] = k[j] } }'
}
# run_limited LIMIT LOG ARGS...: run_tests ARGS, output to LOG, stopped after LIMIT s
# with the tests it had not finished and its process tree appended to LOG (exit 124).
run_limited() {
    local limit=$1 log=$2 pid watcher rc=0
    shift 2
    run_tests "$@" </dev/null >"$log" 2>&1 &
    pid=$!
    (
        sleep "$limit" </dev/null >/dev/null 2>&1 &
        trap 'kill $! 2>/dev/null; exit 0' TERM
        wait $!
        local -a tree
        mapfile -t tree < <(descendants "$pid")
        {
            echo "=== timed out after $limit s; started and not finished:"
            awk '/◇ Test .* started\./ { t = $0; sub(/^◇ Test /, "", t); sub(/ started\.$/, "", t); if (t !~ /^case /) open[t] = 1 }
                 /[✔✘] Test .* (passed|failed)/ { for (k in open) if (index($0, "Test " k " ") > 0) delete open[k] }
                 END { for (k in open) print "    " k }' "$log"
            echo "=== its processes:"
            ps -o pid,stat,etime,wchan:24,args -p "$(IFS=,; echo "${tree[*]}")" 2>/dev/null || true
        } >>"$log"
        kill -KILL "${tree[@]}" 2>/dev/null || true
    ) &
    watcher=$!
    wait "$pid" || rc=$?
    kill "$watcher" 2>/dev/null || true
    wait "$watcher" 2>/dev/null || true
    [ "$rc" -ne 137 ] || rc=124
    return "$rc"
}

logs=$(mktemp -d -t peerbench-test.XXXXXX)
started=$SECONDS

# The units a phase runs: a suite (`Suite`), or for a suite in SPLIT each of its tests
# (`Suite/test`), of the suites given, LONGEST first, the tests in ALONE left out.
# Suites and tests come from the bundle's list.
mapfile -t all_tests < <(run_tests --list-tests 2>/dev/null | grep -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/' | sed -E 's/^[A-Za-z0-9_]+\.//; s/\(.*$//')
units() {
    local -A wanted=() split=() have=() alone=()
    local s t u
    for s in "$@"; do wanted[$s]=1; done
    for s in "${SPLIT[@]}"; do split[$s]=1; done
    for t in "${ALONE[@]}"; do alone[$t]=1; done
    local -a found=()
    for t in "${all_tests[@]}"; do
        s=${t%%/*}
        [ -n "${wanted[$s]:-}" ] && [ -z "${alone[$t]:-}" ] || continue
        if [ -n "${split[$s]:-}" ]; then u=$t; else u=$s; fi
        [ -n "${have[$u]:-}" ] || { have[$u]=1; found+=("$u"); }
    done
    local -A listed=()
    for u in "${LONGEST[@]}"; do
        if [ -n "${have[$u]:-}" ]; then echo "$u"; listed[$u]=1; fi
    done
    for u in "${found[@]}"; do [ -n "${listed[$u]:-}" ] || echo "$u"; done
}
# A unit's selection: the one test, or the suite without its tests in ALONE.
unit_args() {
    if [[ "$1" == */* ]]; then echo "--filter"; echo "\\.${1%%/*}/${1#*/}\\("; return; fi
    echo "--filter"; echo "\\.$1/"
    local t
    for t in "${ALONE[@]}"; do
        if [ "${t%%/*}" = "$1" ]; then echo "--skip"; echo "\\.${t%%/*}/${t#*/}\\("; fi
    done
}

# Runs one unit in a process of its own, its log and xUnit results in DIR, and prints
# its log when it ends (one at a time). Its exit status and seconds go to DIR/UNIT.rc.
run_unit() {
    local dir=$1 unit=$2 file t0 rc=0
    file=$dir/${unit//\//.}
    t0=$EPOCHREALTIME
    local -a selection
    mapfile -t selection < <(unit_args "$unit")
    run_limited "$UNIT_LIMIT" "$file.log" "${selection[@]}" --xunit-output "$file.xml" || rc=$?
    awk -v rc="$rc" -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%s %.1f\n", rc, b - a }' >"$file.rc"
    if [ "${quiet_units:-0}" != 1 ]; then
        { flock 9; echo "=== $unit: exit $rc, $(cut -d' ' -f2 "$file.rc") s"; cat "$file.log"; } 9>"$logs/.print"
    fi
    return 0
}
# Runs the units on stdin, LANES at a time, into DIR.
pool() {
    local lanes=$1 dir=$2 unit
    mkdir -p "$dir"
    while read -r unit; do
        while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n || true; done
        run_unit "$dir" "$unit" &
    done
    wait
}
# What DIR's units did: tests passed and failed (from their xUnit files), and the
# longest units; exit status 1 when a unit failed (a non-zero exit, or no results).
report() {
    python3 - "$1" "$2" <<'EOF'
import sys, glob, os, xml.etree.ElementTree as ET
d, title = sys.argv[1], sys.argv[2]
units, tests, failed, bad = [], 0, [], []
for rc in sorted(glob.glob(f"{d}/*.rc")):
    name = os.path.basename(rc)[:-3]
    status, seconds = open(rc).read().split()
    units.append((float(seconds), name))
    xml = rc[:-3] + ".xml"
    if status == "124":
        bad.append(f"{name} (timed out: its log names the tests it had not finished)")
    elif status != "0" or not os.path.exists(xml):
        bad.append(f"{name} (exit {status})")
    if os.path.exists(xml):
        for case in ET.parse(xml).getroot().iter("testcase"):
            tests += 1
            if case.find("failure") is not None or case.find("error") is not None:
                failed.append(f"{case.get('classname')}/{case.get('name')}")
units.sort(reverse=True)
print(f"=== {title}: {len(units)} processes, {tests} tests, {len(failed)} failed" + (f" ({', '.join(failed)})" if failed else ""))
if bad: print("=== not passed: " + ", ".join(bad))
print("    longest: " + ", ".join(f"{n} {s:.0f} s" for s, n in units[:12]))
sys.exit(1 if bad or failed else 0)
EOF
}

# Issue lines (Swift Testing's ✘ with the ↳ comment lines under them, XCTest's errors)
# of the logs given.
summarize() {
    awk '/^=== timed out/ { hung = 1 }
         hung { print; next }
         /^✘ Test run with/ { next }
         /✘|:[0-9]+: error: |Test Case .* failed/ { print; issue = 1; next }
         issue && /^↳/ { print; next }
         { issue = 0 }' "$@" | head -60
}

# Every suite these lists name must exist: a renamed suite would otherwise leave the
# timing phase quietly, or run in it for nothing.
suites_re() { local IFS='|'; echo "\\.($*)\\b"; }
mapfile -t all_suites < <(printf '%s\n' "${all_tests[@]}" | sed 's#/.*##' | awk '!seen[$0]++')
if [ ${#all_suites[@]} -eq 0 ]; then echo "test.sh: the test bundle lists no tests ($bundle)" >&2; exit 1; fi
declare -A known=()
for s in "${all_suites[@]}" "${all_tests[@]}"; do known[$s]=1; done
for s in "${TIMING[@]}" "${BESIDE[@]}" "${SPLIT[@]}" "${LONGEST[@]}" "${ALONE[@]}"; do
    if [ -z "${known[$s]:-}" ]; then
        echo "test.sh: no suite or test $s in the test bundle (TIMING, BESIDE, SPLIT, LONGEST or ALONE names it)" >&2
        exit 1
    fi
done

# --hogs: K busy loops, from here to the end.
pids=()
for _ in $(seq "$hogs"); do
    ( while :; do :; done ) &
    pids+=($!)
done
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null' EXIT

# With arguments (a --filter while working on a few tests): one process runs what they
# select, one suite after another (N times with --repeat).
if [ ${#args[@]} -gt 0 ]; then
    rc=0
    for i in $(seq "$((repeat > 0 ? repeat : 1))"); do
        [ "$repeat" -eq 0 ] || echo "=== run $i of $repeat ==="
        run_tests "${args[@]}" 2>&1 | tee "$logs/selected$i.log" || rc=$?
    done
    [ "$rc" -eq 0 ] || { echo; echo "=== failures (from $logs) ==="; summarize "$logs"/selected*.log; }
    exit "$rc"
fi

if [ "$repeat" -gt 0 ]; then
    for i in $(seq "$repeat"); do
        t0=$SECONDS
        rc=0
        units "${TIMING[@]}" | quiet_units=1 pool "$TIMING_LANES" "$logs/run$i"
        printf '%s\n' "${ALONE[@]}" | quiet_units=1 pool 1 "$logs/run$i"
        report "$logs/run$i" "run $i" >"$logs/run$i/report.txt" || rc=$?
        echo "run $i of $repeat: exit $rc, $((SECONDS - t0)) s (logs $logs/run$i)"
        sed 's/^/    /' "$logs/run$i/report.txt"
    done
    # One line per test function: passes out of runs, then its suite and name. A
    # parameterized test counts as failed in a run when any of its cases failed.
    echo
    echo "=== timing suites: passes of $repeat runs (with $hogs busy loops beside them, $TIMING_LANES processes at once) ==="
    python3 - "$logs" "$repeat" <<'EOF'
import sys, glob, xml.etree.ElementTree as ET
logs, runs = sys.argv[1], int(sys.argv[2])
passes, seen = {}, {}
for run in range(1, runs + 1):
    failed_here = {}
    for path in sorted(glob.glob(f"{logs}/run{run}/*.xml")):
        for case in ET.parse(path).getroot().iter("testcase"):
            key = f"{case.get('classname')}/{case.get('name')}"
            failed_here[key] = failed_here.get(key, False) or case.find("failure") is not None or case.find("error") is not None
    for key, failed in failed_here.items():
        seen[key] = seen.get(key, 0) + 1
        passes[key] = passes.get(key, 0) + (0 if failed else 1)
for key in sorted(seen, key=lambda k: (passes[k] - runs, k)):
    print(f"{passes[key]:3d}/{runs}  {key}" + ("" if seen[key] == runs else f"  (ran {seen[key]} times)"))
flaky = sum(1 for k in seen if passes[k] < runs)
print(f"{len(seen)} tests, {flaky} failed at least once")
EOF
    echo "total $((SECONDS - started)) s; logs in $logs"
    summarize "$logs"/run*/*.log
    exit 0
fi

# BESIDE: a process of its own from the start until it ends, beside both phases.
status=0
mkdir -p "$logs/beside"
(
    t0=$EPOCHREALTIME rc=0
    run_limited "$BESIDE_LIMIT" "$logs/beside/beside.log" --filter "$(suites_re "${BESIDE[@]}")" --xunit-output "$logs/beside/beside.xml" || rc=$?
    awk -v rc="$rc" -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%s %.1f\n", rc, b - a }' >"$logs/beside/beside.rc"
) &
beside_pid=$!

# The two phases run side by side. Phase 1 computes and asserts no time, so it runs at
# a lower priority (nice PHASE1_NICE): a timing suite's thread that wakes takes a core
# from it at once, and phase 1 has what the mostly waiting timing suites leave. When
# the timing suites are done, phase 1's processes get the normal priority back (as
# root, which the namespaces need anyway), so that on a loaded machine they are not
# starved by the load. Then the tests in ALONE, with nothing beside them.
PHASE1_NICE=10
echo "=== phase 1: suites that measure no timing, $UNTIMED_LANES processes at once, at nice $PHASE1_NICE (${BESIDE[*]} in another beside them) ==="
mapfile -t untimed < <(printf '%s\n' "${all_suites[@]}" | grep -vxF -f <(printf '%s\n' "${TIMING[@]}" "${BESIDE[@]}"))
(
    renice -n "$PHASE1_NICE" -p "$BASHPID" >/dev/null
    t0=$SECONDS
    units "${untimed[@]}" | pool "$UNTIMED_LANES" "$logs/untimed"
    echo "=== phase 1 took $((SECONDS - t0)) s ==="
) &
phase1_pid=$!

t2=$SECONDS
echo "=== phase 2: timing suites, $TIMING_LANES processes at once ==="
timing_status=0
units "${TIMING[@]}" | pool "$TIMING_LANES" "$logs/timing"
echo "=== timing suites took $((SECONDS - t2)) s; waiting for phase 1 and ${BESIDE[*]} ==="
# Phase 1's processes back to the normal priority, every thread of each (Linux's nice is
# a thread's): its pool first, whose new processes then inherit it, and again for any
# started meanwhile.
for _ in 1 2; do
    for pid in $(descendants "$phase1_pid"); do
        for task in /proc/"$pid"/task/*; do renice -n 0 -p "${task##*/}" >/dev/null 2>&1 || true; done
    done
done
wait "$phase1_pid" || true
report "$logs/untimed" "untimed suites" || status=1
wait "$beside_pid" || true
echo "=== ${BESIDE[*]} (beside both phases), $(cut -d' ' -f2 "$logs/beside/beside.rc") s ==="
cat "$logs/beside/beside.log"
report "$logs/beside" "${BESIDE[*]}" || status=1
echo "=== the tests in ALONE, one at a time: ${ALONE[*]} ==="
printf '%s\n' "${ALONE[@]}" | pool 1 "$logs/timing"
report "$logs/timing" "timing suites" || timing_status=1
[ "$status" -ne 0 ] || status=$timing_status
echo "=== phase 2 took $((SECONDS - t2)) s; tests $((SECONDS - started)) s in all; logs in $logs ==="

if [ "$status" -ne 0 ]; then
    echo
    echo "=== failures (from $logs) ==="
    summarize $(find "$logs" -name '*.log' | sort)
fi
exit "$status"
