#!/usr/bin/env bash
# Runs every test: the Rust test suite, then the C tests built with CMake against the
# installed library (plain, and again under AddressSanitizer/UBSan), then the Fortran
# tests and the Fortran example, built the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo test --locked
scripts/install-lib.sh
for variant in plain sanitize; do
  flag=OFF
  [ "$variant" = sanitize ] && flag=ON
  cmake -S tests/c -B "build/c-tests-$variant" -DCMAKE_PREFIX_PATH="$PWD/build/install" -DSLUICE_TEST_SANITIZE=$flag
  cmake --build "build/c-tests-$variant"
  ctest --test-dir "build/c-tests-$variant" --output-on-failure
done
cmake -S tests/fortran -B build/f-tests -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/f-tests
ctest --test-dir build/f-tests --output-on-failure
cmake -S examples/fortran -B build/f-examples -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/f-examples
build/f-examples/cg_poisson
echo "all tests passed"
