// `npm run bench:contention [-- --json] [--model PATH] [--reps 5] [--tokens 128] [--width 1] [--settings default,1,old]`
// Decode tokens per second of the engine on a quiet machine and beside one busy process (a
// child spinning on one CPU, bounded in time and killed after each measurement), for each
// thread setting:
//   default  no --threads: up to every usable CPU, fewer while other processes are busy
//   N        --threads N, used as given (1 is the usual advice for shared machines)
//   old      every CPU, fixed: what lmforge did before the thread governor
// Each measurement follows 2.5 s of untimed decoding in the same conditions, so it shows the
// steady state (the governor drops threads at its next look, every 250 ms, and climbs back
// after 2 s of free CPUs). Settings and conditions are
// interleaved in every repetition, so drifting load from elsewhere hits all of them alike;
// figures are medians with their range, ratios medians of per-repetition ratios. Goals: the
// default keeps ≥ 0.5 of its quiet speed under contention, and its quiet speed is within 5%
// of the old setting's.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cac } from 'cac';
import { CpuLoadSampler, usableCpus } from '../runtime/backend/cpu-load.js';
import { Engine } from '../runtime/engine/client/engine.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { engineDecode } from './engine/engine-decode.js';
import { median } from '../cli/serve-bench/percentile.js';

const cli = cac('bench:contention');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
cli.option('--reps <n>', 'Repetitions of each measurement', { default: 5 });
cli.option('--tokens <n>', 'Tokens generated per sequence (the first comes from the prefill)', { default: 128 });
cli.option('--width <n>', 'Concurrent sequences', { default: 1 });
cli.option('--settings <list>', 'Thread settings, comma-separated: default, old, or a thread count', { default: 'default,1,old' });
cli.option('--json', 'One JSON object per setting instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const reps = Number(options.reps);
const maxTokens = Number(options.tokens);
const width = Number(options.width);
const settings = String(options.settings).split(',');
if (!(reps >= 1) || !(maxTokens >= 2) || !Number.isInteger(width) || width < 1 || !settings.every((s) => s === 'default' || s === 'old' || /^[1-9]\d*$/.test(s))) {
  console.error('bench:contention: --reps ≥ 1, --tokens ≥ 2, --width ≥ 1, --settings from default, old and thread counts');
  process.exit(1);
}
const json = options.json === true;
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();
const cpus = availableParallelism();

const label = (setting: string) => (setting === 'default' ? `default (≤${usableCpus()}, adaptive)` : setting === 'old' ? `--threads ${cpus} (old default)` : `--threads ${setting}`);
const threadsFor = (setting: string) => (setting === 'default' ? undefined : setting === 'old' ? cpus : Number(setting));

// One engine per setting, all loaded up front, each with a small context.
const engines = new Map<string, Engine>();
for (const setting of settings) {
  const threads = threadsFor(setting);
  engines.set(
    setting,
    await Engine.create({
      modelPath,
      device: 'cpu',
      mode: 'local',
      overrides: { max_num_sequence: width, context_window_size: 1024 },
      ...(threads === undefined ? {} : { threads }),
    }),
  );
}

let busy: ChildProcess | undefined;
const stopBusy = () => {
  busy?.kill('SIGKILL');
  busy = undefined;
};
process.on('exit', stopBusy);
process.on('SIGINT', () => process.exit(130));

/** A process spinning on one CPU for at most two minutes. */
async function startBusy(): Promise<void> {
  busy = spawn(process.execPath, ['-e', 'const end = Date.now() + 120000; while (Date.now() < end) {}'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => busy!.once('spawn', resolve).once('error', reject));
}

const prompt = 'The history of the printing press begins in the fifteenth century, when';

/** Untimed decoding for `ms`, so thread counts settle to the conditions. */
async function settle(engine: Engine, ms: number): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    while (!controller.signal.aborted) {
      for await (const _ of engine.generate({ prompt, maxTokens: 512, ignoreEos: true, sampling: { temperature: 0 } }, controller.signal)) {
        // decoding is the point
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

const load = CpuLoadSampler.create();
async function measure(engine: Engine): Promise<{ tokensPerSecond: number; othersCores: number | undefined }> {
  await settle(engine, 2500);
  load?.reset();
  const run = await engineDecode(engine, prompt, width, maxTokens);
  return { tokensPerSecond: run.tokens / run.seconds, othersCores: load?.sample()?.othersCores };
}

/** Cost of one look at the load (what the governor adds to a decode, at most every 250 ms). */
function lookMicros(): number | undefined {
  if (!load) return undefined;
  const looks = 2000;
  const start = performance.now();
  for (let i = 0; i < looks; i++) load.sample();
  return ((performance.now() - start) * 1000) / looks;
}
const lookCost = lookMicros();

// Warm caches and allocators once per engine.
for (const engine of engines.values()) await engineDecode(engine, prompt, width, 8);

const results = new Map(settings.map((s) => [s, { quiet: [] as number[], contended: [] as number[], ratio: [] as number[], quietLoad: [] as number[], contendedLoad: [] as number[] }]));
for (let rep = 0; rep < reps; rep++) {
  const order = rep % 2 === 0 ? settings : [...settings].reverse();
  for (const setting of order) {
    const engine = engines.get(setting)!;
    const slot = results.get(setting)!;
    const quiet = await measure(engine);
    await startBusy();
    let contended: Awaited<ReturnType<typeof measure>>;
    try {
      contended = await measure(engine);
    } finally {
      stopBusy();
    }
    slot.quiet.push(quiet.tokensPerSecond);
    slot.contended.push(contended.tokensPerSecond);
    slot.ratio.push(contended.tokensPerSecond / quiet.tokensPerSecond);
    if (quiet.othersCores !== undefined) slot.quietLoad.push(quiet.othersCores);
    if (contended.othersCores !== undefined) slot.contendedLoad.push(contended.othersCores);
    if (!json) {
      process.stderr.write(
        `rep ${rep + 1}/${reps} ${label(setting)}: quiet ${quiet.tokensPerSecond.toFixed(1)} tok/s, contended ${contended.tokensPerSecond.toFixed(1)} tok/s` +
          (quiet.othersCores !== undefined ? ` (others used ${quiet.othersCores.toFixed(2)} / ${contended.othersCores?.toFixed(2)} CPUs)` : '') +
          '\n',
      );
    }
  }
}
for (const engine of engines.values()) await engine.dispose();

const old = results.get('old');
const rows = settings.map((setting) => {
  const slot = results.get(setting)!;
  return {
    setting,
    label: label(setting),
    quiet_tokens_per_s: median(slot.quiet),
    contended_tokens_per_s: median(slot.contended),
    contended_over_quiet: median(slot.ratio),
    // Per repetition, this setting's quiet speed over the old setting's, measured in the same repetition.
    quiet_over_old: old ? median(slot.quiet.map((q, i) => q / old.quiet[i]!)) : null,
    quiet_runs: slot.quiet,
    contended_runs: slot.contended,
    others_cpus_quiet: slot.quietLoad.length ? median(slot.quietLoad) : null,
    others_cpus_contended: slot.contendedLoad.length ? median(slot.contendedLoad) : null,
    width,
    decode_steps: maxTokens - 1,
    reps,
    cpus,
    model: basename(modelPath),
    look_microseconds: lookCost ?? null,
  };
});

if (json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  const spread = (runs: number[]) => `${median(runs).toFixed(1)} (${Math.min(...runs).toFixed(1)}–${Math.max(...runs).toFixed(1)})`;
  console.log(`\ndecode tokens/s, ${basename(modelPath)}, width ${width}, ${maxTokens - 1} decode steps, ${cpus} CPUs, one busy process beside it; median (range) of ${reps}`);
  console.log(`${'setting'.padEnd(30)}${'quiet'.padStart(20)}${'contended'.padStart(20)}${'cont/quiet'.padStart(12)}${'quiet/old'.padStart(11)}${'others CPUs'.padStart(14)}`);
  for (const row of rows) {
    const slot = results.get(row.setting)!;
    const others = row.others_cpus_quiet === null ? '' : `${row.others_cpus_quiet.toFixed(2)}/${row.others_cpus_contended?.toFixed(2)}`;
    console.log(
      `${row.label.padEnd(30)}${spread(slot.quiet).padStart(20)}${spread(slot.contended).padStart(20)}${row.contended_over_quiet.toFixed(2).padStart(12)}` +
        `${(row.quiet_over_old === null ? '' : row.quiet_over_old.toFixed(2)).padStart(11)}${others.padStart(14)}`,
    );
  }
  console.log('others CPUs: CPU time other processes took during the quiet/contended runs (the busy child included), median');
  if (lookCost !== undefined) console.log(`the governor's look at /proc: ${lookCost.toFixed(0)} µs, at most one per 250 ms of decoding (${((lookCost / 250_000) * 100).toFixed(3)}%)`);
  console.log('goals: default cont/quiet ≥ 0.5; default quiet/old ≥ 0.95');
}
