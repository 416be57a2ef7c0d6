// Sampling in the model's graph (--sampling device), through the HTTP server and the official
// `openai` client, against a server that samples on the host. Logprobs: chat completions whole
// and streamed, and the legacy completions' `logprobs`: same tokens, same bytes, the same
// log-probabilities to float32's rounding. The stages of lmforge's own links (typical_p,
// top_n_sigma, XTC, DRY): a deterministic setting gives the host server's text, seeded ones
// repeat and are drawn in the graph.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type OpenAI from 'openai';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ host: TinyServer; device: TinyServer }>('sampling in the graph, over HTTP');

test.before(async (context) => {
  context.host = await startTinyServer({ engine: { sampling: 'host' } });
  context.device = await startTinyServer({ engine: { sampling: 'device' } });
});
test.after(async ({ host, device }) => {
  await host.close();
  await device.close();
});

/** Float32 in the graph, float64 on the host. */
const TOLERANCE = 1e-4;
const messages = [{ role: 'user' as const, content: 'Tell me a story about a fox.' }];
const extra = { ignore_eos: true } as object; // not in OpenAI's types: an lmforge field

type Content = OpenAI.Chat.Completions.ChatCompletionTokenLogprob[];

function assertClose(actual: Content, expected: Content, what: string): void {
  assert.is(actual.length, expected.length, what);
  actual.forEach((entry, i) => {
    const wanted = expected[i]!;
    assert.is(entry.token, wanted.token, `${what}, position ${i}`);
    assert.equal(entry.bytes, wanted.bytes, `${what}, position ${i}`);
    assert.ok(Math.abs(entry.logprob - wanted.logprob) <= TOLERANCE, `${what}, position ${i}: ${entry.logprob} against ${wanted.logprob}`);
    assert.is(entry.top_logprobs.length, wanted.top_logprobs.length, `${what}, position ${i}`);
    // The chosen token heads a greedy top list on both.
    assert.is(entry.top_logprobs[0]!.token, entry.token, `${what}, position ${i}`);
    entry.top_logprobs.forEach((top, j) => assert.ok(Math.abs(top.logprob - wanted.top_logprobs[j]!.logprob) <= TOLERANCE, `${what}, position ${i}, top ${j}`));
  });
}

test('chat completions with logprobs, whole and streamed, are the host server\'s on the device path', async ({ host, device }) => {
  const request = { model: TINY_MODEL_ID, messages, max_tokens: 8, temperature: 0, logprobs: true, top_logprobs: 4, ...extra };
  const [onDevice, onHost] = [await device.client.chat.completions.create(request), await host.client.chat.completions.create(request)];
  // The device server really samples in the graph (the fingerprint says so), the host one does not.
  assert.match(onDevice.system_fingerprint!, /_device-sampling$/);
  assert.not.match(onHost.system_fingerprint!, /_device-sampling$/);
  assert.is(onDevice.choices[0]!.message.content, onHost.choices[0]!.message.content);
  assertClose(onDevice.choices[0]!.logprobs!.content!, onHost.choices[0]!.logprobs!.content!, 'whole');

  const streamed: Content = [];
  for await (const chunk of await device.client.chat.completions.create({ ...request, stream: true })) streamed.push(...(chunk.choices[0]?.logprobs?.content ?? []));
  assertClose(streamed, onHost.choices[0]!.logprobs!.content!, 'streamed');
});

test('top_p 0 on the device path keeps the most likely token: the host server\'s greedy text, any seed', async ({ host, device }) => {
  const greedy = await host.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 8, temperature: 0, ...extra });
  for (const seed of [1, 2]) {
    const nucleus = await device.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 8, temperature: 1, top_p: 0, seed, ...extra });
    assert.match(nucleus.system_fingerprint!, /_device-sampling$/);
    assert.is(nucleus.choices[0]!.message.content, greedy.choices[0]!.message.content, `seed ${seed}`);
  }
});

test('legacy completions: logprobs 3 on the device path is the host server\'s', async ({ host, device }) => {
  const request = { model: TINY_MODEL_ID, prompt: 'The quick brown fox', max_tokens: 6, temperature: 0, logprobs: 3, ...extra };
  const [onDevice, onHost] = [await device.client.completions.create(request), await host.client.completions.create(request)];
  const [actual, expected] = [onDevice.choices[0]!.logprobs!, onHost.choices[0]!.logprobs!];
  assert.equal(actual.tokens, expected.tokens);
  actual.token_logprobs!.forEach((value, i) => assert.ok(Math.abs(value - expected.token_logprobs![i]!) <= TOLERANCE, `position ${i}`));
  actual.top_logprobs!.forEach((top, i) => {
    const wanted = expected.top_logprobs![i]!;
    assert.equal(Object.keys(top).sort(), Object.keys(wanted).sort(), `position ${i}`);
    for (const [token, value] of Object.entries(top)) assert.ok(Math.abs(value - wanted[token]!) <= TOLERANCE, `position ${i}, ${JSON.stringify(token)}`);
  });
});

test('typical_p, top_n_sigma, xtc_probability and dry_multiplier sample in the graph: typical_p 0 is the host server\'s text, seeds repeat there', async ({ host, device }) => {
  // lmforge's (and llama-server's) fields, outside OpenAI's types.
  const ask = (server: TinyServer, fields: object, seed: number) =>
    server.client.chat.completions.create({ model: TINY_MODEL_ID, messages, max_tokens: 12, temperature: 1.5, seed, ...extra, ...fields } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
  // typical_p 0 keeps the most typical token alone: no draw, the same text on both paths.
  const typicalOnly = { top_k: 12, typical_p: 0 };
  for (const seed of [1, 2]) {
    const [onDevice, onHost] = [await ask(device, typicalOnly, seed), await ask(host, typicalOnly, seed)];
    assert.match(onDevice.system_fingerprint!, /_device-sampling$/);
    assert.is(onDevice.choices[0]!.message.content, onHost.choices[0]!.message.content, `seed ${seed}`);
  }
  const all = { top_k: 40, top_n_sigma: 1.5, typical_p: 0.8, xtc_probability: 0.5, xtc_threshold: 0.02, dry_multiplier: 0.8 };
  let drawnElsewhere = 0;
  for (const seed of [3, 4, 5, 6]) {
    const first = (await ask(device, all, seed)).choices[0]!.message.content;
    assert.is((await ask(device, all, seed)).choices[0]!.message.content, first, `seed ${seed} repeats on the device`);
    if ((await ask(host, all, seed)).choices[0]!.message.content !== first) drawnElsewhere++;
  }
  // Had the device server fallen back to the host path, each seed would give the host's text.
  assert.ok(drawnElsewhere >= 2, `${drawnElsewhere} of 4 seeds gave other text than the host server`);
});

test.run();
