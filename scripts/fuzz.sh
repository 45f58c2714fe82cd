#!/usr/bin/env bash
# The API fuzzer (tests/fuzz): installs the library, builds the fuzzer against it with
# AddressSanitizer and UBSan, and runs it with fresh seeds, one run after another, until the
# time is spent or a run finds a broken promise (its seed, call number and last calls are
# printed; rerun with `build/fuzz/fuzz_api --seed N ...` to reproduce).
#
#   scripts/fuzz.sh --minutes 60                 fuzz for an hour (runs of --run-seconds each)
#   scripts/fuzz.sh --calls 1000000 --seconds 120  one run: a million calls or two minutes
#   options: --threads N  --backend cpu|vulkan  --seed N (first run)  --tolerate LETTERS
#            --memory-limit BYTES  --skip-install  -- <more fuzz_api options>
set -euo pipefail
cd "$(dirname "$0")/.."

minutes="" seconds="" run_seconds=300 calls=100000000 threads=1 backend=cpu seed="" install=1
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --run-seconds) run_seconds=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --tolerate | --memory-limit) extra+=("$1" "$2"); shift 2 ;;
    --skip-install) install=0; shift ;;
    --) shift; extra+=("$@"); break ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

[ "$install" = 1 ] && scripts/install-lib.sh
cmake -S tests/fuzz -B build/fuzz -DCMAKE_PREFIX_PATH="$PWD/build/install" >/dev/null
cmake --build build/fuzz >/dev/null

export SLUICE_BACKEND=$backend
# Sanitizer reports name their sources; the fuzzer's own safety net stops it before it
# can take the machine's memory (a broken memory limit would otherwise).
export ASAN_OPTIONS=${ASAN_OPTIONS:-hard_rss_limit_mb=6000:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# One run when no total time is given; otherwise runs of --run-seconds until it is spent.
deadline=$(( $(date +%s) + ${minutes:-0} * 60 ))
while :; do
  s=${seed:-$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')}
  seed=""
  budget=${seconds:-$run_seconds}
  if [ -n "$minutes" ]; then
    left=$(( deadline - $(date +%s) ))
    [ "$left" -le 0 ] && break
    [ "$left" -lt "$budget" ] && budget=$left
  fi
  build/fuzz/fuzz_api --seed "$s" --calls "$calls" --seconds "$budget" --threads "$threads" ${extra[@]+"${extra[@]}"}
  [ -z "$minutes" ] && break
done
