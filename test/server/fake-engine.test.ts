// The server against a scripted engine (test/helpers/fake-engine.ts): what a real model does
// not do on cue. An engine failure part way through a stream and a whole response, chunks that
// are exactly the engine's deltas, refusals named as the endpoint names its prompt, and a client
// that leaves.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineRequestError } from '../../runtime/engine/engine.js';
import { delta, sseEvents, startFakeEngineServer, type FakeScript } from '../helpers/fake-engine.js';
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
  const s = await startFakeEngineServer(failsPartWay);
  try {
    const response = await post(`${s.url}/v1/chat/completions`, chat({ stream: true }));
    assert.is(response.status, 200);
    const events = sseEvents(response.text) as any[];
    assert.equal(
      events.slice(0, 3).map((event) => event.choices[0].delta),
      [{ role: 'assistant', content: '' }, { content: 'Hel' }, { content: 'lo' }],
    );
    assert.equal(events[3], { error: { message: 'decode failed: the device went away', type: 'server_error', param: null, code: 'internal_error' } });
    assert.is(events[4], '[DONE]');
    assert.is(events.length, 5);
  } finally {
    await s.close();
  }
});

test('an engine failure part way through a whole response keeps the output, finish_reason "error"', async () => {
  const s = await startFakeEngineServer(failsPartWay);
  try {
    const response = await post(`${s.url}/v1/chat/completions`, chat());
    assert.is(response.status, 200, response.text);
    assert.equal(response.json.choices, [{ index: 0, message: { role: 'assistant', content: 'Hello' }, logprobs: null, finish_reason: 'error' }]);
    assert.equal(response.json.usage, { prompt_tokens: 7, completion_tokens: 0, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0 } });
  } finally {
    await s.close();
  }
});

test('an engine failure before any output is an HTTP error, streamed or not', async () => {
  const s = await startFakeEngineServer(async function* () {
    yield { type: 'started', promptTokens: 3 };
    throw new EngineRequestError({ code: 'internal_error', message: 'generation failed' });
  });
  try {
    const whole = assertEnvelope(await post(`${s.url}/v1/chat/completions`, chat()), 500);
    assert.is(whole.code, 'internal_error');
  } finally {
    await s.close();
  }
});

test('each engine delta is one chunk, and the whole message is their concatenation', async () => {
  const pieces = ['Once', ' upon', '', ' a tïme', '.'];
  const s = await startFakeEngineServer(async function* (request) {
    yield { type: 'started', promptTokens: 4 };
    for (let choice = 0; choice < (request.n ?? 1); choice++) for (const piece of pieces) yield delta(choice, `${piece}${choice}`);
    for (let choice = 0; choice < (request.n ?? 1); choice++) yield { type: 'finished', choice, reason: 'stop', completionTokens: 5, cachedTokens: 2 };
  });
  try {
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
  } finally {
    await s.close();
  }
});

test("the engine's prompt refusals name the chat request's messages", async () => {
  const s = await startFakeEngineServer(async function* () {
    throw new EngineRequestError({ code: 'context_length_exceeded', param: 'prompt', message: "This model's maximum context length is 512 tokens." });
  });
  try {
    const error = assertEnvelope(await post(`${s.url}/v1/chat/completions`, chat({ stream: true })), 400);
    assert.equal([error.param, error.code], ['messages', 'context_length_exceeded']);
  } finally {
    await s.close();
  }
});

test('a client that leaves mid-stream cancels its generation', async () => {
  let cancelled!: () => void;
  const sawCancel = new Promise<void>((resolve) => (cancelled = resolve));
  const s = await startFakeEngineServer(async function* (_request, signal) {
    yield { type: 'started', promptTokens: 2 };
    yield delta(0, 'first');
    // The engine waits for the client: only leaving ends this request.
    await new Promise<void>((resolve) => signal!.addEventListener('abort', () => resolve(), { once: true }));
    cancelled();
  });
  try {
    const controller = new AbortController();
    const response = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chat({ stream: true })), signal: controller.signal });
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('first')) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await sawCancel;
  } finally {
    await s.close();
  }
});

test.run();
