// Long choices of literals (string enums, anyOf of consts) are factored into tries
// (compiler/passes/factor-literals.ts). The masks must be those of the same language built
// unfactored, and the rows along an entry must stay small: unfactored, every entry sharing the
// prefix read so far is a live item, and each mask parses its candidate tokens through all of
// them (1-3 s per mask on the engine thread for 5,000 entries, issue 32).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type CompiledGrammar, Grammar, GrammarCompiler, GrammarMatcher, type TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromGGUF } from '../../compiler/node.js';
import type { Expr } from '../../compiler/ir.js';
import { RowEngine } from '../../compiler/row-engine.js';
import { greedyTokens } from '../../fixtures/grammar-inputs.js';
import { defaultModelPath } from '../../fixtures/paths.js';
import { allowedIds, describe, differences, fastMask } from './token-oracle.js';
import { testRandom } from '../helpers/test-random.js';

const test = suite('literal-trie');

let vocab: TokenizerInfo | null = null;
/** The default model's vocabulary (SmolLM2, 49k tokens). */
async function smolVocabulary(): Promise<TokenizerInfo> {
  return (vocab ??= await tokenizerInfoFromGGUF(await defaultModelPath()));
}

/** The same grammar with every literal spelled as one-byte ranges, which the pass leaves as built. */
function unfactored(grammar: Grammar): Grammar {
  const spell = (e: Expr): Expr => {
    if (e.kind === 'bytes' && e.bytes.length > 0) return { kind: 'seq', items: Array.from(e.bytes, (b): Expr => ({ kind: 'byteRange', lo: b, hi: b })) };
    if (e.kind === 'seq' || e.kind === 'choice') return { ...e, items: e.items.map(spell) };
    if (e.kind === 'repeat') return { ...e, body: spell(e.body) };
    return e;
  };
  return Grammar.fromIR({ root: grammar.ir.root, rules: grammar.ir.rules.map((r) => ({ ...r, body: spell(r.body) })) });
}

// Long pieces make rules past the size fsm/minimize.ts determinises (20,000 states), as a long enum is.
const PIECES = ['a', 'b', 'ab', 'é', '😀', '中文', '"', '\\', '\n', '\u0001', '/', ' ', 'x-', '0', 'ü', 'a-long-shared-piece-of-an-entry-', 'another-long-piece/'];

/** Strings built from a few pieces: many share prefixes, some are prefixes of others, one is empty. */
function randomEntries(random: () => number, count: number): string[] {
  const out = new Set<string>(['']);
  while (out.size < count) {
    let s = '';
    const len = Math.floor(random() * 10);
    for (let i = 0; i < len; i++) s += PIECES[Math.floor(random() * PIECES.length)]!;
    out.add(s);
    if (random() < 0.3) out.add(s + PIECES[Math.floor(random() * PIECES.length)]!); // and its extension
  }
  return [...out];
}

/** Along `text`'s greedy tokens and then random allowed tokens, the two grammars' masks are equal. */
function checkWalk(a: CompiledGrammar, b: CompiledGrammar, info: TokenizerInfo, text: string, random: () => number, label: string): void {
  const ma = new GrammarMatcher(a);
  const mb = new GrammarMatcher(b);
  const forced = greedyTokens(info, text);
  for (let step = 0; step < forced.length + 6; step++) {
    const fa = fastMask(ma, info);
    const diffs = differences(fa, fastMask(mb, info));
    assert.equal(diffs, [], `${label}, step ${step} of ${JSON.stringify(text)}: ${describe(info, diffs)}`);
    const allowed = allowedIds(fa);
    const id = step < forced.length ? forced[step]! : allowed[Math.floor(random() * allowed.length)];
    if (id === undefined) break;
    assert.ok(ma.acceptToken(id) && mb.acceptToken(id), `${label}: token ${id} at step ${step}`);
    if (ma.isTerminated()) break;
  }
}

/** The most literals among the items of one choice. */
function widestLiteralChoice(exprs: Expr[]): number {
  let widest = 0;
  for (const e of exprs) {
    if (e.kind === 'choice') widest = Math.max(widest, e.items.filter((i) => i.kind === 'bytes').length);
    if (e.kind === 'seq' || e.kind === 'choice') widest = Math.max(widest, widestLiteralChoice(e.items));
    if (e.kind === 'repeat') widest = Math.max(widest, widestLiteralChoice([e.body]));
  }
  return widest;
}

test('factored enums give the masks of the unfactored grammar', async () => {
  const info = await smolVocabulary();
  const random = testRandom(32);
  for (let round = 0; round < 2; round++) {
    const entries = randomEntries(random, 1000);
    const others = [3, 'x'.repeat(40)];
    const grammars: [string, Grammar][] = [
      ['string enum', Grammar.fromJSONSchema({ enum: [...entries, ...others] })],
      ['anyOf of consts in an object', Grammar.fromJSONSchema({ type: 'object', properties: { k: { anyOf: [...entries.map((c) => ({ const: c })), { type: 'integer' }] } }, required: ['k'] })],
      // Raw literals: the empty one and literals that are prefixes of others end inside the trie.
      ['EBNF literals', Grammar.fromEBNF(`root ::= (${entries.map((e) => JSON.stringify(e)).join(' | ')}) "!"`)],
    ];
    for (const [name, grammar] of grammars) {
      const compiler = new GrammarCompiler(info, { cache: false });
      const a = compiler.compile(grammar);
      const b = compiler.compile(unfactored(grammar));
      assert.ok(widestLiteralChoice(a.ir.rules.map((r) => r.body)) < 40, `${name}: the pass applied`);
      for (let k = 0; k < 4; k++) {
        const entry = entries[Math.floor(random() * entries.length)]!;
        const text = name === 'EBNF literals' ? `${entry}!` : name === 'string enum' ? JSON.stringify(entry) : `{"k": ${JSON.stringify(entry)}}`;
        checkWalk(a, b, info, text, random, `${name}, round ${round}`);
      }
    }
  }
});

/** The most (state, start) items in one row while reading `text`: what a mask's parse of each candidate token walks through. */
function widestRow(compiled: CompiledGrammar, text: string): number {
  const rows = new RowEngine(compiled.fsm);
  let widest = 0;
  for (const byte of new TextEncoder().encode(text)) {
    assert.ok(rows.pushByte(byte), `byte ${byte} of ${text}`);
    const row = rows.rowCount - 1;
    widest = Math.max(widest, (rows.rowItemEnd(row) - rows.rowItemBegin(row)) >> 1);
  }
  return widest;
}

test('a 5,000-entry enum keeps rows of a few items along an entry', async () => {
  const info = await smolVocabulary();
  const values = Array.from({ length: 5000 }, (_, i) => `choice-${i}-${(i * 7919).toString(36)}`);
  const grammar = Grammar.fromJSONSchema({ type: 'string', enum: values });
  const compiler = new GrammarCompiler(info, { cache: false });
  const compiled = compiler.compile(grammar);
  const plain = compiler.compile(unfactored(grammar));
  const text = JSON.stringify(values[2500]);
  // Unfactored, each of the 5,000 entries is an item after `"choice-`, and 1,111 after `"choice-2`.
  assert.ok(widestRow(plain, text) >= 5000);
  const widest = widestRow(compiled, text);
  assert.ok(widest <= 2, `${widest} items in one row`);
  // And the masks along it are the unfactored grammar's (this trie is too large to be minimised).
  const m = new GrammarMatcher(compiled);
  const p = new GrammarMatcher(plain);
  for (const [step, id] of greedyTokens(info, text).entries()) {
    const mask = fastMask(m, info);
    const diffs = differences(mask, fastMask(p, info));
    assert.equal(diffs, [], `step ${step}: ${describe(info, diffs)}`);
    assert.ok(allowedIds(mask).includes(id));
    assert.ok(m.acceptToken(id) && p.acceptToken(id));
  }
  assert.ok(m.isCompleted());
});

test.run();
