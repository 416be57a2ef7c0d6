#!/usr/bin/env bash
# lmforge against llama.cpp's llama-server on the same GGUF and the same kernels: llama-server
# is built from the release lmforge's binaries come from and linked against those very
# libraries (bench/build-peer-llama-server.sh, built once and cached). Prints kernel parity,
# then per concurrency the median ratio (lmforge / llama-server) of output throughput, TTFT and
# ITL with its min–max over interleaved repetitions (A B B A …), every prompt distinct and
# verified cache-cold on both servers (prefix cache off on both), the same threads on both.
#
# Usage: bench/compare-llama-server.sh [--model MODEL.gguf] [--concurrency 1,4,16] [--reps 5]
#          [--input-len 128] [--output-len 64] [--num-prompts N] [--threads N] [--json]
# Default model: the pulled default (smollm2). --json: one object per concurrency with
# concurrency, throughput_ratio, ttft_ratio, itl_ratio, kernel_parity (and their spread).
# A quiet machine is needed for figures worth reporting; --threads should not exceed the cores
# left free by everything else running.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
bench/build-peer-llama-server.sh >/dev/null
exec npx tsx bench/compare.ts "$@"
