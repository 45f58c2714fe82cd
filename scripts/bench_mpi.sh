#!/usr/bin/env bash
# Weak scaling of the distributed heat stencil (benches/mpi/stencil.c) from 1 to 2 ranks,
# each rank the same local size, with the halo's overlap on and off; the plain one-process
# step of the local size is measured in the same run. Needs the installed package
# (scripts/install-lib.sh). Arguments: rows cols steps per rank (default 2048 2048 40).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-2048} cols=${2:-2048} steps=${3:-40}
cmake -S benches/mpi -B build/mpi-bench -DCMAKE_PREFIX_PATH="$PWD/build/install" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/mpi-bench >/dev/null
flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
uptime
# One Sluice worker per rank: 2 ranks on 2 cores.
for np in 1 2; do
  for overlap in 1 0; do
    mpirun "${flags[@]}" -np "$np" -x SLUICE_THREADS=1 -x SLUICE_MPI_OVERLAP="$overlap" \
      build/mpi-bench/stencil "$rows" "$cols" "$steps"
  done
done
uptime
