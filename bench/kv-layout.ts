// `npx tsx bench/kv-layout.ts [--model PATH] [--context 1265] [--prompt 178] [--reps 5] [--threads N] [--json]`
// What the placement of other sequences' cells in llama.cpp's unified KV cache costs a prompt.
// Four sequences hold `context` tokens each, laid out one after another (contiguous) or
// interleaved (each step appended a few tokens to every sequence, as decoding streams and
// small prefill chunks do); then one sequence computes `prompt` more tokens, alone and beside
// three one-token decodes. Layouts are interleaved in every repetition; figures are medians.
// The kernels skip attention to cells that are masked out only where whole blocks of them
// belong to other sequences, so interleaved cells are paid for by every later prompt token
// (SmolLM2, 2 cores, context 1,265: 3.6 ms a prompt token contiguous, 6.9-7.2 interleaved).
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cac } from 'cac';
import { Batch } from '../runtime/backend/batch.js';
import { LlamaContext } from '../runtime/backend/context.js';
import { listDevices } from '../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../runtime/backend/library.js';
import { LlamaModel } from '../runtime/backend/model.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { median } from './serve/percentile.js';

const cli = cac('bench/kv-layout');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--context <n>', 'Tokens each of the four sequences holds', { default: 1265 });
cli.option('--prompt <n>', 'Prompt tokens computed at the end of one sequence', { default: 178 });
cli.option('--reps <n>', 'Repetitions', { default: 5 });
cli.option('--threads <n>', 'CPU threads', { default: availableParallelism() });
cli.option('--json', 'One JSON object instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const [context, prompt, reps, threads] = ['context', 'prompt', 'reps', 'threads'].map((name) => {
  const n = Number(options[name]);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1, got ${options[name]}`);
  return n;
}) as [number, number, number, number];

const SEQUENCES = 4;
/** 0: contiguous; n: every sequence gets n tokens a step, in turn. */
const LAYOUTS = [
  { name: 'contiguous', run: 0 },
  { name: 'interleaved by 8', run: 8 },
  { name: 'interleaved by 1', run: 1 },
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

/** One step: `prompt` tokens at the end of the last sequence, beside `decoders` one-token decodes; then undone. */
function timeStep(decoders: number): number {
  batch.clear();
  for (let s = 0; s < decoders; s++) batch.add(123, context, s, true);
  for (let i = 0; i < prompt; i++) batch.add(200 + (i % 300), context + i, SEQUENCES - 1, i === prompt - 1);
  const started = performance.now();
  llama.decodeNow(batch);
  const ms = performance.now() - started;
  for (let s = 0; s < SEQUENCES; s++) llama.remove(s, context, -1);
  return ms;
}

const samples = new Map<string, number[]>();
for (let rep = 0; rep < reps; rep++) {
  for (const layout of rep % 2 ? [...LAYOUTS].reverse() : LAYOUTS) {
    fill(layout.run);
    for (const decoders of [0, SEQUENCES - 1]) {
      const key = `${layout.name}/${decoders}`;
      (samples.get(key) ?? samples.set(key, []).get(key)!).push(timeStep(decoders));
    }
  }
}
await llama.dispose();

const rows = LAYOUTS.flatMap((layout) =>
  [0, SEQUENCES - 1].map((decoders) => {
    const ms = median(samples.get(`${layout.name}/${decoders}`)!);
    const contiguous = median(samples.get(`contiguous/${decoders}`)!);
    return { layout: layout.name, decoders, step_ms: ms, ms_per_prompt_token: ms / prompt, vs_contiguous: ms / contiguous };
  }),
);
if (options.json) {
  console.log(JSON.stringify({ context, prompt, sequences: SEQUENCES, threads, reps, rows }));
} else {
  console.log(`${SEQUENCES} sequences of ${context} tokens; a ${prompt}-token prompt at the end of one; ${threads} threads; medians of ${reps}`);
  console.log('layout              decoders   step ms   ms/prompt token   × contiguous');
  for (const r of rows) {
    console.log(`${r.layout.padEnd(20)}${String(r.decoders).padStart(8)}${r.step_ms.toFixed(0).padStart(10)}${r.ms_per_prompt_token.toFixed(2).padStart(18)}${r.vs_contiguous.toFixed(2).padStart(15)}`);
  }
}
