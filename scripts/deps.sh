#!/usr/bin/env bash
# Installs the system packages Sluice's build and tests need, if any are missing
# (Debian/Ubuntu). Rust (cargo) must already be installed.
set -euo pipefail

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(build-essential)
command -v c++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v gfortran >/dev/null || need+=(gfortran)

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
