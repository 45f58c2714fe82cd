#!/usr/bin/env bash
# The main job: builds and installs Sluice, then builds and runs the C example (Monte
# Carlo pricing of a European option, checked against Black-Scholes) against the
# installed header and library.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/install-lib.sh
cmake -S examples/c -B build/examples -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/examples
build/examples/monte_carlo
