#!/usr/bin/env bash
# The GPU run kit's one command, the same in every call (bench/gpu/README.md): unpacks the parts
# of the kit that have arrived (each once), starts the builds in the background as soon as their
# inputs are there (build.sh), starts the suite as soon as the model is there too
# (run-suite.sh, which waits for the builds), waits up to WAIT_S seconds for the suite to end,
# and packs what exists so far into $OUT: gpu-results.tar.gz (results/ and logs/) and
# summary.txt. Safe to repeat: a later call with a wait collects what an earlier one started.
#
# Usage: bash bench/gpu/start.sh [WAIT_S]       # WAIT_S: default 0
#        SMOKE=1 bash bench/gpu/start.sh 600    # a CPU rehearsal: no CUDA build, tiny sizes
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
wait_s=${1:-0}
started=$(date +%s)
note() { echo "start: $*" | tee -a "$logs/start.log"; }
done_mark() { [[ -f $run/.unpacked-$1 ]]; }
mark() { touch "$run/.unpacked-$1"; }
# xz -dc, or Python's lzma where the machine has no xz.
decompress_xz() {
  if command -v xz >/dev/null; then xz -dc "$1"; else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; fi
}

# Unpacking, each part once.
if ! done_mark node && [[ -f $kit/call1/node.xz ]]; then
  decompress_xz "$kit/call1/node.xz" >"$run/bin/node" && chmod +x "$run/bin/node" && mark node && note "node $(node --version)"
fi
if ! done_mark app && [[ -f $kit/call1/app.tar.xz ]]; then
  rm -rf "$app" && decompress_xz "$kit/call1/app.tar.xz" | tar -xf - -C "$run" && mark app && note "app unpacked in $app"
fi
# The bench scripts run from this tree's sources (tsx): they resolve packages from its node_modules.
if done_mark app && [[ ! -e $root/node_modules ]]; then ln -s "$app/node_modules" "$root/node_modules"; fi
if ! done_mark src && [[ -f $kit/call1/llama-src.tar.xz ]]; then
  mkdir -p "$(dirname "$src")" && rm -rf "$src" "$(dirname "$src")/llama.cpp" &&
    decompress_xz "$kit/call1/llama-src.tar.xz" | tar -xf - -C "$(dirname "$src")" && mv "$(dirname "$src")/llama.cpp" "$src" &&
    mark src && note "llama.cpp source at $(cat "$src/.lmforge-source-commit") in $src"
fi
if ! done_mark model && [[ -f $kit/call2/model.00 && -f $kit/call3/model.01 && -f $kit/call3/model.sha256 ]]; then
  mkdir -p "$(dirname "$model")"
  cat "$kit/call2/model.00" "$kit/call3/model.01" >"$model.tmp"
  want=$(grep -oP '"sha256":"\K[0-9a-f]+' "$kit/call3/model.sha256")
  got=$(sha256sum "$model.tmp" | cut -d' ' -f1)
  if [[ $got == "$want" ]]; then
    mv "$model.tmp" "$model" && cp "$kit/call3/model.sha256" "$model.sha256" && mark model && note "model $(basename "$model") verified"
  else
    note "model halves joined to sha256 $got, expected $want: parts damaged in transfer; carry call2 and call3 again"
    rm -f "$model.tmp"
  fi
fi

# The builds start as soon as node, the app and the source are there; the suite once the model is too.
if done_mark node && done_mark app && done_mark src && [[ ! -f $run/.started-build ]]; then
  touch "$run/.started-build"
  setsid nohup bash "$root/bench/gpu/build.sh" >"$logs/build.log" 2>&1 </dev/null &
  note "builds started (logs/build.log)"
fi
if [[ -f $run/.started-build ]] && done_mark model && [[ ! -f $run/.started-suite ]]; then
  touch "$run/.started-suite"
  setsid nohup bash "$root/bench/gpu/run-suite.sh" >"$logs/suite.log" 2>&1 </dev/null &
  note "suite started (logs/suite.log)"
fi

while [[ ! -f $run/.suite-done ]] && (($(date +%s) - started < wait_s)); do sleep 5; done

# Where things stand, for the call's output.
echo "--- unpacked: $(cd "$run" && ls -a | grep -oP '^\.unpacked-\K.*' | tr '\n' ' ')"
for log in build cuda-build peer-build suite; do
  [[ -f $logs/$log.log ]] && { echo "--- logs/$log.log (last lines)"; tail -n 4 "$logs/$log.log"; }
done
[[ -f $run/.suite-done ]] && echo "--- suite: done" || echo "--- suite: $([[ -f $run/.started-suite ]] && echo running || echo 'not started')"
if [[ -n ${OUT:-} ]]; then
  tar -czf "$OUT/gpu-results.tar.gz" -C "$run" results logs 2>/dev/null
  if [[ -f $results/summary.txt ]]; then cp "$results/summary.txt" "$OUT/summary.txt"; fi
fi
[[ -f $results/summary.txt ]] && cat "$results/summary.txt"
exit 0
