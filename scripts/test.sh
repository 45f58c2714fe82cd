#!/usr/bin/env bash
# Runs every test: the Rust test suite, then the C and C++ tests built with CMake against
# the installed library (plain, and again under AddressSanitizer/UBSan), the Fortran tests,
# the same program in C, C++ and Fortran, then the C++ and Fortran examples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo test --locked
python3 scripts/api_reference.py --check
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
cmake -S tests/fortran -B build/f-tests -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/f-tests
ctest --test-dir build/f-tests --output-on-failure
cmake -S tests/same_program -B build/same-program -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/same-program
ctest --test-dir build/same-program --output-on-failure
cmake -S examples/cpp -B build/examples-cpp -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/examples-cpp
build/examples-cpp/heat
cmake -S examples/fortran -B build/f-examples -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/f-examples
build/f-examples/cg_poisson
echo "all tests passed"
