#!/usr/bin/env bash
# Makes the GPU run kit: what a bare GPU machine (nvcc, cmake, Python; no node, maybe no git,
# no network) needs to build ggml's CUDA backend and the peer llama-server there and to run
# bench/gpu/run-suite.sh, packed into parts of at most ~60 MB that travel with the working tree
# (each call carries 64 MiB in all, the tracked tree included). Prints the call plan.
#
# Usage: bench/gpu/make-kit.sh [KITDIR]        # default: .gpu-kit (ignored by git)
#
# The parts, one folder per call (carry it in that call), in order:
#   call1/  node.xz (this machine's node 20), app.tar.xz (`npm pack` of this tree, its production
#           dependencies installed offline, tsx for the bench scripts, and
#           @node-llama-cpp/linux-x64-cuda without its libggml-cuda.so, which no H100 can run),
#           llama-src.tar.xz (the pinned llama.cpp tree without git's history: the CUDA backend
#           and the peer are built from it; .lmforge-source-commit names its commit)
#   call2/  model.00 (the default model's first half)
#   call3/  model.01, model.sha256 (the second half, and the pull marker)
# bench/gpu/start.sh unpacks whatever has arrived; see bench/gpu/README.md for the calls.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kit=$(realpath -m "${1:-$repo/.gpu-kit}")
home=${LMFORGE_HOME:-$HOME/.cache/lmforge}
say() { echo "make-kit: $*" >&2; }
die() { say "$*"; exit 1; }

version=$(node -p "require('$repo/node_modules/@node-llama-cpp/linux-x64/package.json').version")
src=$home/backends/src/llama.cpp-$version
model_dir=$home/models/SmolLM2-135M-Instruct-Q4_1
model=$model_dir/SmolLM2-135M-Instruct.Q4_1.gguf
[[ -f $model ]] || die "no default model at $model: run lmforge pull first"
if [[ ! -d $src/.git ]]; then
  # The pinned tree, cloned from the git bundle node-llama-cpp publishes on npm (llama-source.ts).
  say "no llama.cpp checkout at $src: cloning the pinned bundle"
  (cd "$repo" && npx tsx -e "import('./runtime/backend/llama-source.ts').then((m) => m.pinnedLlamaSource('$home/backends/src', '$src')).then(console.log)") ||
    die "could not check out the pinned llama.cpp at $src"
fi
limit=$((60 * 1000 * 1000))

rm -rf "$kit/call1" "$kit/call2" "$kit/call3" "$kit/stage"
mkdir -p "$kit/call1" "$kit/call2" "$kit/call3" "$kit/stage" "$kit/cache"
stage=$kit/stage

# node: the binary alone (npm is not needed there: dependencies travel installed), compressed
# once per version (minutes on a busy machine).
node_xz=$kit/cache/node-$(node --version).xz
xz_pid=
if [[ ! -f $node_xz ]]; then
  say "node $(node --version) ($(command -v node)), xz"
  (xz -T0 -6 -c "$(realpath "$(command -v node)")" >"$node_xz.tmp" && mv "$node_xz.tmp" "$node_xz") &
  xz_pid=$!
fi

# The app as users install it: the packed tarball (prepack builds dist/), production
# dependencies from the lockfile, offline. The CUDA package is optional (not installed by
# --omit=optional) and added by hand below, without its 159 MB libggml-cuda.so.
say "npm pack (builds dist/)"
tarball=$(cd "$repo" && npm pack --silent --pack-destination "$stage" | tail -n 1)
mkdir "$stage/app"
tar -xzf "$stage/$tarball" -C "$stage/app" --strip-components=1
cp "$repo/package-lock.json" "$stage/app/"
say "production dependencies (npm ci --omit=dev --omit=optional --offline)"
(cd "$stage/app" && npm ci --omit=dev --omit=optional --offline --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
# The optional production packages installed here (koffi's native module, @koromix/koffi-linux-x64)
# but not the llama.cpp builds; and tsx (with its esbuild), which runs the bench scripts from the
# tree's sources on the device.
optional=$(cd "$repo" && node -e '
  const fs = require("node:fs");
  for (const [path, p] of Object.entries(require("./package-lock.json").packages))
    if (p.optional && !p.dev && !path.includes("@node-llama-cpp/") && fs.existsSync(path)) console.log(path.replace(/^node_modules\//, ""));')
for dep in $optional tsx esbuild @esbuild/linux-x64; do
  mkdir -p "$stage/app/node_modules/$(dirname "$dep")"
  cp -rL "$repo/node_modules/$dep" "$stage/app/node_modules/$dep"
done
say "@node-llama-cpp/linux-x64-cuda@$version (npm pack --offline), without libggml-cuda.so"
cuda_tgz=$(cd "$stage" && npm pack --silent --offline "@node-llama-cpp/linux-x64-cuda@$version" | tail -n 1)
mkdir -p "$stage/app/node_modules/@node-llama-cpp/linux-x64-cuda"
tar -xzf "$stage/$cuda_tgz" -C "$stage/app/node_modules/@node-llama-cpp/linux-x64-cuda" --strip-components=1 --exclude='*/libggml-cuda.so'
# Its CPU backends and libggml-base.so are the CPU package's files byte for byte: hard links,
# which tar stores once.
cpu_bins=$(echo "$stage"/app/node_modules/@node-llama-cpp/linux-x64/bins/*/)
for file in "$stage"/app/node_modules/@node-llama-cpp/linux-x64-cuda/bins/*/*; do
  twin=$cpu_bins$(basename "$file")
  if [[ -f $twin ]] && cmp -s "$file" "$twin"; then ln -f "$twin" "$file"; fi
done
tar -C "$stage" -cf - app | xz -T0 -6 >"$kit/call1/app.tar.xz"

# The llama.cpp tree at its commit, without history, tests' vocabularies, docs or media.
say "llama.cpp source at $(git -C "$src" rev-parse --short HEAD)"
mkdir "$stage/llama.cpp"
git -C "$src" archive --format=tar HEAD -- . ':(exclude)models' ':(exclude)docs' ':(exclude)media' ':(exclude)benches' ':(exclude)gguf-py' \
  | tar -xf - -C "$stage/llama.cpp"
git -C "$src" rev-parse HEAD >"$stage/llama.cpp/.lmforge-source-commit"
tar -C "$stage" -cf - llama.cpp | xz -T0 -6 >"$kit/call1/llama-src.tar.xz"

# The model does not compress (4-bit weights): two halves, one call each.
say "model $(basename "$model") in two halves"
split -n 2 -d "$model" "$kit/call2/model."
mv "$kit/call2/model.01" "$kit/call3/"
cp "$model.sha256" "$kit/call3/model.sha256"

(cd "$repo" && echo "$(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' with uncommitted changes')") >"$kit/call1/tree-commit"
[[ -z $xz_pid ]] || wait "$xz_pid"
cp "$node_xz" "$kit/call1/node.xz"
rm -rf "$stage"

# Each call carries its folder plus the tracked tree (and untracked files git does not ignore).
tree_bytes=$(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null | tail -n 1 | cut -f1) || true
echo "GPU run kit in $kit (tree: $((tree_bytes / 1000)) kB a call):"
for call in call1 call2 call3; do
  bytes=$(du -cb "$kit/$call"/* | tail -n 1 | cut -f1)
  total=$((bytes + tree_bytes))
  flag=ok
  ((bytes <= limit)) || flag="OVER ${limit} B"
  ((total <= 64 * 1024 * 1024)) || flag="OVER 64 MiB with the tree"
  rel=$(realpath --relative-to="$repo" "$kit/$call")
  echo "  $call: carry [\"$rel\"], $((total / 1000)) kB with the tree ($flag): $(cd "$kit/$call" && ls | tr '\n' ' ')"
  [[ $flag == ok ]] || exit 1
done
echo "Calls, back to back (bench/gpu/README.md): 1 start.sh (unpacks, starts both builds), 2 start.sh, 3 start.sh then run-suite.sh"
