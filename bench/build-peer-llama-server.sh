#!/usr/bin/env bash
# Builds llama-server and llama-bench from the llama.cpp release lmforge's binaries come from,
# linked against the very prebuilt libraries lmforge loads (libllama, libggml, libggml-base and
# the per-CPU libggml-cpu-* variants of @node-llama-cpp/<platform>), plus lmforge's decode-floor
# driver (bench/engine/decode-floor.c) over the same libraries. Prints the folder holding them.
#
# Usage: bench/build-peer-llama-server.sh            # build once (cached), print the bin folder
#        bench/build-peer-llama-server.sh --check    # also re-run the library checks
# Environment: PEER_DIR (the source tree), CMAKE_GENERATOR=Ninja (for a machine without make), PEER_PREBUILT (the folder of prebuilt libraries to link
# against instead of @node-llama-cpp/<platform>'s: a CUDA folder, say), PEER_JOBS (compile jobs, 2).
# A PEER_DIR without .git (unpacked from a tarball on a machine without git) names its commit in
# .lmforge-source-commit, as `lmforge backend build cuda` accepts; it is not checked against the bundle.
#
# How: the source tree ($PEER_DIR, cloned from node-llama-cpp's bundle of the release) is built
# with CMake as usual (common, server and llama-bench objects; ggml and llama are compiled too,
# as CMake will not link the tools without them, but never used), then the tools are linked a
# second time, from the same objects and the same link lines, with every libllama/libggml
# replaced by the prebuilt file. The checks: the tree is the bundle's commit; libllama and
# libggml-base export the same C API as the source build; the final link resolves every symbol
# (an executable's link fails on any undefined one); ldd resolves libllama/libggml to the
# prebuilt folder. Kernels, graph building and the CPU variant choice are then the prebuilt
# libraries' own, as in lmforge. Output: ${LMFORGE_HOME:-~/.cache/lmforge}/peer/prebuilt-<version>/bin.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
home=${LMFORGE_HOME:-$HOME/.cache/lmforge}
peer_dir=${PEER_DIR:-$home/peer/llama.cpp}
check=0
[[ ${1:-} == --check ]] && check=1

say() { echo "build-peer-llama-server: $*" >&2; }
die() { say "$*"; exit 1; }

version=$(cd "$repo" && node -p "require('./node_modules/@node-llama-cpp/$(node -p 'process.platform + "-" + process.arch')/package.json').version")
platform=$(node -p 'process.platform + "-" + process.arch')
prebuilt=${PEER_PREBUILT:-$(ls -d "$repo/node_modules/@node-llama-cpp/$platform/bins/"*/ 2>/dev/null | head -n 1)}
prebuilt=$(realpath "${prebuilt%/}")
[[ -n $prebuilt && -f $prebuilt/libggml-base.so ]] || die "no prebuilt libraries in ${PEER_PREBUILT:-node_modules/@node-llama-cpp/$platform/bins (run npm ci)}"
# libllama.v0.5.0.so, or libllama.cuda.v0.5.0.so in a CUDA package's folder.
libllama=$(ls "$prebuilt"/libllama.*v*.so | head -n 1)
libggml=$(ls "$prebuilt"/libggml.*v*.so | head -n 1)
libggml_base=$prebuilt/libggml-base.so
out=$home/peer/prebuilt-$version/bin
floor_src=$repo/bench/engine/decode-floor.c

# 1. The source tree, at the bundle's commit (or a plain tree at the commit it records).
if [[ -f $peer_dir/CMakeLists.txt && ! -e $peer_dir/.git ]]; then
  tree_head=$(cat "$peer_dir/.lmforge-source-commit" 2>/dev/null) || die "$peer_dir has neither .git nor .lmforge-source-commit"
else
  bundle=$(cd "$repo" && npx tsx fixtures/llama-source-bundle.ts)
  bundle_head=$(git bundle list-heads "$bundle" | awk '$2 == "HEAD" {print $1}')
  if [[ ! -f $peer_dir/CMakeLists.txt ]]; then
    rm -rf "$peer_dir"
    mkdir -p "$(dirname "$peer_dir")"
    git clone -q "$bundle" "$peer_dir"
  fi
  tree_head=$(git -C "$peer_dir" rev-parse HEAD)
  [[ $tree_head == "$bundle_head" ]] || die "$peer_dir is at $tree_head, the bundle of node-llama-cpp $version at $bundle_head: remove $peer_dir to re-clone"
fi

# 2. The objects (and the source build, used only to compare exports and for its link lines).
if [[ ! -x $peer_dir/build/bin/llama-server || ! -x $peer_dir/build/bin/llama-bench ]]; then
  if [[ ! -f $peer_dir/build/CMakeCache.txt ]]; then
    say "configuring $peer_dir/build"
    # The ggml built here is never run (the tools are linked to the prebuilt one below), so no
    # CPU-specific variants: it only has to compile.
    cmake -S "$peer_dir" -B "$peer_dir/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
      -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF \
      -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON >/dev/null
  fi
  say "building llama-server and llama-bench in $peer_dir/build (-j${PEER_JOBS:-2}; takes a while the first time)"
  cmake --build "$peer_dir/build" --target llama-server llama-bench "-j${PEER_JOBS:-2}" >&2
fi

# 3. The same C API: a struct or function the tools call that the prebuilt file lacks would
# be a different release. (C++ symbols differ with the compiler's inlining, and the tools use none;
# names starting with __ come from the C++ runtime the compiler links in, e.g. libstdc++'s
# __once_proxy, which the H100 machine's toolchain exported and the prebuilt's did not.)
c_exports() { nm -D --defined-only "$1" | awk '$3 !~ /^_Z/ && $3 !~ /^__/ {print $3}' | sort; }
check_exports() {
  local a b
  a=$(c_exports "$1"); b=$(c_exports "$2")
  [[ $a == "$b" ]] || die "$(basename "$1") (prebuilt) and $(basename "$2") (built from $tree_head) export different C functions:
$(diff <(echo "$a") <(echo "$b") | head -n 20)"
}

stamp=$out/.stamp
# The folder is in the stamp: the tools find the libraries by rpath, so a checkout elsewhere
# (another clone, a removed worktree) relinks them.
want_stamp="$tree_head $prebuilt $(sha256sum "$libllama" "$libggml" "$libggml_base" "$floor_src" | awk '{print $1}' | tr '\n' ' ')"
if [[ $check == 0 && -f $stamp && $(cat "$stamp") == "$want_stamp" ]]; then
  echo "$out"
  exit 0
fi

check_exports "$libllama" "$peer_dir/build/bin/libllama.so"
check_exports "$libggml_base" "$peer_dir/build/bin/libggml-base.so"

# 4. Link again, against the prebuilt libraries. Each target's link.txt is CMake's own link
# line, run from its folder; only the library paths, the output and the rpath change.
rm -rf "$out"
mkdir -p "$out"
relink() { # folder-under-build target
  local dir=$peer_dir/build/$1 line
  if [[ -f $peer_dir/build/build.ninja ]]; then
    # Ninja keeps no link.txt: the target's link command is the last of its commands that
    # writes with -o, run from the build folder; its bin/ paths are made absolute for the rules below.
    dir=$peer_dir/build
    line=$(ninja -C "$dir" -t commands "$2" | grep -- ' -o ' | tail -n 1 | sed -E "s#(^| )bin/#\1$dir/bin/#g")
  else
    line=$(cat "$dir/CMakeFiles/$2.dir/link.txt")
  fi
  line=$(sed -E \
    -e "s#[^ ]*/bin/libllama\.so[.0-9]*#$libllama#g" \
    -e "s#[^ ]*/bin/libggml-base\.so[.0-9]*#$libggml_base#g" \
    -e "s#[^ ]*/bin/libggml-cpu\.so[.0-9]*##g" \
    -e "s#[^ ]*/bin/libggml\.so[.0-9]*#$libggml#g" \
    -e "s#[^ ]*/bin/(lib[a-z-]+\.so)[.0-9]*#$out/\1#g" \
    -e "s#-o [^ ]*/bin/([^ ]+)#-o $out/\1#" \
    -e "s#-Wl,-rpath,[^ ]*#-Wl,-rpath,$out:$prebuilt#" <<<"$line")
  (cd "$dir" && eval "$line")
}
# Shared libraries are written under their plain names; the soname links (libX.so.0) that
# the tools' NEEDED entries name point at them.
relink common llama-common
ln -sf libllama-common.so "$out/libllama-common.so.0"
if [[ -f $peer_dir/build/bin/libmtmd.so ]]; then
  relink tools/mtmd mtmd
  ln -sf libmtmd.so "$out/libmtmd.so.0"
fi
relink tools/server llama-server-impl
relink tools/server llama-server
relink tools/llama-bench llama-bench-impl
relink tools/llama-bench llama-bench

# ggml loads its backends at run time (GGML_BACKEND_DL) from the executable's folder, choosing
# the best CPU variant for this CPU: offer it the prebuilt folder's backends (the CPU variants,
# and libggml-cuda.so where the folder has one), as lmforge loads them from that folder.
for backend in "$prebuilt"/libggml-*.so; do
  [[ $backend == */libggml-base.so ]] || ln -sf "$backend" "$out/"
done

# 5. lmforge's floor: llama_decode over lmforge's batch shapes, in C, through the same libraries.
cc -O2 -std=c11 -Wall -Werror -I"$peer_dir/include" -I"$peer_dir/ggml/include" "$floor_src" \
  -o "$out/lmforge-decode-floor" "$libllama" "$libggml" "$libggml_base" -Wl,-rpath,"$out:$prebuilt"

# 6. Every libllama/libggml the tools load is the prebuilt file.
for exe in llama-server llama-bench lmforge-decode-floor; do
  deps=$(ldd "$out/$exe")
  grep -q "not found" <<<"$deps" && die "$exe: unresolved libraries:
$deps"
  while read -r name _ path _; do
    [[ $name == libllama.* || $name == libggml* ]] || continue
    [[ $path == "$prebuilt"/* ]] || die "$exe loads $name from $path, not from $prebuilt"
  done <<<"$deps"
done
echo "$want_stamp" >"$stamp"
say "llama-server, llama-bench and lmforge-decode-floor in $out, on $prebuilt (tree $tree_head)"
echo "$out"
