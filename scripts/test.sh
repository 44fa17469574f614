#!/usr/bin/env bash
# Sets up the machine and runs the whole test suite (unit, plugin, link-emulation and
# end-to-end CLI tests). Tests that create network namespaces need root.
#
#   scripts/test.sh [OPTION...]              the whole suite (the README's test command);
#                                            options go to Swift Testing (--filter RE...)
#   scripts/test.sh --repeat N [--hogs K]    only the timing suites, N times in a row
#                                            (K busy loops beside them: a loaded
#                                            machine), then each test's pass count
#
# The whole suite runs in two phases (docs/TESTING.md):
#  1. the suites that measure no timing, as two processes side by side: the scaffold
#     end-to-end test (building a copy of the package on the package's own build
#     products) and the Slurm clusters (minutes, mostly waiting on Slurm) in one, all
#     the others in the other;
#  2. the timing suites (TIMING below), serially and alone: they assert times, rates
#     or ratios measured on this machine, and on two cores anything running beside
#     them competes for the cores they measure.
# Each phase's log is kept; when a test fails, its issues are repeated at the end of
# the output, where a CI page that shows only the tail still names them.
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
# Phase 1's second process: suites that take long but mostly wait (a build of the
# scaffold's copy, Slurm daemons and their jobs) and assert no time.
BESIDE=(ScaffoldEndToEndTests SlurmClusterTests)

suites() { local IFS='|'; echo "\\.($*)\\b"; }
timing_re=$(suites "${TIMING[@]}")
beside_re=$(suites "${BESIDE[@]}")
untimed_re=$(suites "${TIMING[@]}" "${BESIDE[@]}")

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
if ! [[ "$repeat" =~ ^[0-9]+$ && "$hogs" =~ ^[0-9]+$ ]]; then
    echo "test.sh: --repeat and --hogs take a whole number" >&2
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

logs=$(mktemp -d -t peerbench-test.XXXXXX)
started=$SECONDS

# Issue lines (Swift Testing's ✘ with the ↳ comment lines under them, XCTest's errors)
# of the logs given.
summarize() {
    awk '/^✘ Test run with/ { next }
         /✘|:[0-9]+: error: |Test Case .* failed/ { print; issue = 1; next }
         issue && /^↳/ { print; next }
         { issue = 0 }' "$@" | head -60
}

if [ "$repeat" -gt 0 ]; then
    pids=()
    for _ in $(seq "$hogs"); do
        ( while :; do :; done ) &
        pids+=($!)
    done
    trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null' EXIT
    for i in $(seq "$repeat"); do
        t0=$SECONDS
        rc=0
        run_tests --filter "$timing_re" --xunit-output "$logs/run$i.xml" "${args[@]}" \
            >"$logs/run$i.log" 2>&1 || rc=$?
        echo "run $i of $repeat: exit $rc, $((SECONDS - t0)) s (log $logs/run$i.log)"
    done
    # One line per test function: passes out of runs, then its suite and name. A
    # parameterized test counts as failed in a run when any of its cases failed.
    echo
    echo "=== timing suites: passes of $repeat runs (with $hogs busy loops beside them) ==="
    python3 - "$logs" "$repeat" <<'EOF'
import sys, glob, xml.etree.ElementTree as ET
logs, runs = sys.argv[1], int(sys.argv[2])
passes, seen = {}, {}
for path in sorted(glob.glob(f"{logs}/run*.xml")):
    failed_here = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        key = f"{case.get('classname')}/{case.get('name')}"
        failed_here[key] = failed_here.get(key, False) or case.find("failure") is not None or case.find("error") is not None
    for key, failed in failed_here.items():
        seen[key] = seen.get(key, 0) + 1
        passes[key] = passes.get(key, 0) + (0 if failed else 1)
for key in sorted(seen, key=lambda k: (passes[k] - runs, k)):
    print(f"{passes[key]:3d}/{runs}  {key}" + ("" if seen[key] == runs else f"  (ran {seen[key]} times)"))
flaky = sum(1 for k in seen if passes[k] < runs)
print(f"{len(seen)} tests, {flaky} failed at least once; {len(glob.glob(f'{logs}/run*.xml'))} of {runs} runs left results")
EOF
    echo "total $((SECONDS - started)) s; logs in $logs"
    summarize "$logs"/run*.log
    exit 0
fi

# Phase 1: the untimed suites, the scaffold and Slurm tests beside the rest.
status=0
echo "=== phase 1: suites that measure no timing (${BESIDE[*]} in a second process beside them) ==="
run_tests --filter "$beside_re" "${args[@]}" >"$logs/beside.log" 2>&1 &
beside_pid=$!
run_tests --skip "$untimed_re" "${args[@]}" 2>&1 | tee "$logs/untimed.log" || status=$?
echo "=== untimed suites took $((SECONDS - started)) s ==="
beside_status=0
wait "$beside_pid" || beside_status=$?
echo "=== ${BESIDE[*]} (ran beside the suites above) ==="
cat "$logs/beside.log"
[ "$status" -ne 0 ] || status=$beside_status
echo "=== phase 1 took $((SECONDS - started)) s ==="

# Phase 2: the timing suites, serially, nothing else running.
t2=$SECONDS
echo "=== phase 2: timing suites, serially ==="
timing_status=0
run_tests --filter "$timing_re" "${args[@]}" 2>&1 | tee "$logs/timing.log" || timing_status=$?
[ "$status" -ne 0 ] || status=$timing_status
echo "=== phase 2 took $((SECONDS - t2)) s; tests $((SECONDS - started)) s in all ==="

if [ "$status" -ne 0 ]; then
    echo
    echo "=== failures (from $logs) ==="
    summarize "$logs/untimed.log" "$logs/beside.log" "$logs/timing.log"
fi
exit "$status"
