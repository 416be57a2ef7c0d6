// `npx tsx bench/kv-streams.ts [--model PATH] [--streams 16] [--context 200] [--long 0] [--reps 3] [--threads N] [--host-mask] [--no-work] [--json]`
// What llama.cpp's one shared pool of KV cells (kv_unified, the engine's layout) costs a decode
// step on the CPU, against a stream of cells per sequence. In the shared pool every query of a
// step passes over every cached cell (ggml's flash attention skips the cells of other sequences
// one by one, through the mask), so a step of W streams reads W × all cells; with a stream per
// sequence each reads its own. Measured two ways, layouts interleaved in every repetition:
//   decode: the median step of `streams` sequences at `context` tokens (their cells laid out one
//           after another, or interleaved as decoding leaves them), with `long` more tokens of
//           one other sequence in the cache when given (a long prompt beside streams);
//   work:   BareDecoder.workload, bench/compare-llama-server.sh's work bound: 2 × `streams`
//           requests of `context` prompt tokens and 64 output tokens, `streams` at a time.
// --host-mask (Linux, with `perf` on PATH) also times, per decode step, the CPU llama.cpp spends
// building the step's attention mask on the host (set_input_kq_mask: one entry per query and per
// cell up to the highest one in use): host work on any device, a GPU's included, done on the
// decoding thread before the graph is queued. perf samples this process during the timed steps.
// SmolLM2, 2 cores (defaults): a step of 16 streams of 200 tokens takes 47 ms in the shared pool
// (53 interleaved), 27 with a stream each; the work runs at 153 tok/s against 242 (1.58×). With
// --streams 8 --context 1145 --long 3225 (bench:prefix's long prompt, late in its prefill): 85 ms
// a step contiguous, 123 interleaved, 48 with a stream each; the work 1.44×.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cac } from 'cac';
import { Batch } from '../runtime/backend/batch.js';
import { LlamaContext } from '../runtime/backend/context.js';
import { listDevices } from '../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../runtime/backend/library.js';
import { LlamaModel } from '../runtime/backend/model.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { BareDecoder } from './engine/bare-decode.js';
import { median } from '../cli/serve-bench/percentile.js';

const cli = cac('bench/kv-streams');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--streams <n>', 'Sequences decoding together', { default: 16 });
cli.option('--context <n>', 'Tokens each stream holds (and prompt tokens per request in the work run)', { default: 200 });
cli.option('--long <n>', 'Tokens of one more sequence in the cache, beside the streams (0: none)', { default: 0 });
cli.option('--reps <n>', 'Repetitions', { default: 3 });
cli.option('--threads <n>', 'CPU threads', { default: availableParallelism() });
cli.option('--host-mask', 'Also time the host\'s attention-mask building per step (Linux perf)');
cli.option('--no-work', 'Leave out the work run (slow for many streams in one pool on a CPU)');
cli.option('--json', 'One JSON object instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const count = (name: string, least: number) => {
  const n = Number(options[name]);
  if (!Number.isSafeInteger(n) || n < least) throw new Error(`--${name} must be a whole number ≥ ${least}, got ${options[name]}`);
  return n;
};
const [streams, context, long, reps, threads] = [count('streams', 1), count('context', 2), count('long', 0), count('reps', 1), count('threads', 1)] as const;

const OUTPUT = 64;
const STEPS = 16;
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();
const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
const cpu = listDevices(api).filter((device) => device.kind === 'cpu').slice(0, 1);
const model = await LlamaModel.create(api, { path: modelPath, devices: cpu });

// A stream of its own holds contextSize / sequences cells: room for the longest sequence, the
// decode steps and llama.cpp's padding.
const sequences = streams + (long > 0 ? 1 : 0);
const perSequence = Math.ceil((Math.max(context + OUTPUT + STEPS, long + STEPS) + 256) / 256) * 256;
const shape = { contextSize: sequences * perSequence, batchSize: 2048, sequences, threads, outputs: streams };
const token = (position: number, sequence: number) => 100 + ((position * 7 + sequence) % 500);

const LAYOUTS = [
  { name: 'shared pool, contiguous', unifiedKv: true, interleaved: false },
  { name: 'shared pool, interleaved', unifiedKv: true, interleaved: true },
  { name: 'a stream per sequence', unifiedKv: false, interleaved: true },
];

const hostMask = options.hostMask === true;
if (hostMask && spawnSync('perf', ['--version']).status !== 0) throw new Error('--host-mask needs Linux perf on PATH');
const PERF_HZ = 999;

/** Samples this process with perf until the returned function is called; that one resolves to the milliseconds of CPU spent in the host's mask building. */
async function samplingMask(): Promise<() => Promise<number>> {
  const dir = mkdtempSync(join(tmpdir(), 'kv-mask-'));
  const data = join(dir, 'perf.data');
  const perf = spawn('perf', ['record', '-q', '-F', String(PERF_HZ), '-p', String(process.pid), '-o', data], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500)); // perf attaches
  return async () => {
    const exited = new Promise((resolve) => perf.once('exit', resolve));
    perf.kill('SIGINT');
    await exited;
    const report = spawnSync('perf', ['report', '-i', data, '--no-children', '--sort', 'symbol', '--stdio', '-n'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    rmSync(dir, { recursive: true, force: true });
    // Lines like "  4.95%  4094  [.] set_input_kq_mask_impl<...>": the sample count is the second field.
    const samples = report.stdout.split('\n').filter((line) => line.includes('set_input_kq_mask')).reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[1] ?? 0), 0);
    return (1000 * samples) / PERF_HZ;
  };
}

/** Fills the cache as the layout says, then times decode steps of every stream: the median step, and the host's mask building per step (--host-mask), in ms. */
async function decodeStep(llama: LlamaContext, interleaved: boolean): Promise<{ stepMs: number; maskMs: number }> {
  const batch = new Batch(2048);
  const add = (sequence: number, from: number, to: number) => {
    for (let a = from; a < to; a += 512) {
      batch.clear();
      for (let p = a; p < Math.min(to, a + 512); p++) batch.add(token(p, sequence), p, sequence, false);
      llama.decodeNow(batch);
    }
  };
  llama.clear();
  if (!interleaved) {
    for (let s = 0; s < streams; s++) add(s, 0, context);
    if (long > 0) add(streams, 0, long);
  } else {
    // Each stream starts from a short prompt, then every step adds a token to each, and the long
    // sequence grows in slices beside them, as a prompt does within a step budget.
    const start = Math.min(context, 64);
    for (let s = 0; s < streams; s++) add(s, 0, start);
    let longAt = 0;
    for (let p = start; p < context; p++) {
      batch.clear();
      for (let s = 0; s < streams; s++) batch.add(token(p, s), p, s, false);
      const until = Math.round(((p - start + 1) * long) / (context - start));
      for (; longAt < until; longAt++) batch.add(token(longAt, streams), longAt, streams, false);
      llama.decodeNow(batch);
    }
    if (longAt < long) add(streams, longAt, long);
  }
  const times: number[] = [];
  const stopSampling = hostMask ? await samplingMask() : undefined;
  for (let step = 0; step < STEPS; step++) {
    batch.clear();
    for (let s = 0; s < streams; s++) batch.add(123, context + step, s, true);
    const started = performance.now();
    llama.decodeNow(batch);
    times.push(performance.now() - started);
  }
  const maskMs = stopSampling ? (await stopSampling()) / STEPS : NaN;
  batch.dispose();
  return { stepMs: median(times), maskMs };
}

const stepMs = new Map<string, number[]>();
const maskMs = new Map<string, number[]>();
const push = (map: Map<string, number[]>, key: string, value: number) => (map.get(key) ?? map.set(key, []).get(key)!).push(value);
for (let rep = 0; rep < reps; rep++) {
  for (const layout of rep % 2 ? [...LAYOUTS].reverse() : LAYOUTS) {
    const llama = LlamaContext.create(model, { ...shape, unifiedKv: layout.unifiedKv });
    const step = await decodeStep(llama, layout.interleaved);
    push(stepMs, layout.name, step.stepMs);
    push(maskMs, layout.name, step.maskMs);
    await llama.dispose();
  }
}
model.dispose();

const work = new Map<boolean, number>();
for (let rep = 0; options.work !== false && rep < reps; rep++) {
  for (const unifiedKv of rep % 2 ? [false, true] : [true, false]) {
    const bare = await BareDecoder.create(modelPath, { ...shape, sequences: streams, contextSize: streams * perSequence, unifiedKv });
    const run = bare.workload(context, 2 * streams, streams, OUTPUT);
    work.set(unifiedKv, Math.max(work.get(unifiedKv) ?? 0, run.tokens / run.seconds));
    await bare.dispose();
  }
}

const rows = LAYOUTS.map((layout) => ({
  layout: layout.name,
  decode_step_ms: median(stepMs.get(layout.name)!),
  ...(hostMask ? { host_mask_ms: median(maskMs.get(layout.name)!) } : {}),
}));
const result = {
  streams, context, long, threads, reps,
  rows,
  ...(work.size ? { work_tokens_per_s: { shared_pool: work.get(true)!, stream_per_sequence: work.get(false)! } } : {}),
};
if (options.json) {
  console.log(JSON.stringify(result));
} else {
  console.log(`${streams} streams of ${context} tokens${long > 0 ? `, beside one sequence of ${long}` : ''}; ${threads} threads; medians of ${reps}`);
  for (const r of rows) {
    const mask = r.host_mask_ms === undefined ? '' : `, of which the host's mask ${r.host_mask_ms.toFixed(2).padStart(6)} ms`;
    console.log(`${r.layout.padEnd(28)} decode step ${r.decode_step_ms.toFixed(1).padStart(7)} ms${mask}`);
  }
  const done = result.work_tokens_per_s;
  if (done) {
    console.log(`work (${2 * streams} requests of ${context} + ${OUTPUT} tokens, ${streams} at a time, best of ${reps}): ` +
      `shared pool ${done.shared_pool.toFixed(1)} tok/s, a stream per sequence ${done.stream_per_sequence.toFixed(1)} tok/s ` +
      `(${(done.stream_per_sequence / done.shared_pool).toFixed(2)}×)`);
  }
}
