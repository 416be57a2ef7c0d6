#!/usr/bin/env bash
# Rehearses the GPU run kit on this (CPU) machine as the device will see it: a copy of the tree
# as a call copies it (tracked files and untracked ones git does not ignore, no node_modules),
# the kit's folders arriving one call at a time, a clean HOME, the kit's own node first on
# PATH, and SMOKE=1 (no CUDA build, --device cpu, tiny sizes). Everything but nvcc's build runs.
#
# Usage: bench/gpu/rehearse.sh SCRATCH [KITDIR]     # KITDIR: made by make-kit.sh, default .gpu-kit
#        SKIP_PEER=1 bench/gpu/rehearse.sh SCRATCH  # without the peer build (slow on few cores)
# Leaves SCRATCH/out (what $OUT would bring back) and SCRATCH/repo/.gpu-run (the device's state).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=$(realpath -m "$1")
kit=$(realpath "${2:-$repo/.gpu-kit}")
[[ ! -e $scratch/repo ]] || { echo "rehearse: $scratch/repo exists: give a fresh folder" >&2; exit 1; }
mkdir -p "$scratch/repo" "$scratch/home" "$scratch/out"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$scratch/repo")
export HOME=$scratch/home SMOKE=1 OUT=$scratch/out
unset LMFORGE_HOME
# Without a node of its own on PATH the kit must bring one: /usr/bin stays (xz, tar), so check which runs.
for call in call1 call2 call3; do
  mkdir -p "$scratch/repo/.gpu-kit"
  cp -r "$kit/$call" "$scratch/repo/.gpu-kit/"
  wait=0
  [[ $call == call3 ]] && wait=${WAIT_S:-1200}
  echo "=== $call: bash bench/gpu/start.sh $wait"
  (cd "$scratch/repo" && bash bench/gpu/start.sh "$wait")
  if [[ $call == call1 ]]; then
    echo "node used there: $(cd "$scratch/repo" && source bench/gpu/env.sh && command -v node)"
  fi
done
ls -la "$scratch/out"
