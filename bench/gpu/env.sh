# Sourced by the GPU run kit's scripts (start.sh, build.sh, run-suite.sh): where the kit's parts
# arrive, where they are unpacked, and the environment lmforge, the builds and the benches run in.
# GPU_KIT and GPU_RUN move both folders (a rehearsal in a scratch folder sets them).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kit=${GPU_KIT:-$root/.gpu-kit}
run=${GPU_RUN:-$root/.gpu-run}
logs=$run/logs
results=$run/results
app=$run/app
export LMFORGE_HOME=$run/home
export PATH=$run/bin:/usr/local/cuda/bin:$PATH
if [[ -d /usr/local/cuda/lib64 ]]; then export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; fi
version=$(grep -rhoP "PINNED_BINARIES_VERSION = '\K[^']+" "$root/runtime" | head -n 1)
src=$LMFORGE_HOME/backends/src/llama.cpp-$version
model=$LMFORGE_HOME/models/SmolLM2-135M-Instruct-Q4_1/SmolLM2-135M-Instruct.Q4_1.gguf
cuda_prebuilt=$app/node_modules/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda
# The card's compute capability (9.0 -> 90); 90 (H100) when nvidia-smi cannot say.
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
arch=${arch:-90}
cuda_build=$LMFORGE_HOME/backends/cuda-$version-sm$arch
lmforge() { node "$app/bin/lmforge.mjs" "$@"; }
mkdir -p "$run/bin" "$logs" "$results" "$LMFORGE_HOME"
