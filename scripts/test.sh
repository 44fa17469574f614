#!/usr/bin/env bash
# Sets up the machine and runs the whole test suite (unit, plugin, link-emulation and
# end-to-end CLI tests). Tests that create network namespaces need root.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build --build-tests
# Serially: several suites assert timing (deadlines, link delay, pacing) and on a
# two-core machine parallel suites would compete for the cores they measure.
swift test --skip-build --no-parallel "$@"
