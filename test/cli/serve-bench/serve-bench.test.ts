// The benchmark client against a fake streaming server with known timings.
import { suite } from 'uvu';
import { rejects } from 'node:assert/strict';
import * as assert from 'uvu/assert';
import { makePrompts } from '../../../cli/serve-bench/prompts.js';
import { formatReport } from '../../../cli/serve-bench/format-report.js';
import { parseExtraBody, runBenchmark, summarize } from '../../../cli/serve-bench/run-benchmark.js';
import { streamChatCompletion, type RequestResult } from '../../../cli/serve-bench/stream-request.js';
import { poissonGaps } from '../../../cli/serve-bench/arrivals.js';
import { startFakeServer, type FakeServer } from '../../helpers/fake-openai-server.js';

const test = suite<{ server: FakeServer }>('serve bench');

test.before(async (context) => {
  context.server = await startFakeServer({ firstDelayMs: 0, gapMs: 0, chunks: 1 });
});
test.after(async (context) => {
  await context.server.close();
});
test.before.each((context) => {
  context.server.behaviour = { firstDelayMs: 40, gapMs: 10, chunks: 5 };
  context.server.arrivals.length = 0;
  context.server.keptAlive.length = 0;
  context.server.bodies.length = 0;
  context.server.maxInFlight = 0;
});

test('one request: TTFT covers the injected delay, ITL the gaps, usage gives the tokens', async ({ server }) => {
  server.behaviour.usageTokens = 9;
  const r = await streamChatCompletion({ url: server.url, model: 'm', prompt: 'hi', maxTokens: 5, temperature: 0, timeoutMs: 5000 });
  assert.ok(r.ok, r.error);
  assert.ok(r.ttftMs >= 40, `TTFT ${r.ttftMs} ms is shorter than the 40 ms delay`);
  assert.is(r.contentChunks, 5);
  assert.is(r.itlMs.length, 4);
  // Timers never fire early, but two chunks may share a network read: allow some slack on each gap.
  assert.ok(r.itlMs.reduce((a, b) => a + b, 0) >= 4 * 10 * 0.8, `ITL ${r.itlMs}`);
  assert.ok(r.latencyMs >= 40 + 4 * 10 * 0.8);
  assert.is(r.outputTokens, 9, 'usage, not the chunk count');
  assert.is(r.promptTokens, 7);
});

test('without a usage chunk the content chunks are counted', async ({ server }) => {
  server.behaviour.noUsage = true;
  const r = await streamChatCompletion({ url: server.url, model: 'm', prompt: 'hi', maxTokens: 5, temperature: 0, timeoutMs: 5000 });
  assert.ok(r.ok, r.error);
  assert.is(r.outputTokens, 5);
  assert.is(r.promptTokens, -1);
});

test('closed loop: every request completes, at most `concurrency` in flight, the body asks for what it should', async ({ server }) => {
  const report = await runBenchmark({ url: server.url, concurrency: 2, numPrompts: 6, inputLen: 12, outputLen: 5 });
  assert.is(report.completed, 6);
  assert.is(report.failed, 0);
  assert.is(server.bodies.length, 6);
  assert.is(server.maxInFlight, 2);
  assert.is(report.model, 'fake-model', 'the first id of /v1/models');
  const body = server.bodies[0]!;
  assert.is(body.model, 'fake-model');
  assert.is(body.stream, true);
  assert.equal(body.stream_options, { include_usage: true });
  assert.is(body.ignore_eos, true);
  assert.is(body.max_tokens, 5);
  assert.is(body.logprobs, undefined, 'no logprobs unless asked');
  const messages = body.messages as { role: string; content: string }[];
  assert.is(messages[0]!.content.split(' ').length, 12);
  assert.is(report.mean_output_tokens, 5);
  assert.ok(report.ttft_ms.p50 >= 40 && report.ttft_ms.p99 >= 40);
  // TPOT = (latency − TTFT)/(5 − 1): four 10 ms gaps plus the tail of the stream.
  assert.ok(report.tpot_ms.p50 >= 8 && report.tpot_ms.p50 < 50, `TPOT ${report.tpot_ms.p50}`);
  assert.ok(report.itl_ms.p50 >= 5 && report.itl_ms.p50 < 50, `ITL ${report.itl_ms.p50}`);
  // Three rounds of two requests, each ≥ 80 ms: throughput is at most 6 / 0.24 s.
  assert.ok(report.duration_s >= 0.24 * 0.9, `duration ${report.duration_s}`);
  assert.ok(Math.abs(report.output_throughput - (6 * 5) / report.duration_s) < 1e-9);
  assert.ok(Math.abs(report.request_throughput - 6 / report.duration_s) < 1e-9);
  assert.is(report.mean_prompt_tokens, 7);
});

test('--top-logprobs asks every request for logprobs and that many alternatives', async ({ server }) => {
  await runBenchmark({ url: server.url, numPrompts: 2, outputLen: 3, topLogprobs: 5 });
  for (const body of server.bodies) {
    assert.is(body.logprobs, true);
    assert.is(body.top_logprobs, 5);
  }
});

test('--extra-body adds its fields to every request; fields the benchmark sets are refused with their flag', async ({ server }) => {
  await runBenchmark({ url: server.url, numPrompts: 2, outputLen: 3, topLogprobs: 2, extraBody: parseExtraBody('{"top_p":0.9,"dry_multiplier":0.8,"stop":["x"]}') });
  assert.is(server.bodies.length, 2);
  for (const body of server.bodies) {
    assert.is(body.top_p, 0.9);
    assert.is(body.dry_multiplier, 0.8);
    assert.equal(body.stop, ['x']);
    assert.is(body.top_logprobs, 2);
    assert.is(body.max_tokens, 3);
  }
  await rejects(() => runBenchmark({ url: server.url, extraBody: { temperature: 1 } }), /--extra-body may not set temperature: the benchmark sets it; use --temperature/);
  await rejects(() => runBenchmark({ url: server.url, extraBody: { stream: false } }), /--extra-body may not set stream/);
  assert.throws(() => parseExtraBody('{"top_p":'), /--extra-body must be a JSON object/);
  assert.throws(() => parseExtraBody('[1]'), /--extra-body must be a JSON object/);
  assert.throws(() => parseExtraBody('0.9'), /--extra-body must be a JSON object/);
});

test('HTTP 500s and error events are failures, counted, and the run goes on', async ({ server }) => {
  server.behaviour.failWith500 = (i) => i % 3 === 0;
  server.behaviour.errorEventAt = (i) => i === 4;
  const report = await runBenchmark({ url: server.url, model: 'fake-model', concurrency: 3, numPrompts: 9, outputLen: 5 });
  assert.is(report.completed + report.failed, 9);
  assert.is(report.failed, 4); // requests 0, 3, 6 and the error event of request 4
  const http500 = report.errors.find((e) => e.message.startsWith('HTTP 500'));
  assert.is(http500?.count, 3);
  assert.ok(report.errors.some((e) => e.message.includes('decode failed')));
  assert.is(report.mean_output_tokens, 5, 'failures do not enter the figures');
});

test('a kept-alive connection closed before any answer: the request is sent again on a fresh connection, and counted', async ({ server }) => {
  server.behaviour = { firstDelayMs: 0, gapMs: 0, chunks: 2, closeUnanswered: (i) => i === 2 };
  const report = await runBenchmark({ url: server.url, model: 'fake-model', concurrency: 1, numPrompts: 4, outputLen: 2 });
  assert.is(report.completed, 4);
  assert.is(report.failed, 0);
  assert.is(report.retried, 1);
  assert.is(server.arrivals.length, 5, 'the closed one was sent twice');
  assert.ok(server.keptAlive[2], 'the closed connection had served a request before');
  assert.not.ok(server.keptAlive[3], 'the retry came on a new connection');
  assert.equal(server.bodies[3], server.bodies[2], 'the same request');
  assert.match(formatReport(report), /retried ×1: the server closed the connection before answering; sent again on a fresh one/);
});

test('closed twice: the request is a failure, counted, and the run goes on', async ({ server }) => {
  server.behaviour = { firstDelayMs: 0, gapMs: 0, chunks: 2, closeUnanswered: (i) => i === 1 || i === 2 };
  const report = await runBenchmark({ url: server.url, model: 'fake-model', concurrency: 1, numPrompts: 4, outputLen: 2 });
  assert.is(report.completed, 3);
  assert.is(report.failed, 1);
  assert.is(report.retried, 1);
  assert.match(report.errors[0]!.message, /UND_ERR_SOCKET|ECONNRESET/);
});

test('a server that is not there fails every request without throwing', async ({ server }) => {
  const url = server.url.replace(/:\d+$/, ':9');
  const report = await runBenchmark({ url, model: 'x', concurrency: 2, numPrompts: 3, timeoutMs: 2000 });
  assert.is(report.completed, 0);
  assert.is(report.failed, 3);
  assert.ok(Number.isNaN(report.ttft_ms.p50));
});

test('Poisson arrivals follow the seeded schedule', async ({ server }) => {
  server.behaviour = { firstDelayMs: 0, gapMs: 0, chunks: 1 };
  const rate = 40;
  const report = await runBenchmark({ url: server.url, model: 'm', requestRate: rate, numPrompts: 12, seed: 3, outputLen: 1 });
  assert.is(report.completed, 12);
  assert.is(report.mode, 'poisson');
  const gaps = poissonGaps(rate, 12, 3);
  const expectedSpan = gaps.slice(1).reduce((a, b) => a + b, 0) * 1000;
  const span = server.arrivals.at(-1)! - server.arrivals[0]!;
  assert.ok(Math.abs(span - expectedSpan) < 40, `arrivals span ${span.toFixed(1)} ms, schedule ${expectedSpan.toFixed(1)} ms`);
});

test('with a request rate, --concurrency caps the requests in flight', async ({ server }) => {
  const report = await runBenchmark({ url: server.url, model: 'm', requestRate: 1000, concurrency: 2, numPrompts: 6, outputLen: 5 });
  assert.is(report.completed, 6);
  assert.is(server.maxInFlight, 2);
});

test('bad options are refused with the flag named', async ({ server }) => {
  await rejects(() => runBenchmark({ url: server.url, concurrency: 0 }), /--concurrency/);
  await rejects(() => runBenchmark({ url: server.url, numPrompts: 1.5 }), /--num-prompts/);
  await rejects(() => runBenchmark({ url: server.url, requestRate: -1 }), /--request-rate/);
  await rejects(() => runBenchmark({ url: 'localhost:8000' }), /--url/);
  await rejects(() => runBenchmark({ url: server.url, topLogprobs: 21 }), /--top-logprobs/);
});

test('summary percentiles on known per-request figures', () => {
  const result = (ttftMs: number, latencyMs: number, outputTokens: number, itlMs: number[]): RequestResult => ({
    ok: true, ttftMs, latencyMs, itlMs, outputTokens, promptTokens: 10, cachedTokens: -1, text: '', contentTimes: [], contentChunks: outputTokens, startedAt: 0, endedAt: latencyMs,
  });
  const results = Array.from({ length: 10 }, (_, i) => result(10 * (i + 1), 10 * (i + 1) + 90, 10, [10]));
  results.push({ ...result(1, 1, 0, []), ok: false, error: 'HTTP 500' });
  const report = summarize(results, 2, { url: 'u', model: 'm', mode: 'closed-loop', concurrency: 1, request_rate: null, num_prompts: 11, input_len: 1, output_len: 10 });
  assert.is(report.completed, 10);
  assert.is(report.failed, 1);
  assert.is(report.ttft_ms.p50, 55);
  assert.ok(Math.abs(report.ttft_ms.p90 - 91) < 1e-9);
  assert.is(report.tpot_ms.p50, 10); // (latency − TTFT) / (10 − 1) = 90 / 9
  assert.is(report.itl_ms.p99, 10);
  assert.is(report.output_throughput, 50); // 100 tokens in 2 s
  assert.is(report.total_token_throughput, 100);
  assert.is(report.request_throughput, 5);
});

test('prompts have the asked number of words and depend only on the seed', () => {
  const a = makePrompts(3, 50, 1);
  assert.equal(a, makePrompts(3, 50, 1));
  assert.ok(a.every((p) => p.split(' ').length === 50));
  assert.is(new Set(a).size, 3, 'each request its own prompt');
  assert.not.equal(a, makePrompts(3, 50, 2));
});

test.run();
