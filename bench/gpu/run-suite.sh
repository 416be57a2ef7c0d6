#!/usr/bin/env bash
# The GPU run kit's measurements (issues 28 and 29), started by start.sh once the model is
# there; it waits for build.sh first. One run, both servers on the same libraries (the folder
# `lmforge backend build cuda` installed), SmolLM2-135M Q4_1, all layers on the card, one shared
# pool of 65,536 KV cells and 64 sequences on each:
#   1. lmforge serve, then `lmforge bench --input-len 128 --output-len 256` at concurrency
#      1, 16, 64 (a warm-up request first; the same prompts, by seed, for both servers), with
#      nvidia-smi sampling GPU utilisation every 200 ms and the per-thread CPU of the server's
#      processes (thread-cpu.mjs) during the 64-stream run; it runs with --profile-steps, and
#      its /debug/step-profile after the rows goes to results/step-profile-lmforge.json;
#   2. the same rows against llama-server (--parallel 64 --ctx-size 65536 --kv-unified -ngl 999);
#   3. bench/host.ts when the tree has it (the step's phases, the C and node floors, the engine
#      process's busiest functions);
#   3b. bench/host.ts at the rows' shapes (the top concurrency, prompts of --input-len tokens,
#      --output-len tokens): the loop over contexts as long as the server's, so that its step
#      and cells in use read beside the server's own at that width;
#   3c. on CUDA, bench/host.ts at the top width with GGML_CUDA_DISABLE_GRAPHS=1 (whether the
#      CUDA graphs the loop's repeated shapes replay are what the server's steps miss);
#   4. lmforge --sampling device at the busy rows; then sampled requests (temperature 1) at the
#      top concurrency, on the host path and with --sampling device;
#   5. bench:speculative (widths 1 and 4; rewrite, json, chat, and predicted last);
#   5b. variants at the busy rows: lmforge --kv-layout per-sequence, llama-server without
#      --kv-unified (a stream per slot);
#   6. logprobs (--top-logprobs 5) at the top concurrency, lmforge on the host path and with
#      --sampling device;
#   7. sampled requests with every sampling stage at once (temperature 0.8, top_p, the three
#      penalties, and lmforge's own links: top_n_sigma, typical_p, XTC, DRY) at the top
#      concurrency, on the host path and with --sampling device;
#   8. bench/host.ts again with --sampling device (the step's phases when tokens are chosen in
#      the graph);
#   9. results/summary.txt (summarize.mjs).
# In that order, within SUITE_BUDGET_S seconds from the end of the builds (default 450: issue 29
# asks for under 8 minutes on the card): a step starts only while about its time is left, no
# bench runs past the budget, and what it cuts, the least important, is listed in
# results/skipped.txt and the summary (with the time taken, results/budget.txt).
# A server that dies is not waited on: its log's tail goes into results/, the rest goes on.
# SMOKE=1: the CPU rehearsal (--device cpu, tiny lengths and concurrencies, no nvidia-smi).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$root"
smoke=${SMOKE:-0}
say() { echo "suite $(date +%T): $*"; }
tsx=("node" "$root/node_modules/tsx/dist/cli.mjs")

if [[ $smoke == 1 ]]; then
  device=cpu input_len=16 output_len=8 concurrencies=(1 4) slots=4 cells=8192 threads=1
  spec_args=(--widths 1 --workloads rewrite --reps 1 --tokens 8 --threads 1) host_widths=1,4
else
  device=cuda input_len=128 output_len=256 concurrencies=(1 16 64) slots=64 cells=65536 threads=$(nproc)
  spec_args=(--widths 1,4 --workloads rewrite,json,chat,predicted --reps 2 --tokens 192) host_widths=1,16,64
fi
top=${concurrencies[-1]}

{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' | sed 's/^/nvcc: /'
  echo "tree: $(cat "$kit/call1/tree-commit" 2>/dev/null || echo unknown); device: $device"
} >"$results/machine.txt"

say "waiting for the builds"
until [[ -f $run/.build-done ]]; do sleep 2; done
cat "$results/builds.txt"
if [[ $smoke != 1 && ! -f $cuda_build/libggml-cuda.so ]]; then
  say "the CUDA build failed: nothing to measure on the card"
  tail -n 30 "$logs/cuda-build.log" >"$results/cuda-build-failure.txt"
  node "$root/bench/gpu/summarize.mjs" "$results" >"$results/summary.txt"
  touch "$run/.suite-done"
  exit 1
fi

# The budget (above): left(), fits NAME NEED_S (records a step it cuts), within TIMEOUT_S.
budget=${SUITE_BUDGET_S:-450}
deadline=$(($(date +%s) + budget))
left() { echo $((deadline - $(date +%s))); }
fits() { # name need_s
  local remaining
  remaining=$(left)
  ((remaining >= $2)) && return 0
  echo "$1: skipped, $remaining s of the suite's $budget s left (it needs about $2)" >>"$results/skipped.txt"
  say "$1 skipped: $remaining s of the budget left"
  return 1
}
# A step's timeout: its own, or what is left of the budget when that is less (at least 1 s).
within() { # timeout_s
  local remaining
  remaining=$(left)
  ((remaining < $1)) && echo $((remaining > 1 ? remaining : 1)) || echo "$1"
}
# About how long a server's start and a bench row take on the card (the 2026-11-27 run: a few
# seconds to load and warm up, 5-20 s a row at 256 output tokens): a server starts only with
# time for its first row, and each row only with its own time left.
server_s=20 row_s=15

server_pid=
server_log=
# Starts a server in its own process group; returns once /health says 200, or fails at once if it exits.
start_server() { # name url log command...
  local name=$1 url=$2
  server_log=$3
  shift 3
  setsid "$@" >"$server_log" 2>&1 </dev/null &
  server_pid=$!
  local wait_s
  wait_s=$(within 180)
  for _ in $(seq 1 $((wait_s * 2))); do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      say "$name exited before it was ready"
      tail -n 40 "$server_log" >"$results/$name-died.txt"
      return 1
    fi
    node -e "fetch('$url/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" && return 0
    sleep 0.5
  done
  say "$name not ready after $wait_s s"
  tail -n 40 "$server_log" >"$results/$name-died.txt"
  return 1
}
# The libllama/libggml files mapped by any process of the group (the engine may be a child process).
group_libraries() { # pgid
  local stat
  for stat in /proc/[0-9]*/stat; do
    [[ $(cut -d' ' -f5 "$stat" 2>/dev/null) == "$1" ]] || continue
    grep -oE '/[^ ]*lib(llama|ggml)[^ /]*\.so[^ ]*' "${stat%/stat}/maps" 2>/dev/null
  done | sort -u
}
stop_server() {
  kill -INT -- "-$server_pid" 2>/dev/null
  for _ in $(seq 1 30); do kill -0 "$server_pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL -- "-$server_pid" 2>/dev/null
}

# The benchmark rows against one running server; stops at once if the server dies.
bench_server() { # name url
  local name=$1 url=$2 c
  for c in "${concurrencies[@]}"; do
    fits "$name c=$c" "$row_s" || return 0
    local smi= threads=
    if [[ $c == "$top" ]]; then
      if command -v nvidia-smi >/dev/null; then
        nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 200 >"$results/gpu-util-$name-c$c.csv" 2>/dev/null &
        smi=$!
      fi
      node "$root/bench/gpu/thread-cpu.mjs" "$server_pid" 3 6 >"$results/threads-$name-c$c.json" 2>&1 &
      threads=$!
    fi
    # Seeds differ per row, and are the same for both servers: the same prompts on each.
    timeout "$(within 300)" node "$app/bin/lmforge.mjs" bench --url "$url" --concurrency "$c" --num-prompts $((c > 4 ? 2 * c : 8)) \
      --input-len "$input_len" --output-len "$output_len" --seed $((1000 + c)) --warmup 1 ${bench_flags[@]+"${bench_flags[@]}"} --json \
      >"$results/bench-$name-c$c.json" 2>"$logs/bench-$name-c$c.log"
    say "$name c=$c: exit $? $(grep -oP '"output_throughput":[0-9.]+' "$results/bench-$name-c$c.json")"
    [[ -z $smi ]] || kill "$smi" 2>/dev/null
    [[ -z $threads ]] || wait "$threads"
    if ! kill -0 "$server_pid" 2>/dev/null; then
      say "$name died during c=$c"
      tail -n 40 "$server_log" >"$results/$name-died.txt"
      return 1
    fi
  done
}

# Flags every `lmforge bench` row adds while set (the logprobs rows').
bench_flags=()
overrides="max_num_sequence=$slots;max_total_seq_length=$cells;context_window_size=2048;prefill_chunk_size=2048"
# Each server's rows: all of them, the busy ones (the first concurrency left out), or the top one.
bench_rows() { # name url all|busy|top
  local saved=("${concurrencies[@]}")
  case $3 in
    busy) concurrencies=("${saved[@]:1}") ;;
    top) concurrencies=("$top") ;;
  esac
  bench_server "$1" "$2"
  concurrencies=("${saved[@]}")
}
# Overrides one lmforge server adds to the common ones while set (the no-cache row's).
more_overrides=
lmforge_server() { # name port all|busy|top flags...
  local name=$1 port=$2 rows=$3
  shift 3
  fits "$name" $((server_s + row_s)) || return 0
  say "lmforge serve --device $device $* ($overrides$more_overrides)"
  if start_server "$name" "http://127.0.0.1:$port" "$logs/$name-serve.log" \
    node "$app/bin/lmforge.mjs" serve "$model" --device "$device" --port "$port" --threads "$threads" "$@" --overrides "$overrides$more_overrides"; then
    head -n 40 "$logs/$name-serve.log" >"$results/$name-startup.txt"
    group_libraries "$server_pid" >"$results/$name-libraries.txt"
    bench_rows "$name" "http://127.0.0.1:$port" "$rows"
    # A server started with --profile-steps: the split of its own steps over all its rows (summarize.mjs).
    if [[ " $* " == *" --profile-steps "* ]]; then
      node -e "fetch('http://127.0.0.1:$port/debug/step-profile').then((r) => r.text()).then((t) => process.stdout.write(t), () => process.exit(1))" \
        >"$results/step-profile-$name.json" || say "$name: no /debug/step-profile"
    fi
    stop_server
  fi
}
# The plain server profiles its steps (the device phase synchronizes each step: a slight cost on
# the card), so that its step split reads beside bench/host.ts's loop alone.
lmforge_server lmforge 18000 all --kv-layout shared --profile-steps

peer_bin=$(cat "$run/peer-bin" 2>/dev/null)
llama_server() { # name port rows(all|busy) flags...
  local name=$1 port=$2 rows=$3
  shift 3
  fits "$name" $((server_s + row_s)) || return 0
  say "llama-server (--parallel $slots --ctx-size $cells -ngl 999 $*)"
  if start_server "$name" "http://127.0.0.1:$port" "$logs/$name.log" \
    "$peer_bin/llama-server" --model "$model" --alias "$model" --host 127.0.0.1 --port "$port" --parallel "$slots" \
    --ctx-size "$cells" "$@" --threads "$threads" --threads-batch "$threads" --batch-size 2048 --n-gpu-layers 999; then
    # Which libraries it runs on: the same folder as lmforge's (summarize.mjs compares them).
    group_libraries "$server_pid" >"$results/$name-libraries.txt"
    bench_rows "$name" "http://127.0.0.1:$port" "$rows"
    stop_server
  fi
}

# The peer in the same layout: one pool (--kv-unified), as the issue's table asks.
if [[ -x $peer_bin/llama-server ]]; then
  llama_server llama-server 18001 all --kv-unified
else
  say "no peer llama-server (see logs/peer-build.log): lmforge alone"
fi

if [[ -f bench/host.ts ]] && fits bench/host.ts 60; then
  say "bench/host.ts"
  # Its C floor compiles against the pinned tree's headers: the kit's tree (no npm here to clone the fixtures' one).
  # --cpu-prof: V8 profiles of the engine process (kept out of results/, whose archive has a size
  # limit); their busiest threads' functions go into results/host-profile.txt.
  DECODE_FLOOR_SRC=$src timeout "$(within 150)" "${tsx[@]}" bench/host.ts --model "$model" --device "$device" --widths "$host_widths" --tokens 32 --reps 1 --threads "$threads" \
    --node-floor --cpu-prof "$run/host-prof" >"$results/host.txt" 2>"$logs/host.log"
  say "bench/host.ts: exit $?"
  compgen -G "$run/host-prof/*.cpuprofile" >/dev/null &&
    node "$root/bench/cpu-profile-top.mjs" --top 20 "$run"/host-prof/*.cpuprofile >"$results/host-profile.txt" 2>>"$logs/host.log"
fi

# The loop at the rows' shapes: issue 29's 2026-11-30 run found the server's steps at 64 twice the
# loop's, whose contexts held ~40 cells a sequence against up to 384 in the server's.
if [[ -f bench/host.ts ]] && fits "bench/host.ts at the rows' shapes" 45; then
  say "bench/host.ts at the rows' shapes"
  DECODE_FLOOR_SRC=$src timeout "$(within 90)" "${tsx[@]}" bench/host.ts --model "$model" --device "$device" --widths "$top" --tokens "$output_len" \
    --prompt-tokens "$input_len" --reps 1 --threads "$threads" >"$results/host-server-shapes.txt" 2>>"$logs/host.log"
  say "bench/host.ts at the rows' shapes: exit $?"
fi

# The plain server again at the top concurrency with the prefix cache off: in one pool every
# step attends over (and llama.cpp masks on the host) every cell up to the highest in use, and
# the plain server's cache keeps its earlier rows' cells, so its steps at 64 covered ~30,000
# cells or more against the loop's few thousand. On a CPU (tiny model, 64 streams) the server's
# steps with the cache off took what the loop's do at the same cells. Same prompts as its row.
more_overrides=";prefix_cache_max_num_recycling_seqs=0"
lmforge_server lmforge-no-cache 18011 top --kv-layout shared --profile-steps
more_overrides=

# The loop at the top width with ggml's CUDA graphs off: a step replays the CUDA graph captured
# from the one before only when its shape repeats, which the loop's always does and a server's
# often does not (its repeat_steps); if the loop without them slows to the server's step, that
# is the gap. A small row: 32 tokens, the first host.ts's shape.
if [[ -f bench/host.ts && $device == cuda ]] && fits "bench/host.ts without CUDA graphs" 40; then
  say "bench/host.ts without CUDA graphs"
  GGML_CUDA_DISABLE_GRAPHS=1 DECODE_FLOOR_SRC=$src timeout "$(within 90)" "${tsx[@]}" bench/host.ts --model "$model" --device "$device" --widths "$top" --tokens 32 \
    --reps 1 --threads "$threads" >"$results/host-no-cuda-graphs.txt" 2>>"$logs/host.log"
  say "bench/host.ts without CUDA graphs: exit $?"
fi

# Sampling in the graph (--sampling auto is the host path: JavaScript over each logits row),
# its own steps profiled too, to set beside the plain server's.
lmforge_server lmforge-device 18002 busy --kv-layout shared --sampling device --profile-steps

# Sampled at temperature 1 (OpenAI's default, so most clients' traffic) at the top concurrency:
# the host path draws from each 49,152-float row in JavaScript, 0.6-1 ms a row on a CPU core
# (bench/sampling.ts), tens of ms a 64-sequence step; the graph returns only the token.
# Each pair runs whole or not at all: one side alone compares with nothing.
pair_s=$((2 * (server_s + row_s)))
bench_flags=(--temperature 1)
if fits "the sampled pair" "$pair_s"; then
  lmforge_server lmforge-sampled 18009 top --kv-layout shared
  lmforge_server lmforge-sampled-device 18010 top --kv-layout shared --sampling device
fi
bench_flags=()

if fits bench:speculative 90; then
  say "bench:speculative ${spec_args[*]}"
  # On the card: before 2026-11-30 bench:speculative had no --device and decoded on the CPU,
  # so the speculative rows of the H100 and H200 runs were that machine's 16 cores.
  timeout "$(within 300)" "${tsx[@]}" bench/speculative.ts --device "$device" "${spec_args[@]}" --json >"$results/speculative.jsonl" 2>"$logs/speculative.log"
  say "bench:speculative: exit $?"
fi

# A stream of cells per sequence: llama.cpp builds each step's attention mask on the host over
# every cell up to the highest one in use, in one pool of 65,536 cells up to 64 × 65,536 entries
# a step; per stream, over that stream's cells. llama-server's own default is a stream per slot.
lmforge_server lmforge-per-sequence 18003 busy --kv-layout per-sequence
[[ -x $peer_bin/llama-server ]] && llama_server llama-server-per-slot 18004 busy

# Logprobs (top 5 a token) at the top concurrency: on the host path (JavaScript over each row)
# and in the graph (only 6 floats and 5 ids a token come back).
bench_flags=(--top-logprobs 5)
if fits "the logprobs pair" "$pair_s"; then
  lmforge_server lmforge-logprobs 18005 top --kv-layout shared
  lmforge_server lmforge-logprobs-device 18006 top --kv-layout shared --sampling device
fi

# Sampled with every stage at once, the heaviest chain a request can ask for, at the top
# concurrency: on the host path, then in the graph (llama.cpp's penalty link uploads up to a
# window of ids and counts a sequence each step; lmforge's own links run top_n_sigma, typical_p,
# XTC and DRY, which llama.cpp has only on the host).
bench_flags=(--temperature 0.8 --extra-body '{"top_p":0.95,"frequency_penalty":0.3,"presence_penalty":0.3,"repetition_penalty":1.1,"top_n_sigma":2,"typical_p":0.9,"xtc_probability":0.5,"dry_multiplier":0.8}')
if fits "the every-stage pair" "$pair_s"; then
  lmforge_server lmforge-every-stage 18007 top --kv-layout shared
  lmforge_server lmforge-every-stage-device 18008 top --kv-layout shared --sampling device
fi
bench_flags=()

# The step's phases with tokens chosen in the graph: JavaScript, llama.cpp's host side and the
# wait for the card, beside the C floor (no node floor or profiles this time).
if [[ -f bench/host.ts ]] && fits "bench/host.ts --sampling device" 45; then
  say "bench/host.ts --sampling device"
  DECODE_FLOOR_SRC=$src timeout "$(within 120)" "${tsx[@]}" bench/host.ts --model "$model" --device "$device" --widths "$host_widths" --tokens 32 --reps 1 --threads "$threads" \
    --sampling device >"$results/host-device.txt" 2>"$logs/host-device.log"
  say "bench/host.ts --sampling device: exit $?"
fi

echo "suite: $((budget - $(left))) s of its $budget s budget" >"$results/budget.txt"
say "done: $(cat "$results/budget.txt")"
node "$root/bench/gpu/summarize.mjs" "$results" >"$results/summary.txt" 2>>"$logs/suite.log"
touch "$run/.suite-done"
