// A server whose drain time runs out tells each request still running why it ends: a stream gets
// an SSE error event (503 server_shutting_down) and [DONE], a queued whole request a 503, as an
// engine failure ends them, and so does one whose body is still arriving, rather than a
// connection cut with no answer.
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('drain time over');

test.before(async (context) => {
  // One sequence: the second request waits in the queue while the first streams.
  context.s = await startTinyServer({ engine: { overrides: { context_window_size: 512, max_num_sequence: 1 } } });
});
test.after(async (context) => {
  await context.s.engine.dispose();
});

test('running and queued requests end with 503 server_shutting_down, the stream with an error event and [DONE]', async ({ s }) => {
  const body = { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], max_tokens: 400, ignore_eos: true };
  const streamed = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  const reader = streamed.body!.getReader();
  let text = new TextDecoder().decode((await reader.read()).value);
  const queued = post(`${s.url}/v1/chat/completions`, body);
  // A body still arriving: the engine never saw this one, the server answers it itself.
  const uploading = connect(Number(new URL(s.url).port), '127.0.0.1');
  let uploadAnswer = '';
  uploading.on('data', (data) => (uploadAnswer += data));
  const uploadEnded = new Promise((resolve) => uploading.on('close', resolve));
  uploading.write('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"model": ');
  await new Promise((resolve) => setTimeout(resolve, 50)); // the queued request reaches the engine
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (line: string) => warnings.push(line);
  try {
    await s.server.drain(0);
  } finally {
    console.warn = warn;
  }
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
  const events = text.split('\n\n').filter((event) => event.startsWith('data: ')).map((event) => event.slice('data: '.length));
  assert.is(events.at(-1), '[DONE]', 'the stream ends as streams end');
  const error = JSON.parse(events.at(-2)!) as { error: { code: string; message: string } };
  assert.is(error.error.code, 'server_shutting_down');
  // With no drain time, both say so (they spoke of "0 s to finish" and a drain time that ran out).
  assert.match(error.error.message, /^the server is shutting down without waiting for running requests: .*retry it$/);
  const whole = await queued;
  assert.is(whole.status, 503);
  assert.is(whole.json.error.code, 'server_shutting_down');
  await uploadEnded;
  assert.match(uploadAnswer, /^HTTP\/1\.1 503 /);
  assert.match(uploadAnswer, /"code":"server_shutting_down"/);
  assert.equal(warnings, ['lmforge: stopped with no drain time: 3 requests were ended with a 503 server_shutting_down']);
});

test.run();
