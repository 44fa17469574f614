#!/usr/bin/env bash
# Prints the path of a Python that has DuckDB, the reference the analysis benchmarks
# (bench-compare.sh, bench-merge.sh, bench-report.py) measure peerbench against. It lives
# in its own virtual environment, .build/duckdb-venv, made once from PyPI; python3-venv
# and time (for the benchmarks' peak memory) come from scripts/setup.sh bench.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
venv=$repo/.build/duckdb-venv
"$repo/scripts/setup.sh" bench >&2
if ! "$venv/bin/python" -c "import duckdb" >/dev/null 2>&1; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install -q duckdb >&2
fi
echo "$venv/bin/python"
