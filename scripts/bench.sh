#!/usr/bin/env bash
# Runs the core benchmarks and prints each result as a ratio against its reference
# measured in the same run (see BENCHMARKS.md). Needs OpenBLAS for the sgemm reference.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
if ! ldconfig -p | grep -q libopenblas; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q libopenblas-dev
fi
cargo bench --bench core -- "$@"
python3 scripts/bench_report.py
