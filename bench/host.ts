// `npm run bench:host [-- --widths 1,16,32,64,256] [--tokens 64] [--prompt-tokens 1] [--reps 5] [--threads N] [--baseline REF] [--model PATH] [--device cpu|cuda] [--sampling auto|host|device] [--prefix-cache off|on] [--node-floor] [--cpu-prof DIR] [--json]`
// The engine's host cost per decode step. On the tiny fixture model (the default) the model's
// own work is nearly free, so a step's time is what the engine spends around llama_decode plus
// llama.cpp's host side. Each width is measured three ways, in turn (order reversed every
// other round, so load from elsewhere hits all alike):
//   - the engine (this tree), with its step phases timed (runtime/engine/step-profile.ts):
//     JavaScript (plan, batch, sample, commit, collect, emit, yield) against llama_decode and the
//     wait for the device (device: a GPU's, near zero on a CPU);
//   - the same engine from a baseline checkout (--baseline REF: a temporary git worktree of
//     REF, sharing node_modules and fixtures/.cache), when asked;
//   - the C floor: llama_decode in a C loop over the same batch shapes (engine/decode-floor.c).
// The engine is timed over the steps where it decodes all `width` sequences (host/steady-decode.ts),
// the floor over `tokens - 1` steps of `width`. Each engine runs in a process of its own
// (host/engine-side.ts). Figures are medians over
// the rounds; ratios are medians of per-round ratios. Goal (issue 29): engine / floor ≥ 0.8 at
// 32 and 64 sequences. With --device cuda, `decode` is llama_decode's wall time as the host
// sees it (host work plus the wait for the card: ggml's CUDA events are not bound here).
// --sampling picks where both engines choose tokens (the engine's setting: device = ggml's argmax
// in the graph, host = a logits row per sequence read by JavaScript); the floor samples nothing.
// --prefix-cache (default off) is the engines' prefix cache. The floor clears its memory before
// every run, so its cells are packed from the first one. llama.cpp's attention covers every cell
// up to the highest one in use (n_kv, rounded up to 256), so cells kept for the cache cost every
// step of every sequence: with the cache on, the cells earlier runs leave behind sit below and
// among a run's own. Measured (LLAMA_KV_CACHE_DEBUG=1, issue 29): n_kv over a run at 64 went
// 6,113 → 8,000 of 8,192 cells against the floor's 64 → 4,096, and the engine took 1.16-1.20× the
// time with it on. Off compares the same work; on shows what the kept cells cost.
// --node-floor adds a fourth side: the C floor's loop in Node, through lmforge's context and batch
// (host/node-floor.ts), so that what calling llama.cpp from Node costs (node floor against the
// C floor) is told apart from what the engine adds (the engine against the node floor).
// Each engine run also splits its process's CPU by thread (host/thread-cpu.ts: the engine's thread,
// the main thread, the rest), so that what the process spends beyond the engine's step is named.
// --cpu-prof DIR writes V8 CPU profiles of this tree's engine process (one per thread, the
// engine worker's among them) into DIR, for Chrome DevTools or speedscope.
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cac } from 'cac';
import { parseDeviceSpec } from '../runtime/backend/device-spec.js';
import { libraryKindsFor } from '../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../runtime/backend/library.js';
import { SAMPLING_SETTINGS, type SamplingSetting } from '../runtime/engine/sampling-setting.js';
import { STEP_PHASES, type StepPhase, type StepTotals } from '../runtime/engine/step-profile.js';
import type { EngineConfig } from '../runtime/engine/engine-config.js';
import { TILED_ATTENTION_TOKENS } from '../runtime/engine/worker/model-runner.js';
import { buildDecodeFloor } from './engine/build-decode-floor.js';
import { DecodeFloor } from './engine/decode-floor.js';
import type { ThreadSplit } from './host/thread-cpu.js';
import { median } from '../cli/serve-bench/percentile.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const cli = cac('bench:host');
cli.option('--model <path>', 'GGUF file', { default: join(repoRoot, 'fixtures/.cache/tiny-gpt2.gguf') });
cli.option('--device <spec>', 'cpu, or cuda (all layers on the card)', { default: 'cpu' });
cli.option('--widths <list>', 'Concurrent sequences, comma-separated', { default: '1,16,32,64,256' });
cli.option('--tokens <n>', 'Tokens generated per sequence', { default: 64 });
cli.option('--prompt-tokens <n>', 'Prompt length per sequence, in tokens (about: " the" repeated)', { default: 1 });
// Five: on a shared machine one round in three moved a 3-round median by over 10% (README, bench:host).
cli.option('--reps <n>', 'Rounds', { default: 5 });
cli.option('--threads <n>', 'Decode threads', { default: Math.min(2, availableParallelism()) });
cli.option('--sampling <where>', 'Where both engines choose tokens: auto, host or device', { default: 'auto' });
cli.option('--prefix-cache <on|off>', 'The engines\' prefix cache (off: cells packed as the floor\'s)', { default: 'off' });
cli.option('--baseline <ref>', 'Also measure the engine of this git ref (e.g. main)');
cli.option('--node-floor', 'Also time the C floor\'s loop run from Node (host/node-floor.ts)');
cli.option('--cpu-prof <dir>', 'Write V8 CPU profiles of this tree\'s engine process here');
cli.option('--json', 'One JSON object per width instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const widths = String(options.widths).split(',').map(Number);
const maxTokens = Number(options.tokens);
const promptTokens = Number(options.promptTokens);
const reps = Number(options.reps);
const threads = Number(options.threads);
const device = String(options.device);
const modelPath = String(options.model);
const json = options.json === true;
const sampling = String(options.sampling);
const prefixCache = String(options.prefixCache);
if (!widths.every((w) => Number.isInteger(w) && w >= 1) || !(maxTokens >= 4) || !(Number.isInteger(promptTokens) && promptTokens >= 1) || !(reps >= 1) || !(Number.isInteger(threads) && threads >= 1) || !SAMPLING_SETTINGS.includes(sampling as SamplingSetting) || !['on', 'off'].includes(prefixCache)) {
  console.error(`bench:host: --widths must be whole numbers ≥ 1, --tokens ≥ 4, --prompt-tokens ≥ 1, --reps ≥ 1, --threads ≥ 1, --sampling one of ${SAMPLING_SETTINGS.join(', ')}, --prefix-cache on or off`);
  process.exit(1);
}
const maxWidth = Math.max(...widths);
// One token by default: every sequence's first step is then a one-token step like any decode, so
// all `width` start together (longer prompts complete a few per step on a CPU, and at 256 the
// first sequences finished before the last began) and every step of the run is a steady one.
// --prompt-tokens gives the steps the server's contexts instead (its bench rows send 128 tokens):
// llama.cpp's attention and the mask it builds on the host cover every cell in use, so a step's
// cost grows with the contexts, and a loop of short ones is not the server's step.
const promptText = 'The' + ' the'.repeat(promptTokens - 1);
// Every sequence holds its prompt and its tokens at once: the pool is sized so the widest step fits.
const cells = maxWidth * (maxTokens + promptTokens + 64);

/** A line-protocol child: one JSON line when ready, one per request line. */
class LineChild {
  private readonly lines: AsyncIterator<string>;
  private errors = '';
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.on('data', (chunk) => (this.errors += chunk));
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }
  async read<T>(): Promise<T> {
    for (;;) {
      const next = await this.lines.next();
      if (next.done) throw new Error(`an engine process exited: ${this.errors.trim()}`);
      if (next.value.startsWith('{')) return JSON.parse(next.value) as T;
    }
  }
  async ask<T>(line: string): Promise<T> {
    this.child.stdin.write(`${line}\n`);
    return this.read<T>();
  }
  async close(): Promise<void> {
    // One that already died (its error is what the run reports) would wait for an exit event gone by.
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}

interface EngineRun {
  tokens: number;
  seconds: number;
  cpuSeconds: number;
  profile?: StepTotals;
  threads?: ThreadSplit;
}

async function startEngine(root: string, profileDir?: string): Promise<{ side: LineChild; config: EngineConfig }> {
  const script = join(repoRoot, 'bench/host/engine-side.ts');
  const nodeArgs = ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const args = ['--root', root, '--model', modelPath, '--device', device, '--sequences', maxWidth, '--cells', cells, '--threads', threads, '--prompt', promptText, '--sampling', sampling, '--prefix-cache', prefixCache].map(String);
  const side = new LineChild(spawn(process.execPath, [...nodeArgs, script, ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] }));
  const { config } = await side.read<{ config: EngineConfig }>();
  return { side, config };
}

/** A detached worktree of `ref` under the temporary folder, sharing this tree's node_modules and fixture cache. */
function baselineTree(ref: string): { root: string; remove: () => void } {
  const folder = mkdtempSync(join(tmpdir(), 'lmforge-baseline-'));
  const root = join(folder, 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', '--quiet', root, ref], { cwd: repoRoot, stdio: 'inherit' });
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  if (!existsSync(join(root, 'fixtures/.cache'))) symlinkSync(join(repoRoot, 'fixtures/.cache'), join(root, 'fixtures/.cache'));
  return {
    root,
    remove: () => {
      execFileSync('git', ['worktree', 'remove', '--force', root], { cwd: repoRoot, stdio: 'inherit' });
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const baselineRef = typeof options.baseline === 'string' ? options.baseline : undefined;
const baseline = baselineRef ? baselineTree(baselineRef) : undefined;
const sides: { name: 'engine' | 'baseline'; side: LineChild }[] = [];
let floor: DecodeFloor | undefined;
let nodeFloor: LineChild | undefined;
try {
  const mine = await startEngine(repoRoot, typeof options.cpuProf === 'string' ? options.cpuProf : undefined);
  sides.push({ name: 'engine', side: mine.side });
  if (baseline) sides.push({ name: 'baseline', side: (await startEngine(baseline.root)).side });
  const config = mine.config;
  const { path: libllama } = loadLlamaLibrary({ kinds: libraryKindsFor(parseDeviceSpec(device)) });
  floor = await DecodeFloor.start(
    modelPath,
    { contextSize: config.maxTotalSeqLength, batchSize: config.prefillChunkSize + config.maxNumSequence, sequences: config.maxNumSequence, threads },
    promptText,
    { binary: await buildDecodeFloor(libllama), gpuLayers: device === 'cpu' ? 0 : 999 },
  );
  const theFloor = floor;
  if (options.nodeFloor === true) {
    const args = ['--model', modelPath, '--device', device, '--cells', config.maxTotalSeqLength, '--batch', config.prefillChunkSize + config.maxNumSequence, '--sequences', config.maxNumSequence, '--threads', threads, '--prompt', promptText].map(String);
    nodeFloor = new LineChild(spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench/host/node-floor.ts'), ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] }));
    await nodeFloor.read();
    await nodeFloor.ask(`${maxWidth} 8`);
  }
  const theNodeFloor = nodeFloor;
  // On a CPU the engine decodes 64 streams or more of its one pool in smaller batches, out of
  // ggml's tiled attention (model-runner.ts): the floors decode the same batches.
  const floorBatch = device === 'cpu' ? TILED_ATTENTION_TOKENS - 1 : 0;

  // One untimed pass of each at the widest width warms caches and allocators.
  for (const { side } of sides) await side.ask(`${maxWidth} ${maxTokens}`);
  await theFloor.decode(maxWidth, 8);

  type FloorRun = { tokens: number; seconds: number; cpuSeconds: number };
  type Round = { engine: EngineRun; baseline?: EngineRun; floor: FloorRun; nodeFloor?: FloorRun };
  const rounds = new Map(widths.map((w) => [w, [] as Round[]]));
  for (let rep = 0; rep < reps; rep++) {
    for (const width of widths) {
      // The engine's first token comes from the prefill, so it decodes maxTokens - 1 steps, as the floor is asked to.
      const measures = [
        ...sides.map(({ name, side }) => async (round: Partial<Round>) => void (round[name] = await side.ask<EngineRun>(`${width} ${maxTokens}`))),
        async (round: Partial<Round>) => void (round.floor = await theFloor.decode(width, maxTokens - 1, floorBatch)),
        ...(theNodeFloor ? [async (round: Partial<Round>) => void (round.nodeFloor = await theNodeFloor.ask<FloorRun>(`${width} ${maxTokens - 1} ${floorBatch}`))] : []),
      ];
      const round: Partial<Round> = {};
      for (const measure of rep % 2 === 0 ? measures : [...measures].reverse()) await measure(round);
      rounds.get(width)!.push(round as Round);
      if (!json) {
        const perSeqStep = (run: { tokens: number; seconds: number; cpuSeconds: number }) => `${((run.seconds / run.tokens) * 1e6).toFixed(0)} (cpu ${((run.cpuSeconds / run.tokens) * 1e6).toFixed(0)})`;
        process.stderr.write(`round ${rep + 1}/${reps} width ${width}: µs per sequence-step engine ${perSeqStep(round.engine!)}${round.baseline ? `, baseline ${perSeqStep(round.baseline)}` : ''}, floor ${perSeqStep(round.floor!)}${round.nodeFloor ? `, node floor ${perSeqStep(round.nodeFloor)}` : ''}\n`);
      }
    }
  }

  const rows = widths.map((width) => {
    const list = rounds.get(width)!;
    const stepMs = (run: { tokens: number; seconds: number }) => (run.seconds * 1000 * width) / run.tokens;
    const perStep = (run: EngineRun, pick: (p: StepTotals) => number) => (run.profile && run.profile.steps > 0 ? pick(run.profile) / run.profile.steps : Number.NaN);
    const phases = Object.fromEntries(STEP_PHASES.map((phase) => [phase, median(list.map((r) => perStep(r.engine, (p) => p.phasesMs[phase])))])) as Record<StepPhase, number>;
    const decodeMs = phases.decode;
    // The wait for the device is neither JavaScript nor llama_decode's host side (near zero on a CPU).
    const deviceMs = phases.device;
    // Each kind of thread's share of the process's CPU over a run, applied to the steady steps' CPU time.
    const engineCpuStepMs = median(list.map((r) => (r.engine.cpuSeconds * 1000 * width) / r.engine.tokens));
    const share = (pick: (t: ThreadSplit) => number) =>
      median(list.map((r) => (r.engine.threads ? pick(r.engine.threads) / (r.engine.threads.engineMs + r.engine.threads.mainMs + r.engine.threads.otherMs) : Number.NaN))) * engineCpuStepMs;
    const cpuByThread = { engine: share((t) => t.engineMs), main: share((t) => t.mainMs), other: share((t) => t.otherMs) };
    const profiledStepMs = median(list.map((r) => perStep(r.engine, (p) => p.wallMs)));
    return {
      width,
      engine_step_ms: median(list.map((r) => stepMs(r.engine))),
      engine_us_per_sequence_step: median(list.map((r) => (r.engine.seconds / r.engine.tokens) * 1e6)),
      // The engine thread's time per step outside llama_decode and the wait for the device, and llama_decode's (profiled steps).
      js_ms: profiledStepMs - decodeMs - deviceMs,
      decode_ms: decodeMs,
      phases_ms: phases,
      // KV cells in use at the profiled steps, on average: what the server's /debug/step-profile gives as cells_in_use.
      cells_in_use: median(list.map((r) => perStep(r.engine, (p) => p.cells))),
      floor_step_ms: median(list.map((r) => stepMs(r.floor))),
      engine_over_floor: median(list.map((r) => r.floor.seconds / r.floor.tokens / (r.engine.seconds / r.engine.tokens))),
      // CPU time per sequence-step, every thread of each process: what a loaded machine disturbs least.
      engine_cpu_us_per_sequence_step: median(list.map((r) => (r.engine.cpuSeconds / r.engine.tokens) * 1e6)),
      floor_cpu_us_per_sequence_step: median(list.map((r) => (r.floor.cpuSeconds / r.floor.tokens) * 1e6)),
      engine_over_floor_cpu: median(list.map((r) => r.floor.cpuSeconds / r.floor.tokens / (r.engine.cpuSeconds / r.engine.tokens))),
      engine_cpu_step_ms: engineCpuStepMs,
      cpu_by_thread_ms: cpuByThread,
      floor_cpu_step_ms: median(list.map((r) => (r.floor.cpuSeconds * 1000 * width) / r.floor.tokens)),
      ...(nodeFloor
        ? {
            node_floor_over_floor: median(list.map((r) => r.floor.seconds / r.floor.tokens / (r.nodeFloor!.seconds / r.nodeFloor!.tokens))),
            node_floor_over_floor_cpu: median(list.map((r) => r.floor.cpuSeconds / r.floor.tokens / (r.nodeFloor!.cpuSeconds / r.nodeFloor!.tokens))),
            node_floor_cpu_step_ms: median(list.map((r) => (r.nodeFloor!.cpuSeconds * 1000 * width) / r.nodeFloor!.tokens)),
          }
        : {}),
      ...(baseline
        ? {
            baseline_step_ms: median(list.map((r) => stepMs(r.baseline!))),
            baseline_over_floor: median(list.map((r) => r.floor.seconds / r.floor.tokens / (r.baseline!.seconds / r.baseline!.tokens))),
            engine_over_baseline: median(list.map((r) => r.baseline!.seconds / r.baseline!.tokens / (r.engine.seconds / r.engine.tokens))),
            baseline_over_floor_cpu: median(list.map((r) => r.floor.cpuSeconds / r.floor.tokens / (r.baseline!.cpuSeconds / r.baseline!.tokens))),
          }
        : {}),
      tokens: maxTokens,
      prompt_tokens: promptTokens,
      reps,
      threads,
      device,
      sampling,
      prefix_cache: prefixCache,
      model: basename(modelPath),
      ...(baselineRef ? { baseline: baselineRef } : {}),
    };
  });

  if (json) {
    for (const row of rows) console.log(JSON.stringify(row));
  } else {
    console.log(`\nhost cost per decode step, ${basename(modelPath)}, ${device}, sampling ${sampling}, prefix cache ${prefixCache}, ${threads} threads, ${maxTokens - 1} decode steps per sequence after a prompt of ${promptTokens} token${promptTokens === 1 ? '' : 's'}, median of ${reps} rounds`);
    const head = ['width', 'step ms', 'µs/seq-step', 'JS ms', 'decode ms', 'floor ms', 'eng/floor', ...(baseline ? ['base/floor', 'eng/base'] : []), 'cpu µs/s-s', 'floor cpu', 'cpu e/f', ...(baseline ? ['cpu b/f'] : []), ...(nodeFloor ? ['node/floor', 'cpu n/f'] : [])];
    console.log(head.map((h, i) => (i === 0 ? h.padEnd(6) : h.padStart(12))).join(''));
    for (const row of rows) {
      const cells = [row.engine_step_ms.toFixed(3), row.engine_us_per_sequence_step.toFixed(1), row.js_ms.toFixed(3), row.decode_ms.toFixed(3), row.floor_step_ms.toFixed(3), row.engine_over_floor.toFixed(3)];
      if (baseline) cells.push(row.baseline_over_floor!.toFixed(3), row.engine_over_baseline!.toFixed(3));
      cells.push(row.engine_cpu_us_per_sequence_step.toFixed(1), row.floor_cpu_us_per_sequence_step.toFixed(1), row.engine_over_floor_cpu.toFixed(3));
      if (baseline) cells.push(row.baseline_over_floor_cpu!.toFixed(3));
      if (nodeFloor) cells.push(row.node_floor_over_floor!.toFixed(3), row.node_floor_over_floor_cpu!.toFixed(3));
      console.log(String(row.width).padEnd(6) + cells.map((c) => c.padStart(12)).join(''));
    }
    console.log(`\nthe engine thread's step, ms by phase (decode steps only), and the KV cells in use at them on average`);
    console.log(['width', ...STEP_PHASES, 'cells'].map((h, i) => (i === 0 ? h.padEnd(6) : h.padStart(9))).join(''));
    for (const row of rows) console.log(String(row.width).padEnd(6) + STEP_PHASES.map((phase) => row.phases_ms[phase].toFixed(3).padStart(9)).join('') + row.cells_in_use.toFixed(0).padStart(9));
    console.log(`\nthe engine process's CPU per step, ms by thread (each thread's share of a run), against the floor's`);
    console.log(['width', 'engine', 'main', 'other', 'all', 'floor', ...(nodeFloor ? ['node fl.'] : [])].map((h, i) => (i === 0 ? h.padEnd(6) : h.padStart(9))).join(''));
    for (const row of rows) {
      const { engine, main, other } = row.cpu_by_thread_ms;
      console.log(String(row.width).padEnd(6) + [engine, main, other, row.engine_cpu_step_ms, row.floor_cpu_step_ms, ...(nodeFloor ? [row.node_floor_cpu_step_ms!] : [])].map((ms) => ms.toFixed(3).padStart(9)).join(''));
    }
    console.log('step ms: the engine\'s wall time per step of `width` sequences; JS ms: the engine thread\'s step less llama_decode and the wait for the device (step profile); eng/floor: engine tok/s over the C loop\'s' +
      (baseline ? `; base: the engine of ${baselineRef}` : ''));
    console.log('cpu µs/s-s: the engine process\'s CPU time (all threads) per sequence-step; floor cpu: the C loop\'s; cpu e/f: floor CPU over engine CPU per token (1: no host cost), the figure load disturbs least');
    if (nodeFloor) console.log('node/floor, cpu n/f: the C floor\'s loop run from Node (node fl.) against the C one, by wall and by CPU time (1: calling llama.cpp from Node costs nothing)');
    console.log('by thread: engine: the engine\'s thread (JavaScript and llama_decode); main: the engine\'s messages and the requests\' streams; other: V8\'s GC and compiler helpers, libuv\'s, ggml\'s with --threads > 1 (Linux /proc; NaN elsewhere)');
  }
} finally {
  for (const { side } of sides) await side.close();
  await floor?.dispose();
  await nodeFloor?.close();
  baseline?.remove();
}
