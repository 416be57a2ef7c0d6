#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source bundle node-llama-cpp carries (the same
# llama.cpp release lmforge's binaries come from) and serves a GGUF with it, so lmforge and
# llama-server can be measured by `lmforge bench` in one run.
#
# Usage:
#   bench/peer-llama-server.sh --build-only
#   bench/peer-llama-server.sh MODEL.gguf [--port 8081] [--parallel 4] [--ctx 8192] [-- EXTRA...]
#
# The tree and build live outside the repo, in $PEER_DIR
# (default ${LMFORGE_HOME:-$HOME/.cache/lmforge}/peer/llama.cpp); the build is skipped when
# the binary is already there. Nothing is downloaded: the bundle ships in node_modules.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle="$repo/node_modules/node-llama-cpp/llama/gitRelease.bundle"
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
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "peer-llama-server: unknown option $1" >&2; exit 2 ;;
    *) model=$1 ;;
  esac
  shift
done

if [[ ! -x "$binary" ]]; then
  [[ -f "$bundle" ]] || { echo "peer-llama-server: $bundle is missing: run npm install first" >&2; exit 1; }
  if [[ ! -f "$peer_dir/CMakeLists.txt" ]]; then
    rm -rf "$peer_dir"
    mkdir -p "$(dirname "$peer_dir")"
    git clone -q "$bundle" "$peer_dir"
  fi
  echo "peer-llama-server: building llama-server in $peer_dir/build (takes a while)" >&2
  # GGML_OPENMP=OFF: ggml's own thread pool, as in the prebuilt binaries lmforge loads (and
  # with OpenMP the AMX kernels crashed with a general protection fault on a Sapphire Rapids VM).
  cmake -S "$peer_dir" -B "$peer_dir/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DGGML_NATIVE=ON -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON >/dev/null
  cmake --build "$peer_dir/build" --target llama-server -j2
fi

((build_only)) && { echo "$binary"; exit 0; }
[[ -n "$model" ]] || { echo "peer-llama-server: give a GGUF file (or --build-only)" >&2; exit 2; }
[[ -f "$model" ]] || { echo "peer-llama-server: no such model file: $model" >&2; exit 1; }

# Same thread count as lmforge (os.availableParallelism()); the model id is the file's path,
# as `lmforge serve` names its model.
exec "$binary" --model "$model" --alias "$model" --host 127.0.0.1 --port "$port" \
  --parallel "$parallel" --ctx-size "$ctx" --kv-unified --threads "$threads" \
  --threads-batch "$threads" "${extra[@]}"
