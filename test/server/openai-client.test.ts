// The server through the official `openai` npm client, as users call it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('openai client');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const messages = [{ role: 'user' as const, content: 'Tell me a story about a fox.' }];
const extra = { ignore_eos: true } as object; // not in OpenAI's types: an lmforge (older variant) field

test('lists the served model', async ({ s }) => {
  const models = await s.client.models.list();
  assert.equal(models.data.map((m) => [m.id, m.object, m.owned_by]), [[TINY_MODEL_ID, 'model', 'lmforge']]);
  assert.type(models.data[0]!.created, 'number');
});

test('a whole (non-streamed) completion', async ({ s }) => {
  const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 12, temperature: 0, ...extra });
  assert.is(completion.object, 'chat.completion');
  assert.match(completion.id, /^chatcmpl-/);
  assert.match(completion.system_fingerprint!, /^lmforge-test_linux-x64_cpu:0$/);
  assert.is(completion.model, TINY_MODEL_ID);
  assert.is(completion.choices.length, 1);
  const choice = completion.choices[0]!;
  assert.is(choice.message.role, 'assistant');
  assert.type(choice.message.content, 'string');
  assert.is(choice.finish_reason, 'length');
  assert.is(completion.usage!.completion_tokens, 12);
  assert.ok(completion.usage!.prompt_tokens > 5);
  assert.is(completion.usage!.total_tokens, completion.usage!.prompt_tokens + 12);
});

test('usage.prompt_tokens_details.cached_tokens: a conversation\'s next turn is served from the cache', async ({ s }) => {
  const system = { role: 'system' as const, content: 'You answer in one short sentence. '.repeat(12) };
  const first = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages: [system, { role: 'user', content: 'Name a colour.' }], max_tokens: 6, temperature: 0 });
  // Only the template's opening can be cached from earlier tests: the system prompt is new.
  assert.ok(first.usage!.prompt_tokens_details!.cached_tokens! < 10, `${first.usage!.prompt_tokens_details!.cached_tokens}`);
  const history = [system, { role: 'user' as const, content: 'Name a colour.' }, { role: 'assistant' as const, content: first.choices[0]!.message.content ?? '' }];
  const stream = await s.client.chat.completions.create({
    model: TINY_MODEL_ID,
    messages: [...history, { role: 'user', content: 'And another one?' }],
    max_tokens: 6,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
  });
  let usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens?: number } } | undefined;
  for await (const chunk of stream) usage = chunk.usage ?? usage;
  const cached = usage!.prompt_tokens_details!.cached_tokens!;
  assert.ok(cached >= first.usage!.prompt_tokens, `the whole first prompt is reused (${cached} of ${usage!.prompt_tokens}; the first had ${first.usage!.prompt_tokens})`);
  assert.ok(cached < usage!.prompt_tokens);
});

test('cache_prompt: false computes the whole prompt, though the cache holds it', async ({ s }) => {
  const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: 'Count the stars tonight.' }], max_tokens: 8, temperature: 0 };
  const first = await s.client.chat.completions.create(request);
  const cachedAgain = await s.client.chat.completions.create(request);
  assert.ok(cachedAgain.usage!.prompt_tokens_details!.cached_tokens! >= first.usage!.prompt_tokens - 1, 'the repeat is a cache hit');
  const whole = await s.client.chat.completions.create({ ...request, cache_prompt: false } as typeof request);
  assert.is(whole.usage!.prompt_tokens_details!.cached_tokens, 0);
  assert.is(whole.choices[0]!.message.content, first.choices[0]!.message.content);
  const streamed = await s.client.chat.completions.create({ ...request, cache_prompt: false, stream: true, stream_options: { include_usage: true } } as typeof request & { stream: true });
  let usage: { prompt_tokens_details?: { cached_tokens?: number } } | undefined;
  for await (const chunk of streamed) usage = chunk.usage ?? usage;
  assert.is(usage!.prompt_tokens_details!.cached_tokens, 0);
});

test('stream_options.include_obfuscation pads each chunk but the usage one with random characters of random length; off, none', async ({ s }) => {
  const request = { model: TINY_MODEL_ID, messages, max_tokens: 12, temperature: 0, stream: true as const };
  const padded = await s.client.chat.completions.create({ ...request, stream_options: { include_usage: true, include_obfuscation: true } });
  const lengths = new Set<number>();
  let text = '';
  for await (const chunk of padded) {
    const obfuscation = (chunk as { obfuscation?: unknown }).obfuscation;
    if (chunk.usage) {
      assert.is(obfuscation, undefined, 'the usage chunk is not padded');
      continue;
    }
    assert.type(obfuscation, 'string');
    assert.match(obfuscation as string, /^[A-Za-z0-9_-]{1,48}$/);
    lengths.add((obfuscation as string).length);
    text += chunk.choices[0]?.delta.content ?? '';
  }
  assert.ok(lengths.size > 1, 'lengths vary');
  const plain = await s.client.chat.completions.create({ ...request, stream_options: { include_obfuscation: false } });
  let plainText = '';
  for await (const chunk of plain) {
    assert.not.ok('obfuscation' in chunk);
    plainText += chunk.choices[0]?.delta.content ?? '';
  }
  assert.is(text, plainText, 'the padding changes nothing else');
});

test('cache_prompt must be a boolean', async ({ s }) => {
  const response = await fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: TINY_MODEL_ID, messages, cache_prompt: 'no' }),
  });
  assert.is(response.status, 400);
  const body = (await response.json()) as { error: { param: string; message: string } };
  assert.is(body.error.param, 'cache_prompt');
  assert.match(body.error.message, /boolean/);
});

test('a streamed completion with usage matches the whole one', async ({ s }) => {
  const whole = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 10, temperature: 0, ...extra });
  const stream = await s.client.chat.completions.create({
    model: TINY_MODEL_ID,
    messages,
    max_tokens: 10,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  });
  let text = '';
  let role: string | undefined;
  let finish: string | null | undefined;
  let usage: { completion_tokens: number; prompt_tokens: number } | undefined;
  let chunks = 0;
  for await (const chunk of stream) {
    chunks++;
    assert.is(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) {
      usage = chunk.usage;
      assert.equal(chunk.choices, [], 'the usage chunk has no choices');
      continue;
    }
    // With include_usage every other chunk says usage: null, as OpenAI's do.
    assert.ok('usage' in chunk && chunk.usage === null, JSON.stringify(chunk));
    const choice = chunk.choices[0]!;
    role ??= choice.delta.role;
    text += choice.delta.content ?? '';
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  assert.is(role, 'assistant');
  assert.is(text, whole.choices[0]!.message.content);
  assert.is(finish, 'length');
  assert.is(usage!.completion_tokens, 10);
  assert.is(usage!.prompt_tokens, whole.usage!.prompt_tokens);
  assert.ok(chunks >= 3);
});

test("a developer message is the system instructions (OpenAI's newer name): the same prompt and answer", async ({ s }) => {
  const wholePrompt = { cache_prompt: false } as object; // an lmforge field: no cache hit to round differently
  const ask = (role: 'system' | 'developer') =>
    s.client.chat.completions.create({ model: TINY_MODEL_ID, messages: [{ role, content: 'Answer briefly.' }, ...messages], max_tokens: 8, temperature: 0, ...wholePrompt });
  const system = await ask('system');
  const developer = await ask('developer');
  assert.is(developer.usage!.prompt_tokens, system.usage!.prompt_tokens);
  assert.is(developer.choices[0]!.message.content, system.choices[0]!.message.content);
  const plain = (await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 1 })).usage!.prompt_tokens;
  assert.ok(developer.usage!.prompt_tokens > plain, 'the developer message is in the prompt');
});

test('top_p 0 (in OpenAI\'s range) keeps only the most likely token: the greedy answer, whatever the seed', async ({ s }) => {
  const wholePrompt = { cache_prompt: false } as object;
  const greedy = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 8, temperature: 0, ...wholePrompt });
  for (const seed of [1, 2, 3]) {
    const nucleus = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 8, temperature: 1, top_p: 0, seed, ...wholePrompt });
    assert.is(nucleus.choices[0]!.message.content, greedy.choices[0]!.message.content, `seed ${seed}`);
  }
});

test('n returns that many choices', async ({ s }) => {
  const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 6, n: 3, seed: 5, ...extra });
  assert.equal(completion.choices.map((c) => c.index), [0, 1, 2]);
  assert.is(completion.usage!.completion_tokens, 18);
});

test('the same seed gives the same output', async ({ s }) => {
  const ask = () => s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 16, seed: 99, temperature: 0.8, top_p: 0.5, ...extra });
  const [a, b] = [await ask(), await ask()];
  assert.is(a.choices[0]!.message.content, b.choices[0]!.message.content);
});

test('stop ends the output before the stop string', async ({ s }) => {
  const free = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 20, temperature: 0, ...extra });
  const text = free.choices[0]!.message.content!;
  const stop = text.slice(6, 9);
  const stopped = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 20, temperature: 0, stop: [stop], ...extra });
  assert.is(stopped.choices[0]!.finish_reason, 'stop');
  assert.is(stopped.choices[0]!.message.content, text.slice(0, text.indexOf(stop)));
});

test('logprobs and top_logprobs', async ({ s }) => {
  const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 5, temperature: 0, logprobs: true, top_logprobs: 3, ...extra });
  const content = completion.choices[0]!.logprobs!.content!;
  assert.is(content.length, 5);
  assert.is(content.map((entry) => entry.token).join(''), completion.choices[0]!.message.content);
  for (const entry of content) {
    assert.ok(entry.logprob <= 0);
    assert.is(entry.top_logprobs.length, 3);
    assert.is(entry.top_logprobs[0]!.token, entry.token);
    assert.equal(Buffer.from(entry.bytes!).toString('utf8'), entry.token);
  }
  // OpenAI's logprobs object has refusal beside content, null when the model answered.
  assert.is(completion.choices[0]!.logprobs!.refusal, null);
  // So has the message (the SDKs' types require the field; it was left out).
  assert.ok(Object.hasOwn(completion.choices[0]!.message, 'refusal'));
  assert.is(completion.choices[0]!.message.refusal, null);
  const stream = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 5, temperature: 0, logprobs: true, stream: true, ...extra });
  const streamed = [];
  for await (const chunk of stream) if (chunk.choices[0]?.logprobs) streamed.push(chunk.choices[0].logprobs);
  assert.ok(streamed.length > 0);
  for (const logprobs of streamed) assert.is(logprobs.refusal, null);
  assert.equal(streamed.flatMap((logprobs) => logprobs.content!.map((entry) => entry.token)), content.map((entry) => entry.token));
});

test('logit_bias of +100 forces a token', async ({ s }) => {
  // GPT-2 token 995 is " world".
  const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 4, logit_bias: { '995': 100 }, ...extra });
  assert.is(completion.choices[0]!.message.content, ' world world world world');
});

test('max_tokens ends with finish_reason length', async ({ s }) => {
  const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 1, ...extra });
  assert.is(completion.choices[0]!.finish_reason, 'length');
  assert.is(completion.usage!.completion_tokens, 1);
});

test.run();
