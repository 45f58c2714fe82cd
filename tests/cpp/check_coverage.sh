#!/usr/bin/env bash
# Every function of the C API has a C++ counterpart: sluice.hpp calls each one (also used
# for sluice_mpi.h and sluice_mpi.hpp).
#   check_coverage.sh <sluice.h> <sluice.hpp> [fewest functions the header has: 100]
set -euo pipefail
header=$1
cpp=$2
declared=$(sed -n 's/^sl_status \(sl_[a-z0-9_]*\)(.*/\1/p' "$header" | sort -u)
# Identifiers in code, not in comments.
used=$(sed 's://.*$::' "$cpp" | grep -o '\bsl_[a-z0-9_]*\b' | sort -u)
fewest=${3:-100}
if [ "$(wc -l <<<"$declared")" -lt "$fewest" ]; then
  echo "parsed too few functions from $header"; exit 1
fi
missing=$(comm -23 <(echo "$declared") <(echo "$used"))
if [ -n "$missing" ]; then
  echo "C functions without a C++ counterpart in $cpp:"; echo "$missing"; exit 1
fi
echo "coverage: all $(wc -l <<<"$declared") C functions are wrapped"
