// A step that mixes streams and prompt tokens, run in one batch and split in two (the streams
// first, as the runner does on a CPU): the same logits for every row asked, up to float noise
// from different batch shapes, and the same cache after it. Real llama.cpp, the tiny model.
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
  return { sequence: { tokens: tokensOf(sequence, start + count), slot: sequence } as never, start, count, logits, draft };
}

/** Runs the same steps on a fresh context with the runner split on or off; returns every logit row asked, in entry order. */
async function runSteps(split: boolean, steps: StepEntry[][]): Promise<Float32Array[][]> {
  const context = LlamaContext.create(model, { contextSize: 1024, batchSize: 256, sequences: 4, threads: 1, outputs: 8 });
  const runner = new ModelRunner(context, { splitMixedSteps: split });
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

test('a failed prompt batch takes the streams’ cells of the split step with it', async () => {
  const context = LlamaContext.create(model, { contextSize: 256, batchSize: 256, sequences: 4, threads: 1, outputs: 8 });
  const runner = new ModelRunner(context, { splitMixedSteps: true });
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

test.run();
