// Steps run in one batch and split as the runner does on a CPU (the prompt tokens apart from
// the streams, and in one pool 64 streams or more in smaller batches): the same logits for every
// row asked, up to float noise from different batch shapes, and the same cache after it; a
// batch that fails takes the step's earlier ones with it. Real llama.cpp, the tiny model.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LlamaContext } from '../../runtime/backend/context.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { ModelRunner } from '../../runtime/engine/worker/model-runner.js';
import type { StepEntry } from '../../runtime/engine/worker/scheduler.js';
import { tinyModelPath } from '../../fixtures/paths.js';

const test = suite('model runner');
const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
const cpu = listDevices(api).filter((device) => device.kind === 'cpu').slice(0, 1);
const model = await LlamaModel.create(api, { path: tinyModelPath, devices: cpu });
/** Seen: up to 3e-3 between batch shapes; logits of different rows differ by far more than this. */
const TOLERANCE = 1e-2;

const token = (sequence: number, position: number) => (position * 7919 + sequence * 104_729 + 13) % 50_000;
const tokensOf = (sequence: number, length: number) => Int32Array.from({ length }, (_, position) => token(sequence, position));

/** A step entry for `count` tokens of `sequence` from `start`, the last `logits` of them (drafts included) wanting logits. */
function entry(sequence: number, start: number, count: number, logits: number, draft: number[] = []): StepEntry {
  return { sequence: { tokens: tokensOf(sequence, start + count), slot: sequence } as never, start, count, logits, promptRows: 0, draft };
}

/** Runs the same steps on a fresh context with the runner split on or off; returns every logit row asked, in entry order. */
async function runSteps(split: boolean, steps: StepEntry[][]): Promise<Float32Array[][]> {
  const context = LlamaContext.create(model, { contextSize: 1024, batchSize: 256, sequences: 4, threads: 1, outputs: 8 });
  const runner = new ModelRunner(context, { splitSteps: split });
  const out: Float32Array[][] = [];
  try {
    for (const entries of steps) {
      await runner.run(entries);
      out.push(entries.flatMap((e, index) => Array.from({ length: e.logits }, (_, k) => runner.logits(index, k).slice())));
    }
  } finally {
    runner.dispose();
    await context.dispose();
  }
  return out;
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs(a[i]! - b[i]!));
  return most;
}

test('streams split from a prompt batch get the logits one batch gives, and leave the same cache', async () => {
  const steps = [
    // Two streams' prompts, then a step where they decode (one verifies two drafts) beside a 100-token prompt.
    [entry(0, 0, 40, 1), entry(1, 0, 30, 1)],
    [entry(0, 40, 1, 1), entry(1, 30, 1, 3, [token(1, 31), token(1, 32)]), entry(2, 0, 100, 1)],
    // Whatever the split step wrote must be what the next step attends to.
    [entry(0, 41, 1, 1), entry(2, 100, 1, 1)],
  ];
  const whole = await runSteps(false, steps);
  const split = await runSteps(true, steps);
  assert.is(split[1]!.length, 5, 'rows asked in the mixed step: 1 + 3 + 1');
  whole.forEach((rows, step) =>
    rows.forEach((row, k) => {
      const difference = maxDifference(row, split[step]![k]!);
      assert.ok(difference < TOLERANCE, `step ${step}, row ${k}: logits differ by ${difference}`);
    }),
  );
  // The rows really are different rows: a mix-up would not pass.
  assert.ok(maxDifference(split[1]![0]!, split[1]![4]!) > 0.1);
});

test('a split step whose streams do not fit leaves no prompt cells behind', async () => {
  const context = LlamaContext.create(model, { contextSize: 256, batchSize: 256, sequences: 4, threads: 1, outputs: 8 });
  const runner = new ModelRunner(context, { splitSteps: true });
  try {
    await runner.run([entry(0, 0, 40, 1)]);
    // 216 prompt tokens fill the 256 cells beside the 40 held, so whichever batch comes second fails.
    let failed = false;
    await runner.run([entry(0, 40, 1, 1), entry(1, 0, 216, 1)]).catch(() => (failed = true));
    assert.ok(failed, 'the step should not fit');
    assert.is(context.maxPosition(0), 39, 'the stream keeps only what it had before the step');
    assert.is(context.maxPosition(1), -1, 'the prompt keeps nothing of the failed step');
    // The cells are free again: the same step without the last prompt token fits.
    await runner.run([entry(0, 40, 1, 1), entry(1, 0, 215, 1)]);
    assert.is(context.maxPosition(1), 214);
  } finally {
    runner.dispose();
    await context.dispose();
  }
});

test('a failed prompt batch takes the streams’ cells of the split step with it', async () => {
  const context = LlamaContext.create(model, { contextSize: 256, batchSize: 256, sequences: 4, threads: 1, outputs: 8 });
  const runner = new ModelRunner(context, { splitSteps: true });
  try {
    await runner.run([entry(0, 0, 40, 1)]);
    // 200 prompt tokens do not fit beside the 40 (+1) cells held: the prompt batch fails after the stream's.
    let failed = false;
    await runner.run([entry(0, 40, 1, 1), entry(1, 0, 230, 1)]).catch(() => (failed = true));
    assert.ok(failed, 'the prompt batch should not fit');
    assert.is(context.maxPosition(0), 39, 'the stream keeps only what it had before the step');
  } finally {
    runner.dispose();
    await context.dispose();
  }
});

/** Counts the decodes a runner makes on `context` (async and on this thread). */
function countDecodes(context: LlamaContext): () => number {
  let decodes = 0;
  const decode = context.decode.bind(context);
  const decodeNow = context.decodeNow.bind(context);
  context.decode = (batch) => (decodes++, decode(batch));
  context.decodeNow = (batch) => (decodes++, decodeNow(batch));
  return () => decodes;
}

const STREAMS = 70;

/** `STREAMS` prompts of 3 tokens, then steps of `STREAMS` streams (some verifying drafts), on one pool; every row asked and the decodes each step took. */
async function runStreams(split: boolean): Promise<{ rows: Float32Array[][]; decodes: number[] }> {
  const context = LlamaContext.create(model, { contextSize: 1024, batchSize: 256, sequences: STREAMS, threads: 1, outputs: 256 });
  assert.ok(context.unifiedKv);
  const runner = new ModelRunner(context, { splitSteps: split });
  const decodes = countDecodes(context);
  const ids = Array.from({ length: STREAMS }, (_, s) => s);
  const steps = [
    ids.map((s) => entry(s, 0, 3, 1)),
    ids.map((s) => entry(s, 3, 1, 1)),
    ids.map((s) => (s % 9 === 0 ? entry(s, 4, 1, 3, [token(s, 5), token(s, 6)]) : entry(s, 4, 1, 1))),
    ids.map((s) => entry(s, s % 9 === 0 ? 7 : 5, 1, 1)),
  ];
  const rows: Float32Array[][] = [];
  const perStep: number[] = [];
  try {
    for (const entries of steps) {
      const before = decodes();
      await runner.run(entries);
      perStep.push(decodes() - before);
      rows.push(entries.flatMap((e, index) => Array.from({ length: e.logits }, (_, k) => runner.logits(index, k).slice())));
    }
  } finally {
    runner.dispose();
    await context.dispose();
  }
  return { rows, decodes: perStep };
}

test('in one pool, 64 streams or more decode in batches below tiled attention, with the logits one batch gives', async () => {
  const whole = await runStreams(false);
  const split = await runStreams(true);
  assert.equal(whole.decodes, [1, 1, 1, 1]);
  // Prompts alone stay whole; 70 streams go in two batches of 35, 78 tokens with drafts in two.
  assert.equal(split.decodes, [1, 2, 2, 2]);
  whole.rows.forEach((rows, step) => {
    assert.is(split.rows[step]!.length, rows.length);
    rows.forEach((row, k) => {
      const difference = maxDifference(row, split.rows[step]![k]!);
      assert.ok(difference < TOLERANCE, `step ${step}, row ${k}: logits differ by ${difference}`);
    });
  });
  // Rows of the first batch (kept here) and of the last (llama.cpp's buffer) are each their own.
  assert.ok(maxDifference(split.rows[1]![0]!, split.rows[1]![STREAMS - 1]!) > 0.1);
  assert.ok(maxDifference(split.rows[1]![0]!, split.rows[1]![1]!) > 0.1);
});

test('a stream batch that does not fit takes the step\'s earlier stream batches with it', async () => {
  const context = LlamaContext.create(model, { contextSize: 256, batchSize: 256, sequences: STREAMS, threads: 1, outputs: 256 });
  const runner = new ModelRunner(context, { splitSteps: true });
  try {
    const ids = Array.from({ length: STREAMS }, (_, s) => s);
    await runner.run(ids.map((s) => entry(s, 0, 3, 1)));
    // 210 cells held: the first batch of 35 fits, the second does not.
    let failed = false;
    await runner.run(ids.map((s) => entry(s, 3, 1, 1))).catch(() => (failed = true));
    assert.ok(failed, 'the step should not fit');
    for (const s of ids) assert.is(context.maxPosition(s), 2, `stream ${s} keeps only its prompt`);
    // The cells are free again: 46 of the streams fit.
    await runner.run(ids.slice(0, 46).map((s) => entry(s, 3, 1, 1)));
    assert.is(context.maxPosition(45), 3);
  } finally {
    runner.dispose();
    await context.dispose();
  }
});

test.run();
