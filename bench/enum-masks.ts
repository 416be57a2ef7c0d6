// Per-mask time along a valid value of a long string enum, factored into a trie (as compiled)
// and unfactored (the same language, its literals spelled as byte ranges, which
// passes/factor-literals.ts leaves as built: the automaton before that pass), in one process
// on the default model's vocabulary. Masks are computed lazily, as the engine does after the
// first token, and compared bit for bit.
//
//   npx tsx bench/enum-masks.ts [entries=5000] [unfactored steps=all] [--short]
import { Grammar, GrammarCompiler, GrammarMatcher } from '../compiler/index.js';
import { tokenizerInfoFromGGUF } from '../compiler/node.js';
import type { Expr } from '../compiler/ir.js';
import { defaultModelPath } from '../fixtures/paths.js';
import { greedyTokens } from '../fixtures/grammar-inputs.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const entries = Number(args[0] ?? 5000);
  const unfactoredSteps = Number(args[1] ?? Infinity);
  // --short: values of a few characters, so that 100,000 of them stay within the state limit.
  const short = process.argv.includes('--short');
  const info = await tokenizerInfoFromGGUF(defaultModelPath());
  const values = Array.from({ length: entries }, (_, i) => (short ? `v${(i * 7919).toString(36)}` : `choice-${i}-${(i * 7919).toString(36)}`));
  const factored = Grammar.fromJSONSchema({ type: 'string', enum: values });
  const spell = (e: Expr): Expr =>
    e.kind === 'bytes' && e.bytes.length > 0 ? { kind: 'seq', items: Array.from(e.bytes, (b): Expr => ({ kind: 'byteRange', lo: b, hi: b })) } : e.kind === 'choice' || e.kind === 'seq' ? { ...e, items: e.items.map(spell) } : e;
  const unfactored = Grammar.fromIR({ root: factored.ir.root, rules: factored.ir.rules.map((r) => ({ ...r, body: spell(r.body) })) });
  const tokens = greedyTokens(info, JSON.stringify(values[Math.floor(entries / 2)]));
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const masks: Uint32Array[][] = [];
  for (const [name, grammar, steps] of [['factored', factored, Infinity], ['unfactored', unfactored, unfactoredSteps]] as const) {
    let t0 = performance.now();
    const compiled = new GrammarCompiler(info, { cache: false }).compile(grammar);
    const compileMs = performance.now() - t0;
    const m = new GrammarMatcher(compiled);
    const times: number[] = [];
    const walk: Uint32Array[] = [];
    for (const id of tokens.slice(0, steps)) {
      const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
      t0 = performance.now();
      m.fillNextTokenBitmask(mask);
      times.push(performance.now() - t0);
      walk.push(mask);
      if (!m.acceptToken(id)) throw new Error(`${name}: token ${id} of the value was refused`);
    }
    masks.push(walk);
    const later = times.slice(1);
    console.log(`${name} ${entries}: compile ${compileMs.toFixed(0)} ms, ${compiled.fsm.stateRule.length} states; first mask ${times[0]!.toFixed(1)} ms; later masks median ${median(later).toFixed(2)} ms, max ${Math.max(...later).toFixed(1)} ms (${times.map((t) => t.toFixed(1)).join(' ')})`);
  }
  const same = masks[1]!.every((mask, i) => mask.every((w, k) => w === masks[0]![i]![k]));
  console.log(`masks equal over ${masks[1]!.length} steps: ${same}`);
}

void main();
