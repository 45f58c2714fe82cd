#!/usr/bin/env bash
# sluice.pc gives the flags of the prefix it is installed in, and of a copy of that prefix
# moved elsewhere; a C program built with those flags alone runs and prints what it should.
#   check_pkg_config.sh <installed libsluice.so> <installed include dir> <C compiler> <program.c> <expected output>
set -euo pipefail
libdir=$(dirname "$(realpath "$1")")
includedir=$(realpath "$2")
cc=$3
program=$4
expected=$5

# The include directory is <prefix>/include (GNUInstallDirs' default).
prefix=$(dirname "$includedir")
[ -f "$libdir/pkgconfig/sluice.pc" ] || { echo "no sluice.pc in $libdir/pkgconfig"; exit 1; }

# The directories named by the -I and -L flags pkg-config gives for the .pc under $1.
flag_dirs() {
  PKG_CONFIG_PATH="$1" PKG_CONFIG_LIBDIR="$1" pkg-config --cflags --libs sluice |
    tr ' ' '\n' | sed -n 's/^-[IL]//p' | xargs -r realpath
}

# Flags from the .pc where it is installed, and from a copy of the prefix moved elsewhere.
check_prefix() {
  local root=$1 lib_dir=$2
  local want got
  want=$(printf '%s\n' "$root/include" "$lib_dir" | xargs realpath)
  got=$(flag_dirs "$lib_dir/pkgconfig")
  if [ "$got" != "$want" ]; then
    echo "pkg-config flags for the prefix $root name:"; echo "$got"; echo "instead of:"; echo "$want"; exit 1
  fi
}

check_prefix "$prefix" "$libdir"

moved=$(mktemp -d)
trap 'rm -rf "$moved"' EXIT
rel_libdir=$(realpath --relative-to="$prefix" "$libdir")
mkdir -p "$moved/$rel_libdir"
cp -a "$prefix/include" "$moved/"
cp -a "$libdir"/libsluice.so* "$libdir/pkgconfig" "$moved/$rel_libdir/"
check_prefix "$moved" "$moved/$rel_libdir"

# shellcheck disable=SC2046  # the flags are words
"$cc" -o "$moved/program" "$program" $(PKG_CONFIG_PATH="$moved/$rel_libdir/pkgconfig" PKG_CONFIG_LIBDIR="$moved/$rel_libdir/pkgconfig" pkg-config --cflags --libs sluice)
out=$(LD_LIBRARY_PATH="$moved/$rel_libdir" "$moved/program")
if [ "$out" != "$expected" ]; then
  echo "the program built with pkg-config's flags printed \"$out\", not \"$expected\""; exit 1
fi
echo "pkg-config: flags follow the prefix ($prefix, and a copy in $moved); the program built with them printed $out"
