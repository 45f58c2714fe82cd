#!/usr/bin/env bash
# The installed shared library exports exactly the functions its header declares.
#   check_exports.sh <libsluice.so> <sluice.h>
set -euo pipefail
lib=$1
header=$2
exported=$(nm -D --defined-only --format=posix "$lib" | awk '{print $1}' | sed 's/@.*//' | sort -u)
declared=$(sed -n 's/^sl_status \(sl_[a-z0-9_]*\)(.*/\1/p' "$header" | sort -u)
foreign=$(grep -v '^sl_' <<<"$exported" || true)
if [ -n "$foreign" ]; then
  echo "symbols outside the C API are exported:"; echo "$foreign"; exit 1
fi
if [ "$(wc -l <<<"$declared")" -lt 100 ]; then
  echo "parsed too few functions from $header"; exit 1
fi
if ! diff <(echo "$declared") <(echo "$exported"); then
  echo "the header's functions (<) and the library's exports (>) differ"; exit 1
fi
echo "exports: $(wc -l <<<"$exported") functions, exactly the header's"
