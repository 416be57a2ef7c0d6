#!/usr/bin/env bash
# The GPU run kit's builds, started in the background by start.sh: `lmforge backend build cuda`
# (FlashAttention on, every core) and, beside it at a lower priority, the peer llama-server from
# the same tree (bench/build-peer-llama-server.sh), first linked against the CUDA package's
# prebuilt libraries, then linked again against the folder the CUDA build installed, so that
# both servers load the very same files (that folder's libllama and its libggml-cuda.so).
# Writes results/builds.txt (each build's seconds and exit status) and .build-done.
# SMOKE=1 (the CPU rehearsal) skips the CUDA build; SKIP_PEER=1 the peer.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
jobs=$(nproc)
# CMake's default generator needs make; a machine with only ninja builds with that.
if ! command -v make >/dev/null && command -v ninja >/dev/null; then export CMAKE_GENERATOR=Ninja; fi
t0=$(date +%s)
record() { echo "$1" >>"$results/builds.txt"; echo "build: $1"; }

cuda_build() {
  if [[ ${SMOKE:-0} == 1 ]]; then echo "SMOKE: no CUDA build" >"$logs/cuda-build.log"; return 0; fi
  # FA=0 leaves FlashAttention's kernels out: a build several times faster, for a short device budget.
  local fa=()
  [[ ${FA:-1} == 0 ]] && fa=(--no-flash-attention)
  lmforge backend build cuda --arch "$arch" --jobs "$jobs" ${fa[@]+"${fa[@]}"} >"$logs/cuda-build.log" 2>&1
}
peer_build() {
  if [[ ${SKIP_PEER:-0} == 1 ]]; then echo "SKIP_PEER: no peer build" >"$logs/peer-build.log"; return 1; fi
  PEER_DIR=$src PEER_PREBUILT=$cuda_prebuilt PEER_JOBS=$jobs nice -n 10 bash "$root/bench/build-peer-llama-server.sh" >"$logs/peer-build.log" 2>&1
}

cuda_build &
cuda_pid=$!
peer_build &
peer_pid=$!
wait "$cuda_pid"; cuda_rc=$?
if [[ ${SMOKE:-0} == 1 ]]; then
  record "cuda: skipped (SMOKE)"
else
  record "cuda: exit $cuda_rc after $(($(date +%s) - t0)) s (lmforge backend build cuda --arch $arch --jobs $jobs, FlashAttention $([[ ${FA:-1} == 0 ]] && echo off || echo on), ${CMAKE_GENERATOR:-Unix Makefiles})"
fi
wait "$peer_pid"; peer_rc=$?
record "peer: exit $peer_rc after $(($(date +%s) - t0)) s (llama-server on $cuda_prebuilt)"

# The peer on the CUDA build's folder: only the link runs again (its stamp names the folder).
if [[ $peer_rc == 0 && $cuda_rc == 0 && ${SMOKE:-0} != 1 ]]; then
  PEER_DIR=$src PEER_PREBUILT=$cuda_build bash "$root/bench/build-peer-llama-server.sh" >>"$logs/peer-build.log" 2>&1
  peer_rc=$?
  record "peer relink on $cuda_build: exit $peer_rc"
fi
if [[ $peer_rc == 0 ]]; then echo "$LMFORGE_HOME/peer/prebuilt-$version/bin" >"$run/peer-bin"; fi
touch "$run/.build-done"
