// The server against a scripted engine (test/helpers/fake-engine.ts): what a real model does
// not do on cue. An engine failure part way through a stream and a whole response, chunks that
// are exactly the engine's deltas, refusals named as the endpoint names its prompt, a client
// that leaves, and a batch of text prompts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineRequestError } from '../../runtime/engine/client/engine.js';
import { delta, sseEvents, untilAborted, withFakeEngineServer, type FakeScript } from '../helpers/fake-engine.js';
import { assertEnvelope } from '../helpers/api-errors.js';
import { post, TINY_MODEL_ID } from '../helpers/tiny-server.js';

const test = suite('server on a scripted engine');

const chat = (extra: object = {}) => ({ model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], ...extra });

/** Two pieces of text, then the engine fails. */
const failsPartWay: FakeScript = async function* () {
  yield { type: 'started', promptTokens: 7 };
  yield delta(0, 'Hel');
  yield delta(0, 'lo');
  throw new EngineRequestError({ code: 'internal_error', message: 'decode failed: the device went away' });
};

test('an engine failure mid-stream ends the stream with an error event after what was sent', async () => {
  await withFakeEngineServer(failsPartWay, async (s) => {
    const response = await post(`${s.url}/v1/chat/completions`, chat({ stream: true }));
    assert.is(response.status, 200);
    const events = sseEvents(response.text) as any[];
    assert.equal(
      events.slice(0, 3).map((event) => event.choices[0].delta),
      [{ role: 'assistant', content: '', refusal: null }, { content: 'Hel' }, { content: 'lo' }],
    );
    assert.equal(events[3], { error: { message: 'decode failed: the device went away', type: 'server_error', param: null, code: 'internal_error' } });
    assert.is(events[4], '[DONE]');
    assert.is(events.length, 5);
  });
});

test('an engine failure part way through a whole response keeps the output, finish_reason "error", and counts its tokens (usage said 0)', async () => {
  await withFakeEngineServer(failsPartWay, async (s) => {
    const response = await post(`${s.url}/v1/chat/completions`, chat());
    assert.is(response.status, 200, response.text);
    assert.equal(response.json.choices, [{ index: 0, message: { role: 'assistant', content: 'Hello', refusal: null }, logprobs: null, finish_reason: 'error' }]);
    assert.equal(response.json.usage, { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12, prompt_tokens_details: { cached_tokens: 0 } });
  });
});

test('an engine failure before any output is an HTTP error, streamed or not', async () => {
  await withFakeEngineServer(async function* () {
    yield { type: 'started', promptTokens: 3 };
    throw new EngineRequestError({ code: 'internal_error', message: 'generation failed' });
  }, async (s) => {
    const whole = assertEnvelope(await post(`${s.url}/v1/chat/completions`, chat()), 500);
    assert.is(whole.code, 'internal_error');
  });
});

test('each engine delta is one chunk, and the whole message is their concatenation', async () => {
  const pieces = ['Once', ' upon', '', ' a tïme', '.'];
  await withFakeEngineServer(async function* (request) {
    yield { type: 'started', promptTokens: 4 };
    for (let choice = 0; choice < (request.n ?? 1); choice++) for (const piece of pieces) yield delta(choice, `${piece}${choice}`);
    for (let choice = 0; choice < (request.n ?? 1); choice++) yield { type: 'finished', choice, reason: 'stop', completionTokens: 5, cachedTokens: 2 };
  }, async (s) => {
    const streamed = await post(`${s.url}/v1/chat/completions`, chat({ n: 2, stream: true, stream_options: { include_usage: true } }));
    const events = sseEvents(streamed.text) as any[];
    const contents = (choice: number) => events.filter((e) => e.choices?.[0]?.index === choice && e.choices[0].delta.content !== undefined).map((e) => e.choices[0].delta.content);
    assert.equal(contents(1), ['', ...pieces.map((piece) => `${piece}1`)]);
    const finishes = events.filter((e) => e.choices?.[0]?.finish_reason).map((e) => [e.choices[0].index, e.choices[0].finish_reason, e.choices[0].delta]);
    assert.equal(finishes, [[0, 'stop', {}], [1, 'stop', {}]]);
    const usage = events.at(-2).usage;
    assert.equal(usage, { prompt_tokens: 4, completion_tokens: 10, total_tokens: 14, prompt_tokens_details: { cached_tokens: 2 } });

    const whole = await post(`${s.url}/v1/chat/completions`, chat({ n: 2 }));
    assert.equal(whole.json.choices.map((c: any) => c.message.content), [0, 1].map((choice) => pieces.map((piece) => `${piece}${choice}`).join('')));
    assert.equal(whole.json.usage, usage);
    // Frame fields are the same on every chunk and on the whole response.
    for (const event of events.slice(0, -1)) assert.equal([event.object, event.model, event.system_fingerprint], ['chat.completion.chunk', TINY_MODEL_ID, whole.json.system_fingerprint]);
  });
});

test("vLLM's continuous_usage_stats: every chunk carries the usage so far, chat and text; it needs include_usage", async () => {
  await withFakeEngineServer(async function* () {
    yield { type: 'started', promptTokens: 4 };
    for (const piece of ['ab', 'c', 'def']) yield delta(0, piece);
    yield { type: 'finished', choice: 0, reason: 'stop', completionTokens: 7, cachedTokens: 0 };
  }, async (s) => {
    const stream_options = { include_usage: true, continuous_usage_stats: true };
    for (const [path, body] of [['chat/completions', chat({ stream: true, stream_options })], ['completions', { model: TINY_MODEL_ID, prompt: 'hi', stream: true, stream_options }]] as const) {
      const events = sseEvents((await post(`${s.url}/v1/${path}`, body)).text) as any[];
      const withChoices = events.filter((e) => e.choices?.length > 0);
      // Each piece's tokens counted as they come (the fake engine gives a token a character); the finish adds the one that ended it.
      const counts = withChoices.map((e) => e.usage.completion_tokens);
      assert.ok(counts.includes(2) && counts.includes(3) && counts.includes(6), `${path}: ${JSON.stringify(counts)}`);
      assert.equal(counts, [...counts].sort((a, b) => a - b), `${path}: the counts only grow`);
      for (const e of withChoices) assert.equal([e.usage.prompt_tokens, e.usage.total_tokens], [4, 4 + e.usage.completion_tokens]);
      assert.equal(events.at(-2), { ...events.at(-2), choices: [], usage: { prompt_tokens: 4, completion_tokens: 7, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 } } });
    }
    // Without it, usage stays null in every chunk but the last, as OpenAI sends it.
    const plain = sseEvents((await post(`${s.url}/v1/chat/completions`, chat({ stream: true, stream_options: { include_usage: true } }))).text) as any[];
    assert.ok(plain.filter((e) => e.choices?.length > 0).every((e) => e.usage === null));
    const alone = assertEnvelope(await post(`${s.url}/v1/chat/completions`, chat({ stream: true, stream_options: { continuous_usage_stats: true } })), 400);
    assert.equal([alone.param, alone.message], ['stream_options.continuous_usage_stats', "'continuous_usage_stats' needs 'include_usage': true (it puts the usage in every chunk, where include_usage sends null)."]);
  });
});

test("the engine's prompt refusals name the chat request's messages", async () => {
  await withFakeEngineServer(async function* () {
    throw new EngineRequestError({ code: 'context_length_exceeded', param: 'prompt', message: "This model's maximum context length is 512 tokens." });
  }, async (s) => {
    const error = assertEnvelope(await post(`${s.url}/v1/chat/completions`, chat({ stream: true })), 400);
    assert.equal([error.param, error.code], ['messages', 'context_length_exceeded']);
  });
});

test('a client that leaves mid-stream cancels its generation', async () => {
  await withFakeEngineServer(async function* (_request, signal) {
    yield { type: 'started', promptTokens: 2 };
    yield delta(0, 'first');
    // The engine waits for the client: only leaving ends this request.
    await untilAborted(signal);
  }, async (s) => {
    const controller = new AbortController();
    const response = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chat({ stream: true })), signal: controller.signal });
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('first')) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await s.engine.cancelled;
  });
});

test('text completions: the echo comes in front of each choice\'s first piece, and a batch\'s choices are numbered prompt by prompt', async () => {
  await withFakeEngineServer(async function* (request) {
    const word = String(request.prompt);
    yield { type: 'started', promptTokens: 1 };
    for (let choice = 0; choice < (request.n ?? 1); choice++) yield delta(choice, ` ${word}${choice}`);
    for (let choice = 0; choice < (request.n ?? 1); choice++) yield { type: 'finished', choice, reason: 'length', completionTokens: 1, cachedTokens: 0 };
  }, async (s) => {
    const body = { model: TINY_MODEL_ID, prompt: ['a', 'b'], n: 2, echo: true };
    const events = sseEvents((await post(`${s.url}/v1/completions`, { ...body, stream: true })).text) as any[];
    const texts = events.filter((e) => e.choices?.[0]?.text).map((e) => [e.choices[0].index, e.choices[0].text]);
    assert.equal(texts.sort(), [[0, 'a a0'], [1, 'a a1'], [2, 'b b0'], [3, 'b b1']]);
    const whole = await post(`${s.url}/v1/completions`, body);
    assert.equal(whole.json.choices.map((c: any) => [c.index, c.text, c.finish_reason]), [[0, 'a a0', 'length'], [1, 'a a1', 'length'], [2, 'b b0', 'length'], [3, 'b b1', 'length']]);
    assert.equal(whole.json.usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6, prompt_tokens_details: { cached_tokens: 0 } });
  });
});

test('text completions: when one prompt of a batch fails, the others are cancelled and the stream ends with the error', async () => {
  await withFakeEngineServer(async function* (request, signal) {
    yield { type: 'started', promptTokens: 1 };
    yield delta(0, String(request.prompt));
    if (request.prompt === 'fails') throw new EngineRequestError({ code: 'internal_error', message: 'generation failed' });
    await untilAborted(signal);
  }, async (s) => {
    const events = sseEvents((await post(`${s.url}/v1/completions`, { model: TINY_MODEL_ID, prompt: ['waits', 'fails'], stream: true })).text) as any[];
    assert.equal(events.at(-2), { error: { message: 'generation failed', type: 'server_error', param: null, code: 'internal_error' } });
    assert.is(events.at(-1), '[DONE]');
    await s.engine.cancelled;
  });
});

test("/metrics shows the engine's counters as the engine gives them: preemptions, what they cost, steps", async () => {
  await withFakeEngineServer(async function* () {}, async (s) => {
    s.engine.statsGiven = { preemptions: 3, recomputedTokens: 1234, steps: 77 };
    const text = await (await fetch(`${s.url}/metrics`)).text();
    assert.match(text, /^lmforge_preemptions_total 3$/m);
    assert.match(text, /^lmforge_recomputed_tokens_total 1234$/m);
    assert.match(text, /^lmforge_engine_steps_total 77$/m);
  });
});

test.run();
