// Tracing on, clients that disconnect mid-request, and 64 concurrent streaming clients.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';
import { TraceBuffer } from '../../runtime/telemetry/trace-buffer.js';

const request = (extra: object = {}) => ({ model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Count to ten.' }], max_tokens: 6, ignore_eos: true, ...extra });

async function waitFor(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const tracing = suite<{ s: TinyServer }>('tracing');
tracing.before(async (context) => {
  context.s = await startTinyServer({ server: { tracing: true }, engine: { tracing: true } });
});
tracing.after(async (context) => {
  await context.s.close();
});

tracing('records each request\'s events in Chrome trace format, filterable by request id', async ({ s }) => {
  const first = await post(`${s.url}/v1/chat/completions`, request());
  const second = await post(`${s.url}/v1/chat/completions`, request({ max_tokens: 2 }));
  assert.is(first.status, 200);
  const all = (await (await fetch(`${s.url}/debug/trace`)).json()) as { traceEvents: { name: string; ph: string; ts: number; dur?: number; tid: number; args: any }[] };
  assert.ok(all.traceEvents.length > 10);
  const one = (await (await fetch(`${s.url}/debug/trace?request_id=${first.json.id}`)).json()) as typeof all;
  const names = one.traceEvents.map((event) => event.name);
  for (const name of ['thread_name', 'received', 'tokenized', 'queued', 'prefill chunk', 'decode step', 'first token', 'finished']) {
    assert.ok(names.includes(name), `${name} recorded (got ${[...new Set(names)].join(', ')})`);
  }
  assert.is(names.filter((name) => name === 'decode step').length, 5, 'one decode step per token after the first');
  assert.ok(new Set(one.traceEvents.map((e) => e.tid)).size === 1, 'one request is one row');
  assert.ok(!one.traceEvents.some((event) => event.args?.name === second.json.id), 'the filter keeps out other requests');
  for (const event of one.traceEvents) if (event.ph === 'X') assert.ok(event.dur! >= 0 && event.ts > 1e15, 'microsecond epoch timestamps');
  // A repeated or misspelt filter returned the whole trace.
  for (const query of [`request_id=${first.json.id}&request_id=${second.json.id}`, `request_id[]=${first.json.id}`, `id=${first.json.id}`, 'request_id=']) {
    const refused = await fetch(`${s.url}/debug/trace?${query}`);
    assert.is(refused.status, 400, query);
    assert.is(((await refused.json()) as any).error.type, 'invalid_request_error');
  }
});

tracing('the ring keeps a row only for requests with events in it (each request held one for the life of the process)', () => {
  const buffer = new TraceBuffer(20);
  for (let i = 0; i < 100; i++) buffer.instant(`chatcmpl-${i}`, 'received', {});
  assert.is(buffer.toJSON().traceEvents.length, 20);
  assert.is(buffer.requests, 10, 'two events each (its row name and its event): the last ten');
  assert.is(buffer.toJSON('chatcmpl-99').traceEvents.length, 2);
  assert.is(buffer.toJSON('chatcmpl-0').traceEvents.length, 0);
});

tracing.run();

const disconnect = suite<{ s: TinyServer }>('disconnect');
disconnect.before(async (context) => {
  context.s = await startTinyServer({ engine: { overrides: { context_window_size: 512, max_num_sequence: 1 } } });
});
disconnect.after(async (context) => {
  await context.s.close();
});

disconnect('a client that disconnects mid-stream frees its slot: the next request is served at once', async ({ s }) => {
  const controller = new AbortController();
  const response = await fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request({ max_tokens: 400, stream: true })),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  let received = '';
  while ((received.match(/data: /g) ?? []).length < 4) received += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  await waitFor(async () => (await s.engine.stats()).running === 0, 'the cancelled stream to be released');
  const stats = await s.engine.stats();
  assert.is(stats.kvCellsUsed, 0);
  assert.is(stats.freeSlots, 1);
  // With one sequence slot, this could only run now if the slot came back.
  const started = Date.now();
  const next = await post(`${s.url}/v1/chat/completions`, request({ max_tokens: 3 }));
  assert.is(next.status, 200);
  assert.ok(Date.now() - started < 5000);
});

disconnect('a client that disconnects from a non-streamed request cancels it too', async ({ s }) => {
  const controller = new AbortController();
  const pending = fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request({ max_tokens: 400 })),
    signal: controller.signal,
  }).catch((error: Error) => error);
  await waitFor(async () => (await s.engine.stats()).running === 1, 'the request to start');
  controller.abort();
  assert.instance(await pending, Error);
  await waitFor(async () => (await s.engine.stats()).running === 0, 'the cancelled request to be released');
  assert.is((await s.engine.stats()).kvCellsUsed, 0);
});

disconnect.run();

const load = suite<{ s: TinyServer }>('load');
load.before(async (context) => {
  context.s = await startTinyServer();
});
load.after(async (context) => {
  await context.s.close();
});

async function streamOnce(s: TinyServer, maxTokens: number): Promise<{ content: string; chunks: number; usage: any; done: boolean }> {
  const response = await fetch(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request({ max_tokens: maxTokens, stream: true, stream_options: { include_usage: true } })),
  });
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type')!, /text\/event-stream/);
  const text = await response.text();
  const events = text.split('\n\n').filter(Boolean);
  assert.ok(events.every((event) => event.startsWith('data: ')), 'every event is a data: line');
  const done = events.at(-1) === 'data: [DONE]';
  const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)));
  let content = '';
  for (const chunk of chunks) for (const choice of chunk.choices) content += choice.delta?.content ?? '';
  return { content, chunks: chunks.length, usage: chunks.at(-1)?.usage, done };
}

load('64 concurrent streaming clients all complete with well-formed streams and right usage; memory returns to idle', async ({ s }) => {
  await streamOnce(s, 4); // warm up
  globalThis.gc?.();
  const idleHeap = process.memoryUsage().heapUsed;
  const lengths = Array.from({ length: 64 }, (_, i) => 4 + (i % 9));
  const results = await Promise.all(lengths.map((n) => streamOnce(s, n)));
  results.forEach((result, i) => {
    assert.ok(result.done, `stream ${i} ends with [DONE]`);
    assert.is(result.usage.completion_tokens, lengths[i]);
    assert.is(result.usage.total_tokens, result.usage.prompt_tokens + lengths[i]!);
  });
  const stats = await s.engine.stats();
  assert.equal([stats.running, stats.waiting, stats.kvCellsUsed, stats.freeSlots], [0, 0, 0, 4]);
  globalThis.gc?.();
  const after = process.memoryUsage().heapUsed;
  assert.ok(after - idleHeap < 16 * 2 ** 20, `heap back near idle (idle ${idleHeap}, after ${after})`);
});

load.run();
