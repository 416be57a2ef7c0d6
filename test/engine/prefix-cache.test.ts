// The prefix cache through the real llama.cpp backend (tiny random-weight models with real
// vocabularies): what is served from cache, and that it changes no output, whatever the
// request asks for (greedy, seeded, n, logprobs, stop strings, grammars), under concurrency,
// eviction, preemption and cancellation, and on a sliding-window model. In both KV layouts:
// cells shared in one pool, and a stream per sequence where a cached prefix is copied.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Engine } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../../runtime/engine/protocol.js';
import { KV_LAYOUTS, type KvLayout } from '../../runtime/engine/engine-config.js';
import { tinyGemma3SwaPath, TINY_SLIDING_WINDOW } from '../../fixtures/paths.js';
import { runToEnd, type ChoiceResult } from '../helpers/engine-run.js';
import { gpt2WordTokens } from '../helpers/test-random.js';
import { tinyEngine } from '../helpers/tiny-engine.js';

interface Engines {
  cached: Engine;
  uncached: Engine;
}


/** What a choice produced: tokens, text, finish reason and the tokens its logprobs describe. */
function outputOf(choice: ChoiceResult) {
  return { tokens: choice.tokens, text: choice.text, reason: choice.reason, logprobTokens: choice.logprobs.map((entry) => entry.token) };
}

/**
 * Logprobs of two runs agree within float rounding: a prompt computed in other batches than
 * before (the cached part, then the rest) moves logits by ~2e-3 here, never enough to change a token.
 */
function assertSameLogprobs(a: ChoiceResult[], b: ChoiceResult[]): void {
  a.forEach((choice, i) => choice.logprobs.forEach((entry, k) => {
    const other = b[i]!.logprobs[k]!;
    assert.is(entry.token, other.token);
    assert.ok(Math.abs(entry.logprob - other.logprob) < 0.01, `choice ${i} token ${k}: ${entry.logprob} against ${other.logprob}`);
    assert.equal(entry.top.map((top) => top.token), other.top.map((top) => top.token));
  }));
}

async function outputs(engine: Engine, request: GenerateRequest) {
  const result = await runToEnd(engine, request);
  return { cached: result.choices[0]!.cachedTokens, raw: result.choices, choices: result.choices.map(outputOf) };
}

for (const kvLayout of KV_LAYOUTS) layoutSuite(kvLayout);
sharedPoolSuite();

function layoutSuite(kvLayout: KvLayout): void {
  const test = suite<Engines>(`prefix cache, ${kvLayout} KV layout`);

  test.before(async (context) => {
    context.cached = await tinyEngine({ kvLayout, overrides: { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 4 } });
    context.uncached = await tinyEngine({ kvLayout, overrides: { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 0 } });
  });
  test.after(async ({ cached, uncached }) => {
    await cached.dispose();
    await uncached.dispose();
  });

  test('a prompt that extends an earlier one is served from cache up to where they differ', async ({ cached }) => {
    const history = gpt2WordTokens(1, 300);
    const first = await runToEnd(cached, { prompt: history, maxTokens: 8, ignoreEos: true, sampling: { temperature: 0 } });
    assert.is(first.choices[0]!.cachedTokens, 0, 'nothing was cached before');
    const turn = [...history, ...first.choices[0]!.tokens, ...gpt2WordTokens(2, 40)];
    const second = await runToEnd(cached, { prompt: turn, maxTokens: 4, ignoreEos: true, sampling: { temperature: 0 } });
    // The first request's cells: its prompt and the 7 generated tokens it fed back (the 8th was never computed).
    assert.is(second.choices[0]!.cachedTokens, 307);
    const branch = await runToEnd(cached, { prompt: [...history.slice(0, 150), ...gpt2WordTokens(3, 20)], maxTokens: 2, ignoreEos: true });
    assert.is(branch.choices[0]!.cachedTokens, 150);
    const stats = await cached.stats();
    assert.ok(stats.kvCellsCached > 0 && stats.cachedSequences > 0, JSON.stringify(stats));
    assert.is(stats.kvCellsUsed, 0, 'nothing runs: every cell left is only cached');
  });

  test('outputs are identical with and without the cache: greedy, seeded, n, logprobs, stop strings', async ({ cached, uncached }) => {
    const shared = gpt2WordTokens(10, 200);
    const requests: GenerateRequest[] = [
      { prompt: [...shared, ...gpt2WordTokens(11, 10)], maxTokens: 16, ignoreEos: true, sampling: { temperature: 0 } },
      { prompt: [...shared, ...gpt2WordTokens(12, 10)], maxTokens: 16, ignoreEos: true, seed: 7, sampling: { temperature: 1.1, topP: 0.9 } },
      { prompt: [...shared, ...gpt2WordTokens(13, 10)], maxTokens: 12, ignoreEos: true, seed: 8, n: 3, sampling: { temperature: 1 } },
      { prompt: [...shared, ...gpt2WordTokens(14, 10)], maxTokens: 12, ignoreEos: true, sampling: { temperature: 0, logprobs: true, topLogprobs: 3 } },
      { prompt: [...shared, ...gpt2WordTokens(15, 10)], maxTokens: 24, ignoreEos: true, stop: ['e', 'a'], seed: 9, sampling: { temperature: 0.8 } },
    ];
    for (const request of requests) {
      const reference = await outputs(uncached, request);
      const first = await outputs(cached, request);
      const again = await outputs(cached, request);
      assert.ok(again.cached > 200, `the repeat is served from cache (${again.cached})`);
      assert.equal(first.choices, reference.choices);
      assert.equal(again.choices, reference.choices);
      assertSameLogprobs(again.raw, reference.raw);
    }
  });

  test('a grammar constrains a cached prompt exactly as an uncached one', async ({ cached, uncached }) => {
    const grammar = await cached.compileGrammar({ kind: 'regex', pattern: '[a-z]{3,8}( [a-z]{2,6}){2,4}\\.' });
    const request: GenerateRequest = { prompt: gpt2WordTokens(20, 120), maxTokens: 64, seed: 3, grammar, sampling: { temperature: 1 } };
    const reference = await outputs(uncached, request);
    await outputs(cached, request);
    const again = await outputs(cached, request);
    assert.is(again.cached, 119);
    assert.equal(again.choices, reference.choices);
    assert.match(again.choices[0]!.text, /^[a-z]{3,8}( [a-z]{2,6}){2,4}\.$/);
  });

  test('concurrent requests with one system prompt compute it once and share it while it is computed', async ({ cached, uncached }) => {
    const system = gpt2WordTokens(30, 400);
    const requests = [31, 32, 33, 34].map((seed): GenerateRequest => ({ prompt: [...system, ...gpt2WordTokens(seed, 12)], maxTokens: 10, ignoreEos: true, sampling: { temperature: 0 } }));
    const together = await Promise.all(requests.map((request) => outputs(cached, request)));
    const served = together.map((result) => result.cached).sort((a, b) => a - b);
    assert.equal(served, [0, 400, 400, 400], 'the first computes the system prompt, the others take it');
    for (const [i, request] of requests.entries()) assert.equal(together[i]!.choices, (await outputs(uncached, request)).choices);
  });

  test('a sliding-window model reuses a prefix longer than its window with identical outputs', async () => {
    const cached = await tinyEngine({ kvLayout, modelPath: tinyGemma3SwaPath, overrides: { context_window_size: 512, prefix_cache_max_num_recycling_seqs: 2 } });
    const uncached = await tinyEngine({ kvLayout, modelPath: tinyGemma3SwaPath, overrides: { context_window_size: 512, prefix_cache_max_num_recycling_seqs: 0 } });
    try {
      const history = gpt2WordTokens(70, 5 * TINY_SLIDING_WINDOW);
      const request: GenerateRequest = { prompt: [...history, ...gpt2WordTokens(71, 9)], maxTokens: 20, ignoreEos: true, sampling: { temperature: 0, logprobs: true, topLogprobs: 2 } };
      await outputs(cached, { prompt: history, maxTokens: 2, ignoreEos: true });
      const hit = await outputs(cached, request);
      assert.ok(hit.cached > TINY_SLIDING_WINDOW, `served ${hit.cached} tokens, more than the window`);
      const reference = await outputs(uncached, request);
      assert.equal(hit.choices, reference.choices);
      assertSameLogprobs(hit.raw, reference.raw);
    } finally {
      await cached.dispose();
      await uncached.dispose();
    }
  });

  test.run();
}

/** A KV budget that sequences draw on together: eviction for cells, and preemption, exist only in the shared pool. */
function sharedPoolSuite(): void {
  const kvLayout: KvLayout = 'shared';
  const test = suite<Engines>('prefix cache, shared pool budget');

  test.before(async (context) => {
    context.uncached = await tinyEngine({ kvLayout, overrides: { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 0 } });
  });
  test.after(async ({ uncached }) => {
    await uncached.dispose();
  });

  test('a small KV budget: the least recently used prefixes are evicted first, without preempting anyone', async () => {
    const engine = await tinyEngine({ kvLayout, overrides: { context_window_size: 512, max_total_seq_length: 512, prefix_cache_max_num_recycling_seqs: 8 } });
    try {
      const prompts = [40, 41, 42, 43, 44].map((seed) => gpt2WordTokens(seed, 150));
      for (const prompt of prompts) await runToEnd(engine, { prompt, maxTokens: 2, ignoreEos: true });
      const stats = await engine.stats();
      assert.ok(stats.kvCellsCached <= 512, `${stats.kvCellsCached} cached cells within 512`);
      assert.is(stats.preemptions, 0);
      const newest = await runToEnd(engine, { prompt: [...prompts[4]!, 5, 6], maxTokens: 2, ignoreEos: true });
      assert.is(newest.choices[0]!.cachedTokens, 150, 'the newest is still cached (its prompt; the generated token differs)');
      const oldest = await runToEnd(engine, { prompt: [...prompts[0]!, 5, 6], maxTokens: 2, ignoreEos: true });
      assert.is(oldest.choices[0]!.cachedTokens, 0, 'the oldest was evicted');
    } finally {
      await engine.dispose();
    }
  });

  test('preemption and cancellation keep outputs identical and the cache consistent', async ({ uncached }) => {
    const engine = await tinyEngine({ kvLayout, overrides: { context_window_size: 256, max_total_seq_length: 256, prefix_cache_max_num_recycling_seqs: 4 } });
    try {
      const shared = gpt2WordTokens(50, 60);
      const requests = [51, 52, 53].map((seed): GenerateRequest => ({ prompt: [...shared, ...gpt2WordTokens(seed, 10)], maxTokens: 80, ignoreEos: true, seed, sampling: { temperature: 0.9 } }));
      const results = await Promise.all(requests.map((request) => outputs(engine, request)));
      assert.ok((await engine.stats()).preemptions > 0, 'the budget forced preemption');
      for (const [i, request] of requests.entries()) assert.equal(results[i]!.choices, (await outputs(uncached, request)).choices);

      const controller = new AbortController();
      const request: GenerateRequest = { prompt: gpt2WordTokens(60, 100), maxTokens: 150, ignoreEos: true, sampling: { temperature: 0 } };
      let seen = 0;
      try {
        for await (const event of engine.generate(request, controller.signal)) if (event.type === 'delta' && ++seen === 5) controller.abort();
      } catch {
        // an aborted generation may end either way
      }
      const after = await outputs(engine, { ...request, maxTokens: 20 });
      assert.ok(after.cached >= 99, `the cancelled request's prompt was kept (${after.cached})`);
      assert.equal(after.choices, (await outputs(uncached, { ...request, maxTokens: 20 })).choices);
      const stats = await engine.stats();
      assert.equal([stats.running, stats.kvCellsUsed], [0, 0]);
    } finally {
      await engine.dispose();
    }
  });

  test.run();
}
