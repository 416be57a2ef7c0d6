// Reusing a cached prefix through llama_memory_seq_cp on a sliding-window model, against a
// sequence that computes the whole prompt itself: exactly the lengths that
// engine/worker/sliding-window.ts calls reusable give the same logits. Real llama.cpp, tiny models.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Batch } from '../../runtime/backend/batch.js';
import { DecodeError, LlamaContext, type ContextOptions } from '../../runtime/backend/context.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { reusablePrefixLength } from '../../runtime/engine/worker/sliding-window.js';
import { TINY_SLIDING_WINDOW, tinyGemma3SwaPath, tinyModelPath } from '../../fixtures/paths.js';

const test = suite('sliding-window prefix reuse');
const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
const cpu = listDevices(api).filter((device) => device.kind === 'cpu').slice(0, 1);
const gemma = await LlamaModel.create(api, { path: tinyGemma3SwaPath, devices: cpu });
const llama = await LlamaModel.create(api, { path: tinyModelPath, devices: cpu });

const W = TINY_SLIDING_WINDOW;
const HOLDER = 0;
const SHARER = 1;
// 3 sequences, window 32, ubatch 128: an SWA cache of 256 cells (pad(32 × 3 + 128, 256)), so a
// 400-token holder has lost its oldest positions; swa_full off, or nothing would be lost.
// One thread: on a busy two-core machine a second one spins and slows decoding a hundredfold.
const shape: ContextOptions = { contextSize: 1024, batchSize: 128, sequences: 3, threads: 1, fullSlidingWindowCache: false };
const HELD = 400;
const prompt = Array.from({ length: 450 }, (_, i) => (i * 7919 + 13) % 50000);
/** Logits the same as a fresh computation, up to float noise from different batch splits (seen: 3e-3; logits' spread ~1). */
const TOLERANCE = 1e-2;
/** Logits that really differ (seen: 0.27 one short of the edge, 5 and more far below it). */
const DIFFERENT = 5e-2;

/**
 * Decodes prompt[from, to) into `sequence` in chunks of `chunk` tokens and returns copies of
 * the logits at positions `from` and `to - 1` (a chunk ends at each, as one output per
 * sequence per decode is all a context allows).
 */
async function decode(context: LlamaContext, sequence: number, from: number, to: number, chunk: number): Promise<{ first: Float32Array; last: Float32Array }> {
  const batch = new Batch(context.batchSize);
  let first = new Float32Array(0);
  let last = new Float32Array(0);
  try {
    for (let start = from; start < to; ) {
      const end = start === from ? from + 1 : Math.min(to, start + chunk);
      batch.clear();
      for (let position = start; position < end; position++) batch.add(prompt[position]!, position, sequence, position === end - 1);
      await context.decode(batch);
      const row = context.logits(0, 1).slice();
      if (start === from) first = row;
      if (end === to) last = row;
      start = end;
    }
  } finally {
    batch.dispose();
  }
  return { first, last };
}

function maxAbsDifference(a: Float32Array, b: Float32Array): number {
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs(a[i]! - b[i]!));
  return most;
}

interface Reuse {
  holderMin: number;
  /** SWA cells the sharer got: its smallest position after the copy (-1: none). */
  sharerMin: number;
  /** Max |difference| from a fresh computation, at the first decoded position and at the last. */
  firstDiff: number;
  lastDiff: number;
}

/** Holder computes prompt[0, held); the sharer copies [0, m) from it and computes [m, end). */
async function reuse(model: LlamaModel, options: ContextOptions, m: number, held = HELD): Promise<Reuse> {
  const context = LlamaContext.create(model, options);
  try {
    // The reference: one sequence computing the whole prompt, its chunks split at m as the sharer's are.
    await decode(context, HOLDER, 0, m, 128);
    const reference = await decode(context, HOLDER, m, prompt.length, 32);
    context.clear();
    await decode(context, HOLDER, 0, held, 128);
    const holderMin = context.minPosition(HOLDER);
    context.copy(HOLDER, SHARER, 0, m);
    const sharerMin = context.minPosition(SHARER);
    const shared = await decode(context, SHARER, m, prompt.length, 32);
    return { holderMin, sharerMin, firstDiff: maxAbsDifference(shared.first, reference.first), lastDiff: maxAbsDifference(shared.last, reference.last) };
  } finally {
    await context.dispose();
  }
}

test('the tiny gemma3 model has a sliding window; the tiny llama model has none', () => {
  assert.is(gemma.slidingWindow, W);
  assert.is(llama.slidingWindow, 0);
});

// 0 … 127 and 128 … 255 fill the 256 cells; 256 … 383 then take cells 0 … 127 (out of the
// holder's window), purging positions 0 … 127, and 384 … 399 take those of 128 … 143.
const holderMin = 144;
/** The shortest reusable length for that holder: position m - W + 1 must still be there. */
const edge = holderMin + W - 1;

test('a holder that outgrew the SWA cache has lost its oldest positions', async () => {
  const context = LlamaContext.create(gemma, shape);
  await decode(context, HOLDER, 0, HELD, 128);
  assert.equal([context.minPosition(HOLDER), context.maxPosition(HOLDER)], [holderMin, HELD - 1]);
  await context.dispose();
});

test('lengths the rule calls reusable give the logits of a fresh computation', async () => {
  for (const m of [edge, edge + 1, 300]) {
    const result = await reuse(gemma, shape, m);
    assert.is(result.holderMin, holderMin);
    assert.is(reusablePrefixLength(m, result.holderMin, W), m, `m = ${m}`);
    assert.ok(result.firstDiff < TOLERANCE && result.lastDiff < TOLERANCE, `m = ${m}: ${JSON.stringify(result)}`);
  }
});

test('lengths the rule refuses lack cells the first new token attends to, and their logits differ', async () => {
  // Below the window, at the holder's first position (the sharer gets no SWA cell at all), and
  // one short of the edge (the first new token misses position holderMin - 1).
  for (const m of [20, holderMin, edge - 1]) {
    const result = await reuse(gemma, shape, m);
    assert.is(reusablePrefixLength(m, result.holderMin, W), 0, `m = ${m}`);
    assert.ok(result.sharerMin === -1 || result.sharerMin > Math.max(0, m - W + 1), `m = ${m}: cells gone`);
    assert.ok(result.firstDiff > DIFFERENT, `m = ${m}: ${JSON.stringify(result)}`);
  }
});

test('below the window a holder that kept position 0 is reusable', async () => {
  const result = await reuse(gemma, shape, 20, 200);
  assert.is(result.holderMin, 0);
  assert.is(reusablePrefixLength(20, result.holderMin, W), 20);
  assert.ok(result.firstDiff < TOLERANCE && result.lastDiff < TOLERANCE, JSON.stringify(result));
});

test('with swa_full the holder keeps every position, so any length is reusable', async () => {
  for (const m of [20, edge - 1]) {
    const result = await reuse(gemma, { ...shape, fullSlidingWindowCache: true }, m);
    assert.is(result.holderMin, 0);
    assert.is(reusablePrefixLength(m, result.holderMin, W), m);
    assert.ok(result.firstDiff < TOLERANCE && result.lastDiff < TOLERANCE, `m = ${m}: ${JSON.stringify(result)}`);
  }
});

test('a model without a sliding window reuses any length', async () => {
  for (const m of [20, edge - 1, 300]) {
    const result = await reuse(llama, shape, m);
    assert.is(result.holderMin, 0);
    assert.is(reusablePrefixLength(m, result.holderMin, 0), m);
    assert.ok(result.firstDiff < TOLERANCE && result.lastDiff < TOLERANCE, `m = ${m}: ${JSON.stringify(result)}`);
  }
});

test('shared cells are never reclaimed: a long copy can leave a small SWA cache no free cell', async () => {
  // The holder fills all 256 SWA cells with 144 … 399; sharing [0, 399) pins 255 of them and
  // the last one is inside the holder's window, so the sharer's next token has nowhere to go.
  const error = await reuse(gemma, shape, HELD - 1).then(() => undefined, (caught: unknown) => caught);
  assert.instance(error, DecodeError);
  assert.is((error as DecodeError).code, 1);
});

test.run();
