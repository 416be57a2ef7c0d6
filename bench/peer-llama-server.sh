#!/usr/bin/env bash
# Serves a GGUF with llama.cpp's llama-server, built from the release lmforge's binaries come
# from and linked against those very libraries (bench/build-peer-llama-server.sh), so lmforge
# and llama-server run the same kernels and can be measured by `lmforge bench` in one run.
#
# Usage:
#   bench/peer-llama-server.sh --build-only
#   bench/peer-llama-server.sh MODEL.gguf [--port 8081] [--parallel 4] [--ctx 8192] [--threads N] [--kv-split] [-- EXTRA...]
#
# --kv-split: each slot gets --ctx / --parallel cells of its own (llama-server's default), as
# lmforge's --kv-layout per-sequence does, instead of one shared pool.
#
# The tree and build live outside the repo (see build-peer-llama-server.sh); the build is
# skipped when it is already there.
# Both servers keep finished prompts (llama-server per slot and in --cache-ram, lmforge in its
# prefix cache): give each `lmforge bench` run its own --seed so neither sees prompts it has
# seen before, unless prompt reuse is what is measured (npm run bench:prefix).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

build_only=0
model=""
port=8081
parallel=4
# lmforge's local mode gives all sequences the model's context window as one shared KV pool;
# --kv-unified below makes llama-server share its -c cells the same way instead of splitting them.
ctx=8192
unified=(--kv-unified)
threads=$(nproc)
extra=()

while (($#)); do
  case "$1" in
    --build-only) build_only=1 ;;
    --port) port=$2; shift ;;
    --parallel) parallel=$2; shift ;;
    --ctx) ctx=$2; shift ;;
    --threads) threads=$2; shift ;;
    --kv-split) unified=() ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "peer-llama-server: unknown option $1" >&2; exit 2 ;;
    *) model=$1 ;;
  esac
  shift
done

binary="$("$repo/bench/build-peer-llama-server.sh")/llama-server"

((build_only)) && { echo "$binary"; exit 0; }
[[ -n "$model" ]] || { echo "peer-llama-server: give a GGUF file (or --build-only)" >&2; exit 2; }
[[ -f "$model" ]] || { echo "peer-llama-server: no such model file: $model" >&2; exit 1; }

# Same thread count as lmforge (os.availableParallelism()); the model id is the file's path,
# as `lmforge serve PATH` names its model.
exec "$binary" --model "$model" --alias "$model" --host 127.0.0.1 --port "$port" \
  --parallel "$parallel" --ctx-size "$ctx" ${unified[@]+"${unified[@]}"} --threads "$threads" \
  --threads-batch "$threads" ${extra[@]+"${extra[@]}"}
