#!/usr/bin/env bash
# bench:grammar against xgrammar, alternating: N rounds of `bench/grammar.ts --json` and the
# xgrammar peer (bench/peer_xgrammar.py) on the same inputs, lmforge first in odd rounds and
# xgrammar first in even ones, then per grammar and vocabulary the median of each side and the
# median of the per-round ratios (lmforge / xgrammar), for the compile's wall time and its CPU
# time. On a shared machine the ratio of adjacent runs, and CPU time, move much less than
# either side's wall time.
#
#   bench/grammar-vs-xgrammar.sh                         # 3 rounds, every grammar and vocabulary
#   bench/grammar-vs-xgrammar.sh --rounds 5 --vocab llama3 --grammar tool-call
#
# Every round's JSON lines are kept under $OUT_DIR (default: a fresh temporary folder, printed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
rounds=3
pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --vocab | --grammar) pass+=("$1" "$2"); shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
bash "$here/peer-xgrammar.sh" --install
venv="${LMFORGE_HOME:-$HOME/.cache/lmforge}/peer/xgrammar-venv"
out="${OUT_DIR:-$(mktemp -d -t lmforge-grammar-vs-xgrammar.XXXXXX)}"
mkdir -p "$out"
cd "$here/.."
node --import tsx fixtures/grammar-inputs.ts > "$out/inputs.json"
ours() { npx tsx bench/grammar.ts --json "${pass[@]}" > "$out/lmforge-$1.jsonl"; }
peer() { "$venv/bin/python" bench/peer_xgrammar.py "$out/inputs.json" "${pass[@]}" > "$out/xgrammar-$1.jsonl"; }
for ((r = 1; r <= rounds; r++)); do
  echo "round $r of $rounds" >&2
  if ((r % 2)); then ours "$r"; peer "$r"; else peer "$r"; ours "$r"; fi
done
echo "runs: $out" >&2
"$venv/bin/python" - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(side, r):
    return {(row["grammar"], row["vocab"]): row for row in map(json.loads, open(f"{out}/{side}-{r}.jsonl"))}
ours = [load("lmforge", r) for r in range(1, rounds + 1)]
peer = [load("xgrammar", r) for r in range(1, rounds + 1)]
med = statistics.median
print("grammar\tvocab\tcompile_ms\txgrammar_ms\tratio\tcompile_cpu_ms\txgrammar_cpu_ms\tcpu_ratio\twall ratios per round\tcpu ratios per round")
for key in ours[0]:
    row = [key[0], key[1]]
    per_round = [o[key]["compile_ms"] / p[key]["compile_ms"] for o, p in zip(ours, peer)]
    cpu_per_round = [o[key]["compile_cpu_ms"] / p[key]["compile_cpu_ms"] for o, p in zip(ours, peer)]
    row += [f'{med(o[key]["compile_ms"] for o in ours):.1f}', f'{med(p[key]["compile_ms"] for p in peer):.1f}', f"{med(per_round):.2f}"]
    row += [f'{med(o[key]["compile_cpu_ms"] for o in ours):.1f}', f'{med(p[key]["compile_cpu_ms"] for p in peer):.1f}', f"{med(cpu_per_round):.2f}"]
    row.append(" ".join(f"{x:.2f}" for x in per_round))
    row.append(" ".join(f"{x:.2f}" for x in cpu_per_round))
    print("\t".join(row))
EOF
