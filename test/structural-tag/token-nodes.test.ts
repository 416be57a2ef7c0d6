// Token-level nodes: token strings resolved against a real vocabulary (Qwen2's), id checks,
// and matching by token on a small hand-made vocabulary (GRAMMAR.md §7 cases 23 and 27):
// text can never pass a token node, a token node never matches text.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } from '../../compiler/index.js';
import { check, qwen2Resolver, rejects, tag } from './helpers.js';

const test = suite('structural-tag token nodes');

// id: 0 "a", 1 "b", 2 "x", 3 "hello", 4 "<|tool|>" (special), 5 "<|end|>" (special), 6 "</s>" (stop), 7 "ab"
const TEXTS = ['a', 'b', 'x', 'hello', '<|tool|>', '<|end|>', '</s>', 'ab'];
const info = TokenizerInfo.fromTokenBytes({ tokens: TEXTS.map((t) => new TextEncoder().encode(t)), special: [4, 5], stop: [6] });
const resolveToken = (text: string): number | undefined => (TEXTS.includes(text) ? TEXTS.indexOf(text) : undefined);
const compiler = new GrammarCompiler(info);

/** Does this token sequence reach a completed state (then the stop token is accepted)? */
function tokens(format: unknown): (...ids: number[]) => boolean {
  const base = new GrammarMatcher(compiler.compile(Grammar.fromStructuralTag(format, { resolveToken, vocabSize: TEXTS.length })));
  return (...ids) => {
    const m = base.fork();
    return ids.every((id) => m.acceptToken(id)) && m.acceptToken(6);
  };
}

test('token strings resolve against the Qwen2 vocabulary; integer ids pass through', async () => {
  const resolve = await qwen2Resolver();
  const ir = Grammar.fromStructuralTag({ type: 'sequence', elements: [{ type: 'token', token: '<|im_end|>' }, { type: 'exclude_token', exclude_tokens: ['hello', 7] }] }, { resolveToken: resolve }).ir;
  const kinds = JSON.stringify(ir.rules[ir.root]!.body);
  assert.match(kinds, /"kind":"token","ids":\[151645\]/);
  assert.match(kinds, /"kind":"excludeToken","ids":\[14990,7\]/);
  rejects({ type: 'token', token: '<|no such token|>' }, '/token', /token: no token of the vocabulary is exactly "<\|no such token\|>"/, { resolveToken: resolve });
});

test('a token string without a vocabulary, a negative id and an id past vocabSize are errors', () => {
  rejects({ type: 'token', token: 'hello' }, '/token', /needs a vocabulary/);
  rejects({ type: 'token', token: -1 }, '/token', /non-negative integer/);
  rejects({ type: 'exclude_token', exclude_tokens: [1, 99] }, '/exclude_tokens/1', /token id 99 is outside the vocabulary \(8 tokens\)/, { vocabSize: 8 });
  rejects({ type: 'token', token: 1.5 }, '/token', /non-negative integer/);
});

test('an end-of-generation token is refused wherever the output would contain it, and allowed in exclusion lists', () => {
  // The engine ends the output at such a token: a format asking for it mid-way could never be
  // followed (the output stopped there, reported as stop).
  const options = { resolveToken, vocabSize: TEXTS.length, stopTokens: new Set([6]) };
  const ends = /the token "<\/s>" ends generation/;
  rejects({ type: 'sequence', elements: [{ type: 'const_string', value: 'a' }, { type: 'token', token: '</s>' }] }, '/elements/1/token', ends, options);
  rejects({ type: 'token', token: 6 }, '/token', /the token 6 ends generation/, options);
  rejects({ type: 'tag', begin: 'a', content: { type: 'const_string', value: 'b' }, end: { type: 'token', token: '</s>' } }, '/end/token', ends, options);
  rejects({ type: 'token_triggered_tags', trigger_tokens: ['</s>'], tags: [{ begin: { type: 'token', token: '<|tool|>' }, content: { type: 'const_string', value: 'x' }, end: 'b' }] }, '/trigger_tokens/0', ends, options);
  rejects({ type: 'token_dispatch', rules: [['</s>', { type: 'const_string', value: 'x' }]] }, '/rules/0/0', ends, options);
  // Kept out, it is no output: fine.
  const ok = Grammar.fromStructuralTag({ type: 'exclude_token', exclude_tokens: ['</s>', 'hello'] }, options);
  assert.ok(ok.ir.rules.length > 0);
  // Without the vocabulary's stop tokens (compile-grammar by id), nothing is known to refuse.
  assert.ok(Grammar.fromStructuralTag({ type: 'token', token: 6 }, { vocabSize: TEXTS.length }).ir.rules.length > 0);
});

test('token: exactly that token, never its text', () => {
  const ok = tokens({ type: 'token', token: '<|tool|>' });
  assert.ok(ok(4));
  assert.not.ok(ok());
  assert.not.ok(ok(4, 4));
  check(tag({ type: 'token', token: 4 }), [], ['<|tool|>', '']);
});

test('exclude_token: one token outside the set; any_tokens: any number of them', () => {
  const one = tokens({ type: 'exclude_token', exclude_tokens: ['hello', 'x'] });
  assert.ok(one(0) && one(7) && one(1));
  assert.not.ok(one(3) || one(2) || one() || one(0, 1));
  const many = tokens({ type: 'any_tokens', exclude_tokens: ['hello'] });
  assert.ok(many() && many(0, 1, 7) && many(2, 0));
  assert.not.ok(many(0, 3));
});

test('case 27: any_tokens inside a token-ended tag excludes the end token, so the tag closes', () => {
  const ok = tokens({ type: 'tag', begin: { type: 'token', token: '<|tool|>' }, content: { type: 'any_tokens' }, end: { type: 'token', token: '<|end|>' } });
  assert.ok(ok(4, 5) && ok(4, 0, 1, 5));
  assert.not.ok(ok(4, 5, 5), 'the end token cannot be content');
  assert.not.ok(ok(4, 0));
});

test('case 23: token_dispatch with loop false and an excluded token', () => {
  const format = { type: 'token_dispatch', rules: [['<|tool|>', { type: 'const_string', value: 'x' }]], loop: false, exclude_tokens: ['hello'] };
  const ok = tokens(format);
  assert.ok(ok() && ok(0, 1) && ok(0, 4, 2) && ok(4, 2));
  assert.not.ok(ok(3), 'the excluded token is not free text');
  assert.not.ok(ok(4, 0), 'after the trigger token only its rule');
  assert.not.ok(ok(4, 2, 0), 'no loop');
  check(tag(format, { resolveToken }), [''], ['<|tool|>x']);
});

test('token_dispatch loops by default; its excluded token ends it inside a sequence', () => {
  const ok = tokens({ type: 'sequence', elements: [{ type: 'token_dispatch', rules: [[4, { type: 'const_string', value: 'x' }]], exclude_tokens: [5] }, { type: 'token', token: 5 }] });
  assert.ok(ok(5) && ok(0, 4, 2, 1, 4, 2, 5));
  assert.not.ok(ok(0, 5, 5));
});

test('token_triggered_tags: tags begin with a trigger token; flags as for triggered_tags', () => {
  const format = (extra: object) => ({
    type: 'token_triggered_tags',
    trigger_tokens: ['<|tool|>'],
    tags: [{ begin: { type: 'token', token: '<|tool|>' }, content: { type: 'const_string', value: 'ab' }, end: { type: 'token', token: '<|end|>' } }],
    ...extra,
  });
  const free = tokens(format({}));
  assert.ok(free() && free(2, 3) && free(2, 4, 0, 1, 5, 3) && free(4, 7, 5));
  assert.not.ok(free(4, 2, 5));
  const exactlyOne = tokens(format({ at_least_one: true, stop_after_first: true }));
  assert.ok(exactlyOne(4, 7, 5));
  assert.not.ok(exactlyOne() || exactlyOne(2, 4, 7, 5) || exactlyOne(4, 7, 5, 2));
  const first = tokens(format({ at_least_one: true }));
  assert.ok(first(4, 7, 5, 2, 4, 0, 1, 5));
  assert.not.ok(first(2, 4, 7, 5) || first());
  const once = tokens(format({ stop_after_first: true }));
  assert.ok(once(2, 4, 7, 5) && once(2));
  assert.not.ok(once(4, 7, 5, 2));
});

test('a tag with a token begin and a string end (and the reverse)', () => {
  const ok = tokens({ type: 'tag', begin: { type: 'token', token: 4 }, content: { type: 'any_text' }, end: 'x' });
  assert.ok(ok(4, 0, 1, 2) && ok(4, 7, 2) && ok(4, 2));
  assert.not.ok(ok(0, 1, 2), 'the begin token is required');
  assert.not.ok(ok(4, 2, 2), 'the end string is excluded from the content');
  const reverse = tokens({ type: 'tag', begin: 'a', content: { type: 'const_string', value: 'b' }, end: { type: 'token', token: 5 } });
  assert.ok(reverse(7, 5) && reverse(0, 1, 5));
  assert.not.ok(reverse(7));
  check(tag({ type: 'tag', begin: 'a', content: { type: 'const_string', value: 'b' }, end: { type: 'token', token: 5 } }), [], ['ab<|end|>', 'ab']);
});

test.run();
