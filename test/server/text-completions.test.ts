// POST /v1/completions through the official `openai` client (client.completions.create) on the
// tiny model: the prompt reaches the model as it is (no chat template), streamed text equals
// whole text for a seed, n and batches of prompts, echo, legacy logprobs, stop, sampling fields,
// response_format, and every refusal with its status and the field it names.
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectErrorAt } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('text completions');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const model = TINY_MODEL_ID;
const prompt = 'Once upon a time there was a fox';
/** lmforge's additions, not in the client's types. */
const extra = (fields: object) => fields as object;

type Choice = { index: number; text: string; finish_reason: string | null; logprobs: OpenAI.CompletionChoice.Logprobs | null };

/** A stream read to its end: each choice's text and logprobs concatenated, its finish reason, and the usage. */
async function readStream(stream: AsyncIterable<OpenAI.Completion>) {
  const choices: Choice[] = [];
  let usage: OpenAI.CompletionUsage | undefined;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    assert.is(chunk.object, 'text_completion');
    assert.match(chunk.id, /^cmpl-/);
    if (chunk.usage) usage = chunk.usage;
    for (const piece of chunk.choices) {
      const choice = (choices[piece.index] ??= { index: piece.index, text: '', finish_reason: null, logprobs: null });
      choice.text += piece.text;
      choice.finish_reason = piece.finish_reason ?? choice.finish_reason;
      if (piece.logprobs) {
        const into = (choice.logprobs ??= { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] });
        into.tokens!.push(...piece.logprobs.tokens!);
        into.token_logprobs!.push(...piece.logprobs.token_logprobs!);
        into.top_logprobs!.push(...piece.logprobs.top_logprobs!);
        into.text_offset!.push(...piece.logprobs.text_offset!);
      }
    }
  }
  return { choices, usage, chunks };
}

test('a whole completion: text_completion, max_tokens 16 by default, usage', async ({ s }) => {
  const completion = await s.client.completions.create({ model, prompt, temperature: 0, ...extra({ ignore_eos: true }) });
  assert.is(completion.object, 'text_completion');
  assert.match(completion.id, /^cmpl-/);
  assert.is(completion.model, model);
  assert.match(completion.system_fingerprint!, /^lmforge-test_/);
  assert.is(completion.choices.length, 1);
  const [choice] = completion.choices;
  assert.is(choice!.index, 0);
  assert.ok(choice!.text.length > 0);
  assert.is(choice!.finish_reason, 'length');
  assert.is(choice!.logprobs, null);
  assert.is(completion.usage!.completion_tokens, 16, 'OpenAI\'s default max_tokens');
  assert.is(completion.usage!.total_tokens, completion.usage!.prompt_tokens + 16);
});

test('the prompt reaches the model as it is: no chat template, and as token ids it completes the same', async ({ s }) => {
  const { tokenTexts } = s.engine.info;
  const ids = [tokenTexts.indexOf('Hello'), tokenTexts.indexOf(' world')];
  assert.ok(ids.every((id) => id > 0), 'the tiny vocabulary has both tokens');
  const asText = await s.client.completions.create({ model, prompt: 'Hello world', max_tokens: 6, seed: 3 });
  assert.is(asText.usage!.prompt_tokens, 2, 'two tokens: nothing around them');
  const asTokens = await s.client.completions.create({ model, prompt: ids, max_tokens: 6, seed: 3 });
  assert.is(asTokens.usage!.prompt_tokens, 2);
  assert.is(asTokens.choices[0]!.text, asText.choices[0]!.text);
});

test('streamed text equals whole text for the same seed (n = 2, logprobs, usage)', async ({ s }) => {
  const request = { model, prompt, max_tokens: 12, n: 2, seed: 11, temperature: 0.9, top_p: 0.95, logprobs: 3 };
  const whole = await s.client.completions.create(request);
  const streamed = await readStream(await s.client.completions.create({ ...request, stream: true, stream_options: { include_usage: true } }));
  assert.ok(streamed.chunks > 4, `several chunks (${streamed.chunks})`);
  assert.equal(streamed.choices, whole.choices);
  assert.equal(streamed.usage, whole.usage);
  assert.is.not(whole.choices[0]!.text, whole.choices[1]!.text, 'each choice draws its own tokens');
});

test('a batch of prompts: n choices each, numbered prompt by prompt, as if asked one by one', async ({ s }) => {
  const fields = { model, max_tokens: 5, n: 2, seed: 5 };
  const batch = await s.client.completions.create({ ...fields, prompt: ['The cat', 'A dog'] });
  const one = await s.client.completions.create({ ...fields, prompt: 'The cat' });
  const two = await s.client.completions.create({ ...fields, prompt: 'A dog' });
  assert.equal(batch.choices.map((c) => c.index), [0, 1, 2, 3]);
  assert.equal(batch.choices.map((c) => c.text), [...one.choices, ...two.choices].map((c) => c.text));
  assert.is(batch.usage!.prompt_tokens, one.usage!.prompt_tokens + two.usage!.prompt_tokens);
  const streamed = await readStream(await s.client.completions.create({ ...fields, prompt: ['The cat', 'A dog'], stream: true }));
  assert.equal(streamed.choices.map((c) => c.text), batch.choices.map((c) => c.text));
  const tokenBatch = await s.client.completions.create({ ...fields, prompt: [[s.engine.info.tokenTexts.indexOf('Hello')], [s.engine.info.tokenTexts.indexOf('Hello')]] });
  assert.equal(tokenBatch.choices.slice(0, 2).map((c) => c.text), tokenBatch.choices.slice(2).map((c) => c.text), 'same prompt, same seed: same choices');
});

test('echo puts the prompt in front, streamed and whole, for text and token prompts', async ({ s }) => {
  const whole = await s.client.completions.create({ model, prompt, echo: true, max_tokens: 4, seed: 2 });
  const plain = await s.client.completions.create({ model, prompt, max_tokens: 4, seed: 2 });
  assert.is(whole.choices[0]!.text, prompt + plain.choices[0]!.text);
  const streamed = await readStream(await s.client.completions.create({ model, prompt, echo: true, max_tokens: 4, seed: 2, stream: true }));
  assert.is(streamed.choices[0]!.text, whole.choices[0]!.text);
  const ids = [s.engine.info.tokenTexts.indexOf('Hello'), s.engine.info.tokenTexts.indexOf(' world')];
  const tokens = await s.client.completions.create({ model, prompt: ids, echo: true, max_tokens: 2 });
  assert.ok(tokens.choices[0]!.text.startsWith('Hello world'), tokens.choices[0]!.text);
});

test('logprobs: tokens, token_logprobs, top_logprobs (k most likely, the sampled one among them) and text_offset', async ({ s }) => {
  const completion = await s.client.completions.create({ model, prompt, max_tokens: 8, logprobs: 2, temperature: 0, ...extra({ ignore_eos: true }) });
  const { text, logprobs } = completion.choices[0]!;
  const { tokens, token_logprobs, top_logprobs, text_offset } = logprobs!;
  assert.is(tokens!.length, 8);
  assert.is(token_logprobs!.length, 8);
  assert.is(text_offset!.length, 8);
  assert.is(tokens!.join(''), text);
  tokens!.forEach((token, i) => {
    assert.ok(token_logprobs![i]! <= 0);
    assert.is(text.slice(text_offset![i]!, text_offset![i]! + token.length), token);
    const top = top_logprobs![i]!;
    assert.ok(Object.keys(top).length >= 1 && Object.keys(top).length <= 3);
    assert.is(top[token], token_logprobs![i]);
    // Greedy: the sampled token is the most likely one.
    assert.is(Math.max(...Object.values(top)), token_logprobs![i]);
  });
  const none = await s.client.completions.create({ model, prompt, max_tokens: 2, logprobs: 0 });
  assert.ok(none.choices[0]!.logprobs!.top_logprobs!.every((top) => Object.keys(top).length === 1), 'logprobs 0: the sampled token only');
});

test('top_logprobs are written most likely first, integer-like tokens too (a plain object would put "4" before "5")', async ({ s }) => {
  const id = (text: string) => s.engine.info.tokenTexts.indexOf(text);
  const [five, four, twelve] = [id('5'), id('4'), id('12')];
  assert.ok(five >= 0 && four >= 0 && twelve >= 0, 'the vocabulary has the three tokens');
  const body = { model, prompt, max_tokens: 1, temperature: 0, logprobs: 3, logit_bias: { [five]: 100, [four]: 90, [twelve]: 80 } };
  const keysOf = (json: string) => [...(/"top_logprobs":\[\{([^}]*)\}/.exec(json)?.[1] ?? '').matchAll(/"([^"]*)":/g)].map((m) => m[1]);
  const whole = await post(`${s.url}/v1/completions`, body);
  assert.is(whole.status, 200, whole.text);
  assert.equal(keysOf(whole.text), ['5', '4', '12'], whole.text);
  const streamed = await post(`${s.url}/v1/completions`, { ...body, stream: true });
  const chunk = streamed.text.split('\n\n').find((event) => event.includes('"top_logprobs":[{'));
  assert.equal(keysOf(chunk ?? ''), ['5', '4', '12'], streamed.text);
});

test('stop ends the text before the stop string; logit_bias, penalties and temperature 0 reach the sampler', async ({ s }) => {
  const greedy = await s.client.completions.create({ model, prompt, max_tokens: 10, temperature: 0, ...extra({ ignore_eos: true }) });
  const text = greedy.choices[0]!.text;
  const stop = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 3);
  const stopped = await s.client.completions.create({ model, prompt, max_tokens: 10, temperature: 0, stop: [stop] });
  assert.is(stopped.choices[0]!.finish_reason, 'stop');
  assert.is(stopped.choices[0]!.text, text.slice(0, text.indexOf(stop)));
  const again = await s.client.completions.create({ model, prompt, max_tokens: 10, temperature: 0, ...extra({ ignore_eos: true }) });
  assert.is(again.choices[0]!.text, text, 'temperature 0 is greedy');
  const the = s.engine.info.tokenTexts.indexOf(' the');
  const forced = await s.client.completions.create({ model, prompt, max_tokens: 4, seed: 1, logit_bias: { [the]: 100 } });
  assert.is(forced.choices[0]!.text, ' the'.repeat(4));
  const penalised = await s.client.completions.create({ model, prompt, max_tokens: 4, temperature: 0, presence_penalty: 2, frequency_penalty: 2, logit_bias: { [the]: 5 } });
  assert.ok(penalised.choices[0]!.text.split(' the').length - 1 < 4, 'the penalties push back against a repeated token');
});

test('response_format constrains the output as in chat', async ({ s }) => {
  const schema = { type: 'object', properties: { answer: { enum: ['yes', 'no'] } }, required: ['answer'], additionalProperties: false };
  const completion = await s.client.completions.create({
    model,
    prompt: 'Is the sky blue? JSON:',
    max_tokens: 40,
    seed: 4,
    ...extra({ response_format: { type: 'json_schema', json_schema: { name: 'answer', schema }, max_whitespace: 0 } }),
  });
  const choice = completion.choices[0]!;
  assert.is(choice.finish_reason, 'stop', choice.text);
  assert.ok(['yes', 'no'].includes(JSON.parse(choice.text).answer), choice.text);
});

const ok = { model, prompt: 'hi', max_tokens: 2 };
const expect = (s: TinyServer, body: object, status: number, param: string | null, code: string | null = null, message?: RegExp) =>
  expectErrorAt('/v1/completions', s, body, status, param, code, message, ok);

test('refusals name the field, with the right status', async ({ s }) => {
  await expect(s, { ...ok, suffix: ' and then?' }, 400, 'suffix', null, /suffix.*not supported/);
  await expect(s, { model, max_tokens: 2 }, 400, 'prompt', null, /Missing required parameter/);
  await expect(s, { ...ok, prompt: 5 }, 400, 'prompt', null, /a list of token ids/);
  await expect(s, { ...ok, prompt: [] }, 400, 'prompt');
  await expect(s, { ...ok, prompt: [1, 'a'] }, 400, 'prompt[1]', null, /token ids \(integers ≥ 0\), got "a"/);
  await expect(s, { ...ok, prompt: [1, 2.5] }, 400, 'prompt[1]');
  await expect(s, { ...ok, prompt: ['a', 'b', 3] }, 400, 'prompt[2]', null, /only strings, got 3/);
  await expect(s, { ...ok, prompt: [[1], 'b'] }, 400, 'prompt[1]', null, /non-empty lists of token ids/);
  await expect(s, { ...ok, prompt: [[1], []] }, 400, 'prompt[1]');
  await expect(s, { ...ok, prompt: [{ text: 'a' }] }, 400, 'prompt', null, /a list of lists of token ids/);
  await expect(s, { ...ok, prompt: [1, 60000] }, 400, 'prompt[1]', null, /60000/);
  await expect(s, { ...ok, prompt: [[1], [2, -3]] }, 400, 'prompt[1][1]', null, /integer ≥ 0, got -3/);
  await expect(s, { ...ok, prompt: [[1], [2, 60000]] }, 400, 'prompt[1][1]');
  await expect(s, { ...ok, prompt: 'x '.repeat(600) }, 400, 'prompt', 'context_length_exceeded');
  await expect(s, { ...ok, prompt: ['fine', 'x '.repeat(600)] }, 400, 'prompt[1]', 'context_length_exceeded');
  await expect(s, { ...ok, prompt: '' }, 400, 'prompt', null, /empty/);
  await expect(s, { ...ok, logprobs: 21 }, 400, 'logprobs');
  await expect(s, { ...ok, best_of: 2 }, 400, 'best_of');
  await expect(s, { ...ok, max_tokens: 0 }, 400, 'max_tokens', null, /only allowed with 'echo'/);
  await expect(s, { ...ok, max_tokens: 0, echo: false }, 400, 'max_tokens');
  await expect(s, { ...ok, max_tokens: -1, echo: true }, 400, 'max_tokens');
  await expect(s, { ...ok, n: 5 }, 400, 'n', null, /max_num_sequence/);
  await expect(s, { ...ok, prompt: Array.from({ length: 40 }, () => 'a'), n: 4 }, 400, 'n', null, /160 choices/);
  await expect(s, { ...ok, stream_options: { include_usage: true } }, 400, 'stream_options');
  await expect(s, { ...ok, temperature: 3 }, 400, 'temperature');
  await expect(s, { ...ok, logit_bias: { 60000: 1 } }, 400, 'logit_bias');
  await expect(s, { ...ok, messages: [] }, 400, 'messages', null, /Unrecognized/);
  await expect(s, { ...ok, response_format: { type: 'regex', pattern: '(' } }, 400, 'response_format.pattern', 'invalid_grammar');
  await expect(s, { ...ok, model: 'other' }, 404, 'model', 'model_not_found');
  // What is accepted in their place.
  for (const fine of [{ suffix: null }, { suffix: '' }, { best_of: 1 }, { echo: false, logprobs: 1 }, { echo: true, logprobs: 1 }, { echo: true, max_tokens: 0 }, { user: 'u' }]) assert.is((await post(`${s.url}/v1/completions`, { ...ok, ...fine })).status, 200, JSON.stringify(fine));
});

test.run();
