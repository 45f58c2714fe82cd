#!/usr/bin/env bash
# Builds libsluice (release) and installs library, header and CMake package into
# build/install, the prefix the examples and C tests are built against.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/lib -DCMAKE_BUILD_TYPE=Release
cmake --build build/lib
cmake --install build/lib --prefix "$PWD/build/install"
