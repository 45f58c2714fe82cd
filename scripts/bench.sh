#!/usr/bin/env bash
# Runs the core benchmarks and prints each result as a ratio against its reference
# measured in the same run (see BENCHMARKS.md). Needs OpenBLAS for the sgemm reference
# and numpy for the random-number comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if ! ldconfig -p | grep -q libopenblas; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q libopenblas-dev
fi
python3 -c "import numpy" 2>/dev/null || pip install -q numpy
cargo bench --bench core -- "$@"
# numpy's times for the random-number benchmarks, right after Sluice's (same machine state).
python3 scripts/bench_numpy.py
python3 scripts/bench_report.py
