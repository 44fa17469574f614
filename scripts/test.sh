#!/usr/bin/env bash
# Sets up the machine and runs the whole test suite (unit, plugin, link-emulation and
# end-to-end CLI tests). Tests that create network namespaces need root.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build --build-tests
swift test --skip-build "$@"
