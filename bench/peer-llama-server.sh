#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source bundle node-llama-cpp carries (the same
# llama.cpp release lmforge's binaries come from) and serves a GGUF with it, so lmforge and
# llama-server can be measured by `lmforge bench` in one run.
#
# Usage:
#   bench/peer-llama-server.sh --build-only
#   bench/peer-llama-server.sh MODEL.gguf [--port 8081] [--parallel 4] [--ctx 8192] [--threads N] [-- EXTRA...]
#
# The tree and build live outside the repo, in $PEER_DIR
# (default ${LMFORGE_HOME:-$HOME/.cache/lmforge}/peer/llama.cpp); the build is skipped when
# the binary is already there. The bundle comes from the npm package node-llama-cpp, fetched
# with `npm pack` by fixtures/llama-source-bundle.ts (the registry is the only download).
# Both servers keep finished prompts (llama-server per slot and in --cache-ram, lmforge in its
# prefix cache): give each `lmforge bench` run its own --seed so neither sees prompts it has
# seen before, unless prompt reuse is what is measured (npm run bench:prefix).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
peer_dir=${PEER_DIR:-${LMFORGE_HOME:-$HOME/.cache/lmforge}/peer/llama.cpp}
binary="$peer_dir/build/bin/llama-server"

build_only=0
model=""
port=8081
parallel=4
# lmforge's local mode gives all sequences the model's context window as one shared KV pool;
# --kv-unified below makes llama-server share its -c cells the same way instead of splitting them.
ctx=8192
threads=$(nproc)
extra=()

while (($#)); do
  case "$1" in
    --build-only) build_only=1 ;;
    --port) port=$2; shift ;;
    --parallel) parallel=$2; shift ;;
    --ctx) ctx=$2; shift ;;
    --threads) threads=$2; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "peer-llama-server: unknown option $1" >&2; exit 2 ;;
    *) model=$1 ;;
  esac
  shift
done

# GGML_NATIVE, except on x86-64 Linux: there -march=native also turns on AMX wherever the CPU
# reports it, and virtual machines often report AMX without enabling it (llama-server then dies
# of SIGILL on `tilezero`). So take the CPU's features from /proc/cpuinfo, as ggml's own
# per-CPU variants (the ones lmforge loads) are built, and leave AMX out unless PEER_AMX=1.
cpu_features() {
  if [[ $(uname -m) != x86_64 || ! -r /proc/cpuinfo ]]; then echo -DGGML_NATIVE=ON; return; fi
  local flags; flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
  local out=-DGGML_NATIVE=OFF
  has() { [[ $flags == *" $1 "* ]]; }
  has sse4_2 && out+=" -DGGML_SSE42=ON"
  has avx && out+=" -DGGML_AVX=ON"
  has avx2 && out+=" -DGGML_AVX2=ON"
  has fma && out+=" -DGGML_FMA=ON"
  has f16c && out+=" -DGGML_F16C=ON"
  has bmi2 && out+=" -DGGML_BMI2=ON"
  has avx_vnni && out+=" -DGGML_AVX_VNNI=ON"
  has avx512f && has avx512cd && has avx512vl && has avx512dq && has avx512bw && out+=" -DGGML_AVX512=ON"
  has avx512vbmi && out+=" -DGGML_AVX512_VBMI=ON"
  has avx512_vnni && out+=" -DGGML_AVX512_VNNI=ON"
  has avx512_bf16 && out+=" -DGGML_AVX512_BF16=ON"
  if [[ ${PEER_AMX:-0} == 1 ]]; then
    has amx_tile && out+=" -DGGML_AMX_TILE=ON"
    has amx_int8 && out+=" -DGGML_AMX_INT8=ON"
    has amx_bf16 && out+=" -DGGML_AMX_BF16=ON"
  else
    out+=" -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
  fi
  echo "$out"
}

if [[ ! -x "$binary" ]]; then
  if [[ ! -f "$peer_dir/CMakeLists.txt" ]]; then
    bundle=$(cd "$repo" && npx tsx fixtures/llama-source-bundle.ts)
    rm -rf "$peer_dir"
    mkdir -p "$(dirname "$peer_dir")"
    git clone -q "$bundle" "$peer_dir"
  fi
  echo "peer-llama-server: building llama-server in $peer_dir/build (takes a while)" >&2
  # GGML_OPENMP=OFF: ggml's own thread pool, as in the prebuilt binaries lmforge loads.
  cmake -S "$peer_dir" -B "$peer_dir/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF $(cpu_features) -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON >/dev/null
  cmake --build "$peer_dir/build" --target llama-server -j2
fi

((build_only)) && { echo "$binary"; exit 0; }
[[ -n "$model" ]] || { echo "peer-llama-server: give a GGUF file (or --build-only)" >&2; exit 2; }
[[ -f "$model" ]] || { echo "peer-llama-server: no such model file: $model" >&2; exit 1; }

# Same thread count as lmforge (os.availableParallelism()); the model id is the file's path,
# as `lmforge serve PATH` names its model.
exec "$binary" --model "$model" --alias "$model" --host 127.0.0.1 --port "$port" \
  --parallel "$parallel" --ctx-size "$ctx" --kv-unified --threads "$threads" \
  --threads-batch "$threads" ${extra[@]+"${extra[@]}"}
