#!/usr/bin/env bash
# Runs every test: the Rust test suite (on the CPU executor, then again on the Vulkan
# executor with the validation layers on; lavapipe where there is no GPU), then the C
# tests built with CMake against the installed library (plain, and again under
# AddressSanitizer/UBSan).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cargo test --locked
# The suites whose work runs on an executor, again on Vulkan (backend, program_cache and spill choose their own).
vulkan_suites=()
for f in tests/*.rs; do
  case "$(basename "$f" .rs)" in header | dlopen | backend | program_cache | spill) ;; *) vulkan_suites+=(--test "$(basename "$f" .rs)") ;; esac
done
SLUICE_BACKEND=vulkan SLUICE_VULKAN_VALIDATION=on cargo test --locked "${vulkan_suites[@]}"
scripts/install-lib.sh
for variant in plain sanitize; do
  flag=OFF
  [ "$variant" = sanitize ] && flag=ON
  cmake -S tests/c -B "build/c-tests-$variant" -DCMAKE_PREFIX_PATH="$PWD/build/install" -DSLUICE_TEST_SANITIZE=$flag
  cmake --build "build/c-tests-$variant"
  ctest --test-dir "build/c-tests-$variant" --output-on-failure
done
echo "all tests passed"
