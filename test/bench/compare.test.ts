// The pure parts of the lmforge / llama-server comparison (bench/compare-llama-server.sh): the
// interleaving order, ratios with their spread, and the cache-cold checks, the last through
// the real client against a fake server that reports reuse the way each server does.
import { rejects } from 'node:assert/strict';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkCold, checkDistinct, coldPrompts, NotColdError } from '../../bench/compare/cold.js';
import { interleavedOrder } from '../../bench/compare/interleave.js';
import { ratioSpread, spread } from '../../bench/compare/ratio-spread.js';
import { runRound } from '../../bench/compare/round.js';
import { makePrompts } from '../../cli/serve-bench/prompts.js';
import { startFakeServer, type FakeServer } from '../helpers/fake-openai-server.js';

const test = suite<{ server: FakeServer }>('compare llama-server');

test.before(async (context) => {
  context.server = await startFakeServer({ firstDelayMs: 0, gapMs: 0, chunks: 3 });
});
test.after(async (context) => {
  await context.server.close();
});
test.before.each((context) => {
  context.server.behaviour = { firstDelayMs: 0, gapMs: 0, chunks: 3 };
  context.server.bodies.length = 0;
  context.server.arrivals.length = 0;
});

test('interleaving: A B, B A, A B, … so each side goes first in half the repetitions', () => {
  assert.equal(interleavedOrder('A', 'B', 5), [['A', 'B'], ['B', 'A'], ['A', 'B'], ['B', 'A'], ['A', 'B']]);
  const flat = interleavedOrder(1, 2, 4).flat();
  assert.equal(flat, [1, 2, 2, 1, 1, 2, 2, 1]);
  assert.throws(() => interleavedOrder('A', 'B', 0), /repetitions/);
});

test('ratios are taken per repetition, then summarised by median and range', () => {
  // Medians of each side would give 20/10 = 2; the paired ratios are 1, 3, 2.
  const r = ratioSpread([10, 30, 20], [10, 10, 10]);
  assert.equal(r, { median: 2, min: 1, max: 3 });
  assert.equal(ratioSpread([8, 8], [4, 16]), { median: 1.25, min: 0.5, max: 2 });
  assert.equal(spread([5]), { median: 5, min: 5, max: 5 });
  assert.throws(() => ratioSpread([1, 2], [1]), /2 runs against 1/);
});

test('cold prompts: distinct within and across rounds, reproducible from their seed', () => {
  const a = coldPrompts(4, 10, 'run x lmforge c1 r0', 1);
  const b = coldPrompts(4, 10, 'run x llama-server c1 r0', 1);
  assert.equal(a, coldPrompts(4, 10, 'run x lmforge c1 r0', 1));
  assert.ok(a[0]!.startsWith('[run x lmforge c1 r0 #0] '));
  assert.is(a[0]!.split(' ').length, 6 + 10);
  checkDistinct([...a, ...b]);
  assert.throws(() => checkDistinct([...a, a[2]!]), (e: unknown) => e instanceof NotColdError && /sent twice/.test((e as Error).message));
});

test('llama-server: every request must report cache_n = 0; cache_prompt goes in its body', async ({ server }) => {
  server.behaviour.cacheN = () => 0;
  const prompts = coldPrompts(4, 5, 't', 2);
  const round = await runRound({ url: server.url, model: 'm', prompts, concurrency: 2, outputLen: 3, extraBody: { cache_prompt: false } });
  assert.is(round.results.length, 4);
  assert.ok(server.bodies.every((body) => body.cache_prompt === false));
  assert.is(round.promptPerSecond, 100);
  checkCold('llama-server', round.results);

  server.arrivals.length = 0; // the fake numbers requests from here
  server.behaviour.cacheN = (i) => (i === 2 ? 31 : 0);
  const warm = await runRound({ url: server.url, model: 'm', prompts, concurrency: 1, outputLen: 3 });
  assert.throws(() => checkCold('llama-server', warm.results), /took 31 prompt tokens of request 2 .*timings\.cache_n/);

  delete server.behaviour.cacheN;
  const silent = await runRound({ url: server.url, model: 'm', prompts, concurrency: 1, outputLen: 3 });
  assert.throws(() => checkCold('llama-server', silent.results), /sent no timings\.cache_n/);
});

test('lmforge: every request must report cached_tokens = 0', async ({ server }) => {
  const prompts = coldPrompts(3, 5, 't', 3);
  server.behaviour.cachedTokens = () => 0;
  checkCold('lmforge', (await runRound({ url: server.url, model: 'm', prompts, concurrency: 3, outputLen: 3 })).results);
  assert.ok(server.bodies.every((body) => !('cache_prompt' in body)), 'lmforge gets no llama-server fields');

  server.arrivals.length = 0;
  server.behaviour.cachedTokens = (i) => (i === 0 ? 16 : 0);
  const warm = await runRound({ url: server.url, model: 'm', prompts, concurrency: 1, outputLen: 3 });
  assert.throws(() => checkCold('lmforge', warm.results), /took 16 prompt tokens of request 0/);

  delete server.behaviour.cachedTokens;
  const silent = await runRound({ url: server.url, model: 'm', prompts, concurrency: 1, outputLen: 3 });
  assert.throws(() => checkCold('lmforge', silent.results), /sent no usage\.prompt_tokens_details\.cached_tokens/);
});

test('a round fails loudly on a short output or a failed request', async ({ server }) => {
  const prompts = coldPrompts(2, 5, 't', 4);
  await runRound({ url: server.url, model: 'm', prompts, concurrency: 1, outputLen: 4 }).then(
    () => assert.unreachable('a 3-token answer to max_tokens 4 passed'),
    (e: Error) => assert.match(e.message, /generated 3 tokens where 4 were asked for/),
  );
  server.arrivals.length = 0;
  server.behaviour.failWith500 = (i) => i === 1;
  await runRound({ url: server.url, model: 'm', prompts, concurrency: 1, outputLen: 3 }).then(
    () => assert.unreachable('a failed request passed'),
    (e: Error) => assert.match(e.message, /HTTP 500/),
  );
});

test('compare-llama-server rounds: a closed connection is retried, one closed twice counted, not thrown', async ({ server }) => {
  const prompts = makePrompts(6, 4, 1);
  server.behaviour = { firstDelayMs: 0, gapMs: 0, chunks: 2, closeUnanswered: (i) => i === 3 };
  const once = await runRound({ url: server.url, model: 'fake-model', prompts, concurrency: 2, outputLen: 2 });
  assert.equal([once.retried, once.failed, once.results.length], [1, 0, 6]);
  server.arrivals.length = 0;
  server.behaviour = { firstDelayMs: 0, gapMs: 0, chunks: 2, closeUnanswered: (i) => i === 0 || i === 1 };
  const twice = await runRound({ url: server.url, model: 'fake-model', prompts, concurrency: 1, outputLen: 2 });
  assert.equal([twice.retried, twice.failed, twice.results.length], [1, 1, 5]);
  server.behaviour.closeUnanswered = undefined;
  server.behaviour.failWith500 = () => true;
  await rejects(() => runRound({ url: server.url, model: 'fake-model', prompts, concurrency: 1, outputLen: 2 }), /failed: HTTP 500/, 'other failures still fail the round');
});

test.run();
