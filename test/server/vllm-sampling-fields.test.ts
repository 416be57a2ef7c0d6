// vLLM's min_tokens, stop_token_ids, include_stop_str_in_output, allowed_token_ids, bad_words
// and truncate_prompt_tokens, through the HTTP server and the official client on the tiny model:
// min_tokens holds back every token that would end a choice (the end token, biased to be all but
// certain, comes only after it) and every stop string until that many are generated; a stop
// token ends the choice, output when it is text, left out when it is a control token;
// include_stop_str_in_output outputs the stop string; allowed_token_ids are the only tokens
// generated; bad_words are not written; truncate_prompt_tokens keeps a prompt's last tokens. The
// speculative server (drafts verified token by token) gives the plain server's answers, and the one
// sampling in the graph (the masks a link of its chain) its greedy answers.
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; speculative: TinyServer; device: TinyServer }>('vLLM sampling fields');

test.before(async (context) => {
  context.s = await startTinyServer();
  context.speculative = await startTinyServer({ engine: { speculativeMode: 'ngram', overrides: { context_window_size: 512, spec_draft_length: 4 } } });
  context.device = await startTinyServer({ engine: { sampling: 'device' } });
});
test.after(async ({ s, speculative, device }) => {
  await s.close();
  await speculative.close();
  await device.close();
});

const model = TINY_MODEL_ID;
const prompt = 'Once upon a time';

/** A text completion with vLLM's fields beside the official client's own. */
async function complete(s: TinyServer, fields: object): Promise<OpenAI.Completion> {
  return s.client.completions.create({ model, prompt, temperature: 0, max_tokens: 12, ...fields } as never);
}

test('min_tokens: the end token (biased to be all but certain) comes only after that many tokens; min_tokens = max_tokens runs to the length', async ({ s }) => {
  const eos = String(s.engine.info.endOfGeneration[0]!);
  const biased = { logit_bias: { [eos]: 100 }, logprobs: 0 };
  const none = await complete(s, biased);
  assert.equal([none.choices[0]!.text, none.choices[0]!.finish_reason, none.usage!.completion_tokens], ['', 'stop', 1]);
  for (const min of [1, 4, 7]) {
    const held = await complete(s, { ...biased, min_tokens: min });
    assert.is(held.choices[0]!.finish_reason, 'stop');
    assert.is(held.usage!.completion_tokens, min + 1, 'min_tokens tokens, then the end token');
    assert.is(held.choices[0]!.logprobs!.tokens!.length, min + 1, 'the end token closes the legacy lists');
    // Greedy without the end token: the text is the unbiased greedy text's first tokens.
    const free = await complete(s, { max_tokens: min, logprobs: 0 });
    assert.is(held.choices[0]!.text, free.choices[0]!.text);
  }
  const full = await complete(s, { ...biased, min_tokens: 12 });
  assert.equal([full.choices[0]!.finish_reason, full.usage!.completion_tokens], ['length', 12]);
  // Chat: the turn's end and a turn opener are held back as well.
  const chat = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], temperature: 0, max_tokens: 10, logit_bias: { [eos]: 100 }, min_tokens: 5 } as never);
  assert.equal([chat.choices[0]!.finish_reason, chat.usage!.completion_tokens], ['stop', 6]);
});

test('min_tokens: no stop string ends a choice until that many tokens are generated; one begun before and completed then does', async ({ s }) => {
  const free = await complete(s, { logprobs: 0 });
  const tokens = free.choices[0]!.logprobs!.tokens!;
  const stop = tokens[1]!;
  const early = await complete(s, { stop: [stop] });
  assert.equal([early.choices[0]!.text, early.choices[0]!.finish_reason], [tokens[0], 'stop']);
  const held = await complete(s, { stop: [stop], min_tokens: 3 });
  assert.ok(held.choices[0]!.text.startsWith(tokens.slice(0, 3).join('')), 'the stop string inside the first 3 tokens is output');
  assert.ok(held.usage!.completion_tokens >= 3);
  // Begun in the second token (inside min_tokens 3), completed by the third: the output ends before it.
  const across = tokens[1]! + tokens[2]!;
  const straddled = await complete(s, { stop: [across], min_tokens: 3 });
  assert.equal([straddled.choices[0]!.text, straddled.choices[0]!.finish_reason, straddled.usage!.completion_tokens], [tokens[0], 'stop', 3]);
});

test('stop_token_ids: a text token ends the choice and is output; a control token ends it unseen, ignore_eos or not; chat too', async ({ s }) => {
  const free = await complete(s, { logprobs: 0 });
  const texts = free.choices[0]!.logprobs!.tokens!;
  const ids: number[] = (await post(`${s.url}/tokenize`, { prompt: free.choices[0]!.text })).json.tokens;
  assert.is(ids.length, texts.length, 'the greedy text tokenizes back to its tokens');
  const stopped = await complete(s, { stop_token_ids: [ids[3]!, 50_000] });
  assert.equal([stopped.choices[0]!.text, stopped.choices[0]!.finish_reason, stopped.usage!.completion_tokens], [texts.slice(0, 4).join(''), 'stop', 4]);
  const eos = s.engine.info.endOfGeneration[0]!;
  const ignoring = await complete(s, { logit_bias: { [String(eos)]: 100 }, ignore_eos: true, max_tokens: 4 });
  assert.equal([ignoring.choices[0]!.finish_reason, ignoring.usage!.completion_tokens], ['length', 4], 'ignore_eos: the end token is only text');
  const ended = await complete(s, { logit_bias: { [String(eos)]: 100 }, ignore_eos: true, stop_token_ids: [eos], max_tokens: 4 });
  assert.equal([ended.choices[0]!.text, ended.choices[0]!.finish_reason, ended.usage!.completion_tokens], ['', 'stop', 1]);
  const chatFree = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], temperature: 0, max_tokens: 6, logprobs: true });
  const chatIds = chatFree.choices[0]!.logprobs!.content!.map((entry) => entry.token);
  const chatIdsOf: number[] = (await post(`${s.url}/tokenize`, { prompt: chatFree.choices[0]!.message.content })).json.tokens;
  const chat = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], temperature: 0, max_tokens: 6, stop_token_ids: [chatIdsOf[1]] } as never);
  assert.equal([chat.choices[0]!.message.content, chat.choices[0]!.finish_reason], [chatIds.slice(0, 2).join(''), 'stop']);
});

test('include_stop_str_in_output: the stop string that ended the choice is output, in text completions and chat; the template\'s own stops stay cut', async ({ s }) => {
  const free = await complete(s, { logprobs: 0 });
  const tokens = free.choices[0]!.logprobs!.tokens!;
  const stop = tokens[2]!;
  const cut = await complete(s, { stop: [stop] });
  const kept = await complete(s, { stop: [stop], include_stop_str_in_output: true });
  assert.is(cut.choices[0]!.text, tokens.slice(0, 2).join(''));
  assert.equal([kept.choices[0]!.text, kept.choices[0]!.finish_reason], [tokens.slice(0, 3).join(''), 'stop']);
  let streamed = '';
  for await (const chunk of (await s.client.completions.create({ model, prompt, temperature: 0, max_tokens: 12, stop: [stop], include_stop_str_in_output: true, stream: true } as never)) as unknown as AsyncIterable<OpenAI.Completion>) {
    streamed += chunk.choices[0]?.text ?? '';
  }
  assert.is(streamed, kept.choices[0]!.text);
  const chatFree = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], temperature: 0, max_tokens: 6, logprobs: true });
  const pieces = chatFree.choices[0]!.logprobs!.content!.map((entry) => entry.token);
  const chat = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], temperature: 0, max_tokens: 6, stop: [pieces[1]!], include_stop_str_in_output: true } as never);
  assert.is(chat.choices[0]!.message.content, pieces.slice(0, 2).join(''));
});

test('allowed_token_ids: only those tokens are generated, an end token only when among them; with min_tokens and a grammar too', async ({ s }) => {
  const ids: number[] = (await post(`${s.url}/tokenize`, { prompt: ' red green blue' })).json.tokens;
  const eos = s.engine.info.endOfGeneration[0]!;
  for (let seed = 1; seed <= 4; seed++) {
    const answer = await complete(s, { temperature: 1, seed, allowed_token_ids: ids, logprobs: 0 });
    assert.equal([answer.choices[0]!.finish_reason, answer.usage!.completion_tokens], ['length', 12], 'no end token among them');
    for (const token of answer.choices[0]!.logprobs!.tokens!) assert.ok([' red', ' green', ' blue'].includes(token), token);
  }
  const ending = await complete(s, { allowed_token_ids: [...ids, eos], logit_bias: { [String(eos)]: 100 }, min_tokens: 3, logprobs: 0 });
  assert.equal([ending.choices[0]!.finish_reason, ending.usage!.completion_tokens], ['stop', 4]);
  const constrained = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8, seed: 2, allowed_token_ids: ids, guided_regex: '( red| blue)+' } as never);
  assert.match(constrained.choices[0]!.message.content!, /^( red| blue)+$/);
  // Masks that leave nothing: the request's own fault, a 400 (not a server error).
  const nothing = await post(`${s.url}/v1/chat/completions`, { model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4, allowed_token_ids: ids, guided_regex: '[0-9]+' });
  assert.equal([nothing.status, nothing.json.error.type], [400, 'invalid_request_error'], nothing.text);
  assert.match(nothing.json.error.message, /no token is allowed: the output format, logit_bias, allowed_token_ids and bad_words together exclude/);
});

test('bad_words: a word is kept out as written and mid-sentence; a word of several tokens loses only its last, after the others', async ({ s }) => {
  const free = await complete(s, { logprobs: 0 });
  const tokens = free.choices[0]!.logprobs!.tokens!;
  const ids = async (text: string): Promise<number[]> => (await post(`${s.url}/tokenize`, { prompt: text })).json.tokens;
  // A word the output spells as one spaced token.
  const word = tokens.findIndex((token, i) => i > 0 && /^ [A-Za-z]+$/.test(token));
  assert.ok(word > 0, JSON.stringify(tokens));
  const without = await complete(s, { bad_words: [tokens[word]!.trim()], logprobs: 0 });
  const after = without.choices[0]!.logprobs!.tokens!;
  assert.equal(after.slice(0, word), tokens.slice(0, word), 'the same output up to the word');
  assert.ok(!after.includes(tokens[word]!), JSON.stringify(after));
  // Two words: the first is still written, the second is not after it.
  const pair = `${tokens[word]!}${tokens[word + 1]!}`.trim();
  const pairIds = await ids(` ${pair}`);
  const cut = await complete(s, { bad_words: [pair], logprobs: 0 });
  const cutTokens = cut.choices[0]!.logprobs!.tokens!;
  const cutIds = await ids(cut.choices[0]!.text);
  for (let i = 0; i + pairIds.length <= cutIds.length; i++) assert.not.equal(cutIds.slice(i, i + pairIds.length), pairIds, `the pair at ${i}: ${JSON.stringify(cutTokens)}`);
  assert.is(cutTokens[word], tokens[word], "the pair's first word is still written");
});

test('truncate_prompt_tokens: the last k tokens of a prompt far longer than the context, as their ids would run; -1 leaves room for max_tokens; chat and token ids too', async ({ s }) => {
  const text = Array.from({ length: 3000 }, (_, i) => `word${i % 97} and, then `).join('');
  const truncated = await complete(s, { prompt: text, max_tokens: 6, truncate_prompt_tokens: 100 });
  assert.is(truncated.usage!.prompt_tokens, 100);
  // The reference: the same last 100 tokens, from a piece of the text short enough to tokenize.
  const lastIds: number[] = (await post(`${s.url}/tokenize`, { prompt: text.slice(-900) })).json.tokens.slice(-100);
  const reference = await complete(s, { prompt: lastIds, max_tokens: 6 });
  assert.is(truncated.choices[0]!.text, reference.choices[0]!.text);
  const fitted = await complete(s, { prompt: text, max_tokens: 10, truncate_prompt_tokens: -1 });
  assert.is(fitted.usage!.prompt_tokens, 512 - 10, 'the context (512) less max_tokens');
  const chat = await s.client.chat.completions.create({ model, messages: [{ role: 'user', content: text }], max_tokens: 2, truncate_prompt_tokens: 50 } as never);
  assert.is(chat.usage!.prompt_tokens, 50);
  assert.is((await complete(s, { prompt: lastIds, max_tokens: 2, truncate_prompt_tokens: 30 })).usage!.prompt_tokens, 30);
  assert.is((await complete(s, { prompt: lastIds, max_tokens: 2, truncate_prompt_tokens: 300 })).usage!.prompt_tokens, 100, 'a shorter prompt is kept whole');
  const beyond = await post(`${s.url}/v1/completions`, { model, prompt: text, max_tokens: 2, truncate_prompt_tokens: 100_000 });
  assert.equal([beyond.status, beyond.json.error.code, beyond.json.error.param], [400, 'context_length_exceeded', 'prompt'], 'more than the context keeps no room for output');
  for (const [fields, param] of [[{ truncate_prompt_tokens: 0 }, 'truncate_prompt_tokens'], [{ truncate_prompt_tokens: -2 }, 'truncate_prompt_tokens'], [{ truncate_prompt_tokens: 5, echo: true }, 'truncate_prompt_tokens']] as const) {
    const refused = await post(`${s.url}/v1/completions`, { model, prompt, max_tokens: 2, ...fields });
    assert.equal([refused.status, refused.json.error.param], [400, param], refused.text);
  }
});

test('bad values are a 400 naming the field', async ({ s }) => {
  const cases: [object, string][] = [
    [{ min_tokens: 13 }, 'min_tokens'],
    [{ min_tokens: -1 }, 'min_tokens'],
    [{ stop_token_ids: [60_000] }, 'stop_token_ids'],
    [{ stop_token_ids: [1.5] }, 'stop_token_ids[0]'],
    [{ stop_token_ids: 'x' }, 'stop_token_ids'],
    [{ allowed_token_ids: [] }, 'allowed_token_ids'],
    [{ bad_words: [''] }, 'bad_words[0]'],
    [{ allowed_token_ids: [60_000] }, 'allowed_token_ids'],
  ];
  for (const [fields, param] of cases) {
    const response = await post(`${s.url}/v1/completions`, { model, prompt, max_tokens: 12, ...fields });
    assert.is(response.status, 400, `${JSON.stringify(fields)}: ${response.text}`);
    assert.is(response.json.error.param, param, response.text);
  }
});

test('the speculative server gives the plain server\'s answers; the one sampling in the graph too where greedy, and keeps to the masks where it draws', async ({ s, speculative, device }) => {
  const repeated = Array.from({ length: 8 }, () => 'the quick brown fox jumps over the lazy dog').join(' ');
  const eos = String(s.engine.info.endOfGeneration[0]!);
  const allowed = [262, 290, 286, 257, 13, 11, 50256];
  const badWords = ['the', 'quick brown', 'fox jumps over'];
  for (const fields of [
    { min_tokens: 20, logit_bias: { [eos]: 3 } },
    { min_tokens: 6, stop_token_ids: [262, 290], stop: [' the'] },
    { allowed_token_ids: allowed },
    { bad_words: badWords },
    { temperature: 0.9, seed: 4, min_tokens: 10, stop_token_ids: [13] },
    { temperature: 0.9, seed: 5, allowed_token_ids: allowed },
    { temperature: 0.8, seed: 6, bad_words: badWords },
  ]) {
    const request = { prompt: repeated, max_tokens: 40, ...fields };
    const expected = await complete(s, request);
    const servers = 'seed' in fields ? [['speculative', speculative] as const] : ([['speculative', speculative], ['device', device]] as const);
    for (const [name, server] of servers) {
      const answer = await complete(server, request);
      assert.is(answer.choices[0]!.text, expected.choices[0]!.text, `${name}: ${JSON.stringify(fields)}`);
      assert.is(answer.choices[0]!.finish_reason, expected.choices[0]!.finish_reason);
    }
  }
  // Drawn in the graph, with llama.cpp's generator (other text than the host's for a seed): the masks hold there.
  const theTokens: number[] = [];
  for (const text of ['the', ' the']) theTokens.push(...((await post(`${device.url}/tokenize`, { prompt: text })).json.tokens as number[]));
  assert.is(theTokens.length, 2);
  for (const seed of [1, 2, 3]) {
    const held = await complete(device, { prompt: repeated, max_tokens: 40, temperature: 0.9, seed, min_tokens: 10, stop_token_ids: [13] });
    assert.ok(held.usage!.completion_tokens >= 10, `seed ${seed}: ${held.usage!.completion_tokens} tokens`);
    const only = await complete(device, { prompt: repeated, max_tokens: 40, temperature: 0.9, seed, allowed_token_ids: allowed, logprobs: 0, return_tokens_as_token_ids: true });
    for (const token of only.choices[0]!.logprobs!.tokens!) assert.ok(allowed.includes(Number(token.slice('token_id:'.length))), `seed ${seed}: ${token}`);
    // A one-token word, as written and after a space: neither token is drawn.
    const clean = await complete(device, { prompt: repeated, max_tokens: 40, temperature: 1.5, seed, bad_words: ['the'], logprobs: 0, return_tokens_as_token_ids: true });
    const drawn = clean.choices[0]!.logprobs!.tokens!;
    assert.ok(drawn.length > 0 && !drawn.some((token) => theTokens.includes(Number(token.slice('token_id:'.length)))), `seed ${seed}: ${drawn}`);
  }
});

test.run();
