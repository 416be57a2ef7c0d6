#!/usr/bin/env bash
# lmforge against llama.cpp's llama-server on the same GGUF, measured in one run by the same
# client (`lmforge bench`), at several concurrencies; prints output-token throughput and TTFT
# p50 of both and their ratios (lmforge / llama-server).
#
# Usage: bench/compare-llama-server.sh [MODEL.gguf] [--concurrency "1 4 16"] [--input-len 128] [--output-len 64]
# Default model: the pulled default (smollm2). Both servers get 16 sequences sharing one
# 8192-cell KV cache, and every run its own prompt seed, so no server replays a cached prompt.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

model=""
concurrencies="1 4 16"
input_len=128
output_len=64
while [[ $# -gt 0 ]]; do
  case "$1" in
    --concurrency) concurrencies="$2"; shift 2 ;;
    --input-len) input_len="$2"; shift 2 ;;
    --output-len) output_len="$2"; shift 2 ;;
    *) model="$1"; shift ;;
  esac
done
[[ -n "$model" ]] || model=$(node bin/lmforge.mjs pull | tail -n 1)

peer_port=18081
ours_port=18082
logs=$(mktemp -d)
cleanup() { kill "${peer_pid:-}" "${ours_pid:-}" 2>/dev/null || true; }
trap cleanup EXIT

bench/peer-llama-server.sh "$model" --port "$peer_port" --parallel 16 >"$logs/peer.log" 2>&1 &
peer_pid=$!
node bin/lmforge.mjs serve "$model" --port "$ours_port" --overrides "max_num_sequence=16" >"$logs/lmforge.log" 2>&1 &
ours_pid=$!
for port in "$peer_port" "$ours_port"; do
  for _ in $(seq 1 1200); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
    sleep 0.5
  done
  curl -sf "http://127.0.0.1:$port/health" >/dev/null || { echo "server on $port did not start; logs in $logs" >&2; exit 1; }
done

run() { # url concurrency seed -> "output_tok_per_s ttft_p50_ms"
  node bin/lmforge.mjs bench --url "$1" --concurrency "$2" --num-prompts $(( $2 * 4 > 8 ? $2 * 4 : 8 )) \
    --input-len "$input_len" --output-len "$output_len" --seed "$3" --json |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);console.log(r.output_throughput.toFixed(1),r.ttft_ms.p50.toFixed(1))})'
}

printf '%-12s %16s %16s %8s %14s %14s %8s\n' concurrency lmforge_tok/s llama_tok/s ratio lmforge_ttft llama_ttft ratio
seed=1000
turn=0
for c in $concurrencies; do
  # Alternate which server goes first at each concurrency, so drift on a shared machine evens out.
  if (( turn++ % 2 == 0 )); then
    read -r ours_tps ours_ttft < <(run "http://127.0.0.1:$ours_port" "$c" $((seed++)))
    read -r peer_tps peer_ttft < <(run "http://127.0.0.1:$peer_port" "$c" $((seed++)))
  else
    read -r peer_tps peer_ttft < <(run "http://127.0.0.1:$peer_port" "$c" $((seed++)))
    read -r ours_tps ours_ttft < <(run "http://127.0.0.1:$ours_port" "$c" $((seed++)))
  fi
  printf '%-12s %16s %16s %8s %14s %14s %8s\n' "$c" "$ours_tps" "$peer_tps" \
    "$(node -e "console.log(($ours_tps/$peer_tps).toFixed(2))")" "$ours_ttft" "$peer_ttft" \
    "$(node -e "console.log(($ours_ttft/$peer_ttft).toFixed(2))")"
done
