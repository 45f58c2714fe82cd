#!/usr/bin/env bash
# Runs the C, C++ and Fortran versions of the same program with one fresh seed and checks
# they print the same bits.   compare.sh <same_c> <same_cpp> <same_f90>
set -euo pipefail
seed=${SLUICE_TEST_SEED:-$(( (RANDOM << 15) ^ RANDOM ^ $$ ))}
echo "same_program: SLUICE_TEST_SEED=$seed"
c=$("$1" "$seed"); cpp=$("$2" "$seed"); f90=$("$3" "$seed")
echo "$c"
[ "$(wc -l <<<"$c")" -eq 5 ] || { echo "the C program printed too little"; exit 1; }
diff <(echo "$c") <(echo "$cpp") || { echo "C and C++ differ"; exit 1; }
diff <(echo "$c") <(echo "$f90") || { echo "C and Fortran differ"; exit 1; }
echo "C, C++ and Fortran agree bit for bit"
