#!/usr/bin/env bash
# Runs every test: the Rust test suite, then the C and C++ tests built with CMake against
# the installed library (plain, and again under AddressSanitizer/UBSan), then the C++
# example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo test --locked
scripts/install-lib.sh
for suite in c cpp; do
  for variant in plain sanitize; do
    flag=OFF
    [ "$variant" = sanitize ] && flag=ON
    dir="build/$suite-tests-$variant"
    cmake -S "tests/$suite" -B "$dir" -DCMAKE_PREFIX_PATH="$PWD/build/install" -DSLUICE_TEST_SANITIZE=$flag
    cmake --build "$dir"
    ctest --test-dir "$dir" --output-on-failure
  done
done
cmake -S examples/cpp -B build/examples-cpp -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/examples-cpp
build/examples-cpp/heat
echo "all tests passed"
