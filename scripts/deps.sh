#!/usr/bin/env bash
# Installs the system packages Sluice's build and tests need, if any are missing
# (Debian/Ubuntu). Rust (cargo) must already be installed.
#
# With SLUICE_DEPS_UPGRADE=1 (set by CI, .ci/run) it also refreshes the package lists and
# brings every one of these packages to the newest version available, installed or not:
# the tests then run against what a fresh machine gets today (a new driver build, say).
#
# Vulkan: the library loads the loader (libvulkan1) at run time, so no Vulkan headers or
# link library are needed to build; mesa-vulkan-drivers brings lavapipe (a software
# device the Vulkan tests run on), vulkan-validationlayers the layers they enable.
# shaderc is linked statically from libshaderc-dev, glslang-dev and spirv-tools. The math
# accuracy test (tests/math.rs) computes its reference with the system's MPFR and GMP.
# libsluice_mpi and its tests need MPI: OpenMPI's compiler wrappers and headers
# (libopenmpi-dev) and mpirun (openmpi-bin).
set -euo pipefail

# Each command the build runs, and the package that brings it.
commands=(cmake:cmake cc:build-essential c++:g++ pkg-config:pkg-config gfortran:gfortran python3:python3 mpirun:openmpi-bin)
libraries=(libvulkan1 mesa-vulkan-drivers vulkan-validationlayers libshaderc-dev glslang-dev spirv-tools libgmp-dev libmpfr-dev libopenmpi-dev)

need=()
for entry in "${commands[@]}"; do
  command -v "${entry%%:*}" >/dev/null || need+=("${entry#*:}")
done
for pkg in "${libraries[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ "${SLUICE_DEPS_UPGRADE:-0}" = 1 ]; then
  need=("${commands[@]#*:}" "${libraries[@]}")
fi

if ! command -v cargo >/dev/null; then
  echo "cargo not found: install Rust first (https://rustup.rs)" >&2
  exit 1
fi
if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing (or upgrading): ${need[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"
  dpkg-query -W -f='${Package} ${Version}\n' "${libraries[@]}"
fi
