// `npx tsx bench/kv-layout.ts [--model PATH] [--sequences 4] [--context 1265] [--prompt 178] [--reps 5] [--threads N] [--json]`
// What the placement of cells in llama.cpp's unified KV cache, and the mix of a batch, cost a
// prompt on the CPU. `sequences` sequences hold `context` tokens each, laid out one after
// another (contiguous) or interleaved (each step appended a few tokens to every sequence, as
// decoding streams and small prefill slices do); then the last computes `prompt` more tokens:
// alone, beside a one-token decode of every other sequence in the same batch, and split (the
// decodes in a batch of their own first, as model-runner.ts does). Layouts and shapes are
// interleaved in every repetition; figures are medians.
// Why it matters: ggml's tiled attention (batches of 64 tokens or more) skips a block of 64
// cells only where it is masked out for all 64 queries of a tile. Interleaved cells, or a tile
// that mixes the streams' queries with the prompt's, are paid for in full. SmolLM2, 2 cores:
// 4 × 1,265 tokens, a 178-token prompt: 3.5-3.8 ms a prompt token contiguous, 7.0-8.2
// interleaved; beside 3 decodes 801 ms in one batch, 672 split. 17 × 250 interleaved, 48
// prompt tokens beside 16 decodes: 469 ms in one batch, 216 split.
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cac } from 'cac';
import { Batch } from '../runtime/backend/batch.js';
import { LlamaContext } from '../runtime/backend/context.js';
import { listDevices } from '../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../runtime/backend/library.js';
import { LlamaModel } from '../runtime/backend/model.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { median } from '../cli/serve-bench/percentile.js';

const cli = cac('bench/kv-layout');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--sequences <n>', 'Sequences in the cache (all but the last decode beside its prompt)', { default: 4 });
cli.option('--context <n>', 'Tokens each sequence holds', { default: 1265 });
cli.option('--prompt <n>', 'Prompt tokens computed at the end of one sequence', { default: 178 });
cli.option('--reps <n>', 'Repetitions', { default: 5 });
cli.option('--threads <n>', 'CPU threads', { default: availableParallelism() });
cli.option('--json', 'One JSON object instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const [sequenceCount, context, prompt, reps, threads] = ['sequences', 'context', 'prompt', 'reps', 'threads'].map((name) => {
  const n = Number(options[name]);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1, got ${options[name]}`);
  return n;
}) as [number, number, number, number, number];

const SEQUENCES = sequenceCount;
if (SEQUENCES < 2) throw new Error('--sequences must be at least 2');
/** 0: contiguous; n: every sequence gets n tokens a step, in turn. */
const LAYOUTS = [
  { name: 'contiguous', run: 0 },
  { name: 'interleaved by 8', run: 8 },
  { name: 'interleaved by 1', run: 1 },
];

/** The step: the prompt alone, beside the others' decodes in one batch, or beside them split in two batches. */
const SHAPES = [
  { name: 'prompt alone', decoders: 0, split: false },
  { name: `+${SEQUENCES - 1} decodes`, decoders: SEQUENCES - 1, split: false },
  { name: `+${SEQUENCES - 1} decodes, split`, decoders: SEQUENCES - 1, split: true },
];

const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
const cpu = listDevices(api).filter((device) => device.kind === 'cpu').slice(0, 1);
const model = await LlamaModel.create(api, { path: typeof options.model === 'string' ? options.model : await pullModel(), devices: cpu });
const llama = LlamaContext.create(model, { contextSize: SEQUENCES * (context + prompt) + 512, batchSize: 2048, sequences: SEQUENCES, threads });
const batch = new Batch(2048);
const token = (position: number, sequence: number) => 100 + ((position * 7 + sequence) % 500);

function fill(run: number): void {
  llama.clear();
  const step = run === 0 ? 512 : run;
  const order = run === 0 ? [...Array(SEQUENCES).keys()].map((s) => [s]) : [[...Array(SEQUENCES).keys()]];
  for (const sequences of order) {
    for (let start = 0; start < context; start += step) {
      batch.clear();
      for (const s of sequences) for (let p = start; p < Math.min(context, start + step); p++) batch.add(token(p, s), p, s, false);
      llama.decodeNow(batch);
    }
  }
}

/**
 * One step: `prompt` tokens at the end of the last sequence, beside `decoders` one-token
 * decodes, in one batch or (split) the decodes first in a batch of their own; then undone.
 */
function timeStep(decoders: number, split: boolean): number {
  const started = performance.now();
  batch.clear();
  for (let s = 0; s < decoders; s++) batch.add(123, context, s, true);
  if (split) {
    llama.decodeNow(batch);
    batch.clear();
  }
  for (let i = 0; i < prompt; i++) batch.add(200 + (i % 300), context + i, SEQUENCES - 1, i === prompt - 1);
  llama.decodeNow(batch);
  const ms = performance.now() - started;
  for (let s = 0; s < SEQUENCES; s++) llama.remove(s, context, -1);
  return ms;
}

const samples = new Map<string, number[]>();
for (let rep = 0; rep < reps; rep++) {
  for (const layout of rep % 2 ? [...LAYOUTS].reverse() : LAYOUTS) {
    fill(layout.run);
    for (const shape of SHAPES) {
      const key = `${layout.name}/${shape.name}`;
      (samples.get(key) ?? samples.set(key, []).get(key)!).push(timeStep(shape.decoders, shape.split));
    }
  }
}
await llama.dispose();

const rows = LAYOUTS.flatMap((layout) =>
  SHAPES.map((shape) => {
    const ms = median(samples.get(`${layout.name}/${shape.name}`)!);
    const contiguous = median(samples.get(`contiguous/${shape.name}`)!);
    return { layout: layout.name, step: shape.name, step_ms: ms, ms_per_prompt_token: ms / prompt, vs_contiguous: ms / contiguous };
  }),
);
if (options.json) {
  console.log(JSON.stringify({ context, prompt, sequences: SEQUENCES, threads, reps, rows }));
} else {
  console.log(`${SEQUENCES} sequences of ${context} tokens; a ${prompt}-token prompt at the end of one; ${threads} threads; medians of ${reps}`);
  console.log('layout              step                  step ms   ms/prompt token   × contiguous');
  for (const r of rows) {
    console.log(`${r.layout.padEnd(20)}${r.step.padEnd(20)}${r.step_ms.toFixed(0).padStart(10)}${r.ms_per_prompt_token.toFixed(2).padStart(18)}${r.vs_contiguous.toFixed(2).padStart(15)}`);
  }
}
