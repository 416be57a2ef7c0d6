#!/usr/bin/env bash
# Measures xgrammar (the Python package, the reference engine) on the same inputs as
# `npm run bench:grammar`, printing the same JSON fields, so the two can be compared in one run.
#
#   bench/peer-xgrammar.sh            # installs into $LMFORGE_HOME/peer/xgrammar-venv once, then measures
#   bench/peer-xgrammar.sh --install  # install only
#
# The venv lives outside the repo. torch is installed first and pinned: a CPU build of 2.13.0
# lies on these machines' disk, while an unpinned torch would download several GB.
# Inputs (grammars, valid outputs, tokenizer.json paths) come from `fixtures/grammar-inputs.ts`,
# dumped as JSON, so both sides see the same tokens and the same outputs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${LMFORGE_HOME:-$HOME/.cache/lmforge}/peer/xgrammar-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import xgrammar' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'torch==2.13.0'
  "$venv/bin/pip" install -q 'xgrammar==0.2.8'
fi
[ "${1:-}" = "--install" ] && exit 0
inputs="$(mktemp -t lmforge-xgrammar-inputs.XXXXXX.json)"
trap 'rm -f "$inputs"' EXIT
(cd "$here/.." && node --import tsx fixtures/grammar-inputs.ts > "$inputs")
exec "$venv/bin/python" "$here/peer_xgrammar.py" "$inputs" "$@"
