// POST /v1/responses against a scripted engine (test/helpers/fake-engine.ts): an engine failure
// part way through a stream is its last event, response.failed; part way through a whole
// response, a response that says it failed and keeps its output; the engine's refusals name the
// fields as a Responses request has them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineRequestError } from '../../runtime/engine/client/engine.js';
import { delta, withFakeEngineServer, type FakeScript } from '../helpers/fake-engine.js';
import { assertEnvelope } from '../helpers/api-errors.js';
import { post, TINY_MODEL_ID } from '../helpers/tiny-server.js';

const test = suite('responses on a scripted engine');

const request = (extra: object = {}) => ({ model: TINY_MODEL_ID, input: 'hi', ...extra });

const failsPartWay: FakeScript = async function* () {
  yield { type: 'started', promptTokens: 7 };
  yield delta(0, 'Hel');
  yield delta(0, 'lo');
  throw new EngineRequestError({ code: 'internal_error', message: 'decode failed: the device went away' });
};

/** A stream's events: each `event:` name and its parsed `data:`. */
function namedEvents(body: string): { name: string; data: any }[] {
  return body
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const match = /^event: (.*)\ndata: (.*)$/.exec(block);
      if (!match) throw new Error(`not a named event: ${block}`);
      return { name: match[1]!, data: JSON.parse(match[2]!) };
    });
}

test('an engine failure mid-stream: the text so far, its item closed incomplete, then response.failed', async () => {
  await withFakeEngineServer(failsPartWay, async (s) => {
    const response = await post(`${s.url}/v1/responses`, request({ stream: true }));
    assert.is(response.status, 200);
    const events = namedEvents(response.text);
    assert.equal(events.map((event) => event.name), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.failed',
    ]);
    assert.equal(events.map((event) => event.data.sequence_number), events.map((_, i) => i));
    const failed = events.at(-1)!.data.response;
    assert.is(failed.status, 'failed');
    assert.equal(failed.error, { code: 'server_error', message: 'decode failed: the device went away' });
    assert.is(failed.output[0].status, 'incomplete');
    assert.is(failed.output[0].content[0].text, 'Hello');
    assert.equal([failed.usage.input_tokens, failed.usage.output_tokens], [7, 5]);
  });
});

test('an engine failure part way through a whole response keeps the output in a response that failed', async () => {
  await withFakeEngineServer(failsPartWay, async (s) => {
    const response = await post(`${s.url}/v1/responses`, request());
    assert.is(response.status, 200, response.text);
    assert.is(response.json.status, 'failed');
    assert.is(response.json.error.code, 'server_error');
    assert.is(response.json.output[0].content[0].text, 'Hello');
    assert.is(response.json.usage.output_tokens, 5);
  });
});

test("the engine's refusals before the start are HTTP errors naming input and max_output_tokens", async () => {
  await withFakeEngineServer(async function* (generate) {
    if (generate.maxTokens === 3) throw new EngineRequestError({ code: 'context_length_exceeded', param: 'max_tokens', message: 'too many tokens asked for' });
    throw new EngineRequestError({ code: 'context_length_exceeded', param: 'prompt', message: "This model's maximum context length is 512 tokens." });
  }, async (s) => {
    const prompt = assertEnvelope(await post(`${s.url}/v1/responses`, request({ stream: true })), 400);
    assert.equal([prompt.param, prompt.code], ['input', 'context_length_exceeded']);
    const limit = assertEnvelope(await post(`${s.url}/v1/responses`, request({ max_output_tokens: 3 })), 400);
    assert.equal([limit.param, limit.code], ['max_output_tokens', 'context_length_exceeded']);
  });
});

test.run();
