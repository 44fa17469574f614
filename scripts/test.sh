#!/usr/bin/env bash
# Sets up the machine and runs the whole test suite (unit, plugin, link-emulation and
# end-to-end CLI tests). Tests that create network namespaces need root.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# The import check makes the module graph binding (docs/ARCHITECTURE.md, "Modules and
# the rule"): a module importing one of ours it does not declare fails the build.
swift build --build-tests --explicit-target-dependency-import-check error
# Serially: several suites assert timing (deadlines, link delay, pacing) and on a
# two-core machine parallel suites would compete for the cores they measure.
# The log is kept so that a failure deep in the output is repeated at the end, where
# a CI page that shows only the tail still names it.
log=$(mktemp -t peerbench-test.XXXXXX)
status=0
swift test --skip-build --no-parallel "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo
    echo "=== failures (from $log) ==="
    # Swift Testing's issue lines with the comment lines (↳) under them, XCTest's errors.
    awk '/^✘ Test run with/ { next }
         /✘|:[0-9]+: error: |Test Case .* failed/ { print; issue = 1; next }
         issue && /^↳/ { print; next }
         { issue = 0 }' "$log" | head -60
fi
exit "$status"
