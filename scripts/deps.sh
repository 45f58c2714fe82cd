#!/usr/bin/env bash
# Installs the system packages Sluice's build and tests need, if any are missing
# (Debian/Ubuntu). Rust (cargo) must already be installed.
#
# Vulkan: the library loads the loader (libvulkan1) at run time, so no Vulkan headers or
# link library are needed to build; mesa-vulkan-drivers brings lavapipe (a software
# device the Vulkan tests run on), vulkan-validationlayers the layers they enable.
# shaderc is linked statically from libshaderc-dev, glslang-dev and spirv-tools. The math
# accuracy test (tests/math.rs) computes its reference with the system's MPFR and GMP.
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(build-essential)
command -v c++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v gfortran >/dev/null || need+=(gfortran)
command -v python3 >/dev/null || need+=(python3)
for pkg in libvulkan1 mesa-vulkan-drivers vulkan-validationlayers libshaderc-dev glslang-dev spirv-tools libgmp-dev libmpfr-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done

if ! command -v cargo >/dev/null; then
  echo "cargo not found: install Rust first (https://rustup.rs)" >&2
  exit 1
fi
if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${need[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${need[@]}"
fi
