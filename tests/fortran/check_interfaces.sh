#!/usr/bin/env bash
# The Fortran module binds every function of the C header under its C name, and declares
# every constant of the header with the same value (also used for sluice_mpi.h and
# sluice_mpi.f90) (op codes, whose C names would clash
# with the functions in case-blind Fortran, as SL_UNARY_*, SL_BINARY_* or SL_REDUCE_*).
#   check_interfaces.sh <sluice.h> <sluice.f90> [fewest functions the header has: 100]
set -euo pipefail
header=$1
module=$2

declared=$(sed -n 's/^sl_status \(sl_[a-z0-9_]*\)(.*/\1/p' "$header" | sort -u)
fewest=${3:-100}
if [ "$(wc -l <<<"$declared")" -lt "$fewest" ]; then
  echo "parsed too few functions from $header"; exit 1
fi
bound=$(sed -n 's/.*bind(C, name="\(sl_[a-z0-9_]*\)").*/\1/p' "$module" | sort)
if [ -n "$(uniq -d <<<"$bound")" ]; then
  echo "bound more than once:"; uniq -d <<<"$bound"; exit 1
fi
if ! diff <(echo "$declared") <(echo "$bound"); then
  echo "the header's functions (<) and the module's bind(C) interfaces (>) differ"; exit 1
fi
misnamed=$(sed -n 's/.*function \([a-z0-9_]*\)(.*bind(C, name="\(sl_[a-z0-9_]*\)").*/\1 \2/p' "$module" |
  awk '$1 != $2')
if [ -n "$misnamed" ]; then
  echo "interfaces whose Fortran name is not the C name:"; echo "$misnamed"; exit 1
fi

declare -A value
while read -r name v; do value[$name]=$v; done < <(grep -o 'SL_[A-Z0-9_]* = -\?[0-9]*' "$module" | tr -d '=')
problems=0
checked=0
while read -r name v; do
  wanted=$name
  if grep -qx "$(tr 'A-Z' 'a-z' <<<"$name")" <<<"$declared"; then
    wanted=""
    for prefix in SL_UNARY_ SL_BINARY_ SL_REDUCE_; do
      [ -n "${value[$prefix${name#SL_}]+x}" ] && wanted=$prefix${name#SL_}
    done
  fi
  if [ -z "$wanted" ] || [ -z "${value[$wanted]+x}" ]; then
    echo "constant $name = $v is missing from the module"; problems=1
  elif [ "${value[$wanted]}" != "$v" ]; then
    echo "constant $wanted is ${value[$wanted]} in the module, $name is $v in the header"; problems=1
  fi
  checked=$((checked + 1))
done < <(sed -n 's/^#define \(SL_[A-Z0-9_]*\) \(-\?[0-9][0-9]*\)$/\1 \2/p' "$header")
if [ "$checked" -ne "${#value[@]}" ]; then
  echo "the module declares ${#value[@]} constants, the header $checked"; problems=1
fi
[ "$problems" -eq 0 ] || exit 1
echo "interfaces: $(wc -l <<<"$declared") functions and $checked constants, exactly the header's"
