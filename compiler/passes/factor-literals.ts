// Literal alternatives factored into a trie: a choice among many literal strings (a JSON Schema
// string enum, `anyOf`/`oneOf` of `const` values) becomes nested choices that share the
// literals' common prefixes, e.g. "ab" | "ac" | "b" -> "a" ("b" | "c") | "b". Built as they are,
// n literals that begin alike are n live branches of the rule's automaton at every byte of that
// prefix, and such a rule is too large for fsm/minimize.ts to make deterministic (past 20,000
// states): every row of the matcher then holds one item per branch, and a token mask there
// parses each candidate token through all of them (seconds per mask for a 5,000-entry enum).
// Factored, the automaton is deterministic along the literals: one item per row. The language
// is the same.
//
// Only choices whose literals are large are rewritten: smaller rules are determinised and
// minimised anyway, and their IR (and so their grammar hash) stays as it was.
import type { Expr, GrammarIR } from '../ir.js';

/** Literal bytes in one choice from which it is factored. */
export const MIN_FACTORED_BYTES = 1024;
/** Branching levels of one trie; below them the remaining suffixes stay a plain choice, so
 * a body stays shallow for the recursive passes after this one (see outline.ts). */
const MAX_TRIE_DEPTH = 32;

const EMPTY: Expr = { kind: 'bytes', bytes: new Uint8Array(0) };

export function factorLiteralChoices(grammar: GrammarIR, minBytes = MIN_FACTORED_BYTES): GrammarIR {
  const factor = (e: Expr): Expr => factorIn(e, minBytes);
  return { root: grammar.root, rules: grammar.rules.map((r) => ({ ...r, body: factor(r.body) })) };
}

function factorIn(e: Expr, minBytes: number): Expr {
  const factor = (x: Expr): Expr => factorIn(x, minBytes);
  switch (e.kind) {
    case 'seq':
      return { kind: 'seq', items: e.items.map(factor) };
    case 'repeat':
      return { ...e, body: factor(e.body) };
    case 'choice': {
      const items = e.items.map(factor);
      const literals: Uint8Array[] = [];
      let bytes = 0;
      for (const item of items) {
        if (item.kind !== 'bytes') continue;
        literals.push(item.bytes);
        bytes += item.bytes.length;
      }
      if (literals.length < 2 || bytes < minBytes) return { ...e, items };
      const trie = trieOf(uniqueSorted(literals), 0, 0);
      // Never more states to build than the literals had (fsm/build.ts counts them against
      // MAX_AUTOMATON_STATES): a grammar within the limit stays within it.
      if (builtStates(trie) > bytes + literals.length) return { ...e, items };
      const others = items.filter((item) => item.kind !== 'bytes');
      const head = trie.kind === 'choice' ? trie.items : [trie];
      // Normal form: the empty alternative, if any, first (it can only come from the trie).
      const out = [...head, ...others];
      return out.length === 1 ? out[0]! : { ...e, items: out };
    }
    default:
      return e;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function uniqueSorted(literals: Uint8Array[]): Uint8Array[] {
  const sorted = [...literals].sort(compareBytes);
  return sorted.filter((s, i) => i === 0 || compareBytes(sorted[i - 1]!, s) !== 0);
}

/**
 * The trie of `words` (sorted, distinct, all equal on their first `at` bytes) from byte `at`
 * on: their common prefix, then a choice of "" (if one ends there) and one branch per next byte.
 * Sorted, a prefix comes before its extensions and the common prefix of all is that of the
 * first and the last.
 */
function trieOf(words: Uint8Array[], at: number, depth: number): Expr {
  const first = words[0]!;
  const last = words[words.length - 1]!;
  let end = at;
  while (end < first.length && first[end] === last[end]) end++;
  const label = first.slice(at, end);
  if (words.length === 1) return { kind: 'bytes', bytes: label };
  const branches: Expr[] = [];
  let i = 0;
  if (first.length === end) {
    branches.push(EMPTY);
    i = 1;
  }
  if (depth >= MAX_TRIE_DEPTH) {
    for (; i < words.length; i++) branches.push({ kind: 'bytes', bytes: words[i]!.slice(end) });
  } else {
    while (i < words.length) {
      const byte = words[i]![end];
      let j = i + 1;
      while (j < words.length && words[j]![end] === byte) j++;
      branches.push(trieOf(words.slice(i, j), end, depth + 1));
      i = j;
    }
  }
  const rest: Expr = { kind: 'choice', items: branches };
  return label.length === 0 ? rest : { kind: 'seq', items: [{ kind: 'bytes', bytes: label }, rest] };
}

/** States the automaton builder makes for a trie (a choice: an end, and an entry per branch). */
function builtStates(e: Expr): number {
  if (e.kind === 'bytes') return e.bytes.length;
  if (e.kind === 'seq') return e.items.reduce((n, i) => n + builtStates(i), 0);
  if (e.kind === 'choice') return e.items.reduce((n, i) => n + 1 + builtStates(i), 1);
  return 0;
}
