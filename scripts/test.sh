#!/usr/bin/env bash
# Runs every test: the Rust test suite (on the CPU executor, then again on the Vulkan
# executor with the validation layers on; lavapipe where there is no GPU), the op suite
# under result comparison, the API reference's freshness, then the C and C++ tests built
# with CMake against the installed library (plain, and again under AddressSanitizer/UBSan),
# the API fuzzer, the Fortran tests, the distributed-array tests (libsluice_mpi) under
# mpirun on 1, 2 and 4 ranks, the same program in C, C++ and Fortran, then the C++ and
# Fortran examples, and their profiles' call sites with everything built at -O0, -O2 and
# -O3.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each command echoed with the seconds since the start, so a log shows where the time went.
export PS4='+ [${SECONDS}s] '
set -x
scripts/deps.sh
cargo test --locked
# The suites whose work runs on an executor, again on Vulkan (backend, program_cache and spill choose their own).
vulkan_suites=()
for f in tests/*.rs; do
  case "$(basename "$f" .rs)" in header | dlopen | backend | program_cache | pipeline_cache | spill) ;; *) vulkan_suites+=(--test "$(basename "$f" .rs)") ;; esac
done
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on cargo test --locked "${vulkan_suites[@]}"
# Kernels with more inputs than a shader may bind (packed into one buffer per type), with the limit lowered.
narrow=(env SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_MAX_BINDINGS=8)
"${narrow[@]}" cargo test --locked --test ops
"${narrow[@]}" cargo test --locked --test fusion -- --exact kernels_reading_many_arrays kernels_storing_many_values
# Reductions and fused graphs with the tree form along long axes forced (lavapipe otherwise loops
# per row), then reductions, transposes and scans with generated kernels only (kernels/ switched off).
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_AXIS_TREE=on cargo test --locked --test reductions --test fusion
# Scans, ops and fused graphs with every scan along an axis in the blocked form (lavapipe
# otherwise takes it only beyond its loop limit).
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_BLOCKED_SCAN=on cargo test --locked --test scans --test ops --test fusion
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_NO_HANDWRITTEN=on cargo test --locked --test reductions --test transpose --test scans --test gather
# Gathers as on a device without 64-bit floats: f64 slices are still copied on the device, as bits.
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_NO_F64=on cargo test --locked --test gather
# Random numbers as on a device without 64-bit floats: f32 kernels must not need them, and
# f32 normal values keep their accuracy without a double-precision cosine.
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_NO_F64=on cargo test --locked --test random
# Dispatches of at most 3 workgroups along x and y: invocations take many points or rows, and
# on lavapipe kernels whose loops would then exceed its limit must run on the CPU instead.
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_MAX_GROUPS=3 cargo test --locked --test ops --test reductions --test scans --test fusion --test transpose --test scatter --test gather
# Sorts and searches on the device (lavapipe otherwise runs them on the CPU executor, faster there).
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_DEVICE_SORT=on cargo test --locked --test sort
# Small factorizations run on the CPU executor on lavapipe by default: force the kernels.
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_DEVICE_FACTOR=on cargo test --locked --test factor
# Scatter again as on a device without 64-bit buffer atomics (8-byte add/min/max then run on the CPU).
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on SLUICE_VULKAN_NO_INT64_ATOMICS=on cargo test --locked --test scatter
# Result comparison passes on the whole op suite (and the promotion table and the statistics), in both modes, on both executors, with the
# default tolerances (a difference fails the read).
for backend in cpu vulkan; do
  for mode in compute copyout; do
    SLUICE_BACKEND=$backend SLUICE_COMPARE=$mode SLUICE_COMPARE_ACTION=error cargo test --locked --test ops --test promotion --test statistics
  done
done
python3 scripts/api_reference.py --check
scripts/install-lib.sh
# libsluice_mpi's own (its header's freshness, the block rule, the halo plans), in the
# release profile: its build links the libsluice.so that install-lib.sh just built.
cargo test --locked --release -p sluice_mpi
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
# The API fuzzer under AddressSanitizer/UBSan, fresh seeds each run (printed): a million
# calls (or two minutes) on the CPU executor, a minute with three threads (thread 0 restarts
# the runtime under the others), and a minute on Vulkan.
scripts/fuzz.sh --skip-install --calls 1000000 --seconds 120
scripts/fuzz.sh --skip-install --threads 3 --calls 1000000 --seconds 60
scripts/fuzz.sh --skip-install --backend vulkan --seconds 60
cmake -S tests/fortran -B build/f-tests -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/f-tests
ctest --test-dir build/f-tests --output-on-failure
# Distributed arrays over MPI: C, C++ and Fortran programs, each run on 1, 2 and 4 ranks.
cmake -S tests/mpi -B build/mpi-tests -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/mpi-tests
ctest --test-dir build/mpi-tests --output-on-failure
cmake -S tests/same_program -B build/same-program -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/same-program
ctest --test-dir build/same-program --output-on-failure
cmake -S examples/cpp -B build/examples-cpp -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/examples-cpp
build/examples-cpp/heat
cmake -S examples/fortran -B build/f-examples -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/f-examples
build/f-examples/cg_poisson
cmake -S tests/sites -B build/sites -DCMAKE_PREFIX_PATH="$PWD/build/install"
cmake --build build/sites
ctest --test-dir build/sites --output-on-failure
echo "all tests passed"
