// `npm run bench:speculative [-- --json] [--device cpu|cuda] [--model PATH] [--draft PATH] [--heads PATH] [--additional-models PATH] [--reps 3] [--tokens 192] [--widths 1,4] [--modes ngram] [--workloads rewrite,json,chat]`
// Speculative decoding against none, through the real engine on the default model: for each
// workload, drafter and width (concurrent requests), output tokens per second (tokens after
// each request's first, over the time from the first first-token to the last finish) and the
// mean tokens committed per decode step of a sequence (1 + accepted drafts). Workloads:
//   rewrite  rewrite a given ~300-word text with a few small edits (prompt lookup copies it)
//   predicted  the same, each request carrying the original text as its prediction (Predicted Outputs)
//   json     a JSON schema with long keys and long enum values (forced text is drafted)
//   chat     free questions (drafts rarely match: adaptive drafting must keep out of the way)
// Engines with and without speculation are loaded side by side and run interleaved (off, on,
// on, off, ...), greedy, so both produce the same tokens and the ratio compares like with like.
// Goals (issue 13): ≥ 1.8× on rewrite, ≥ 1.5× on json, never below 0.95× on chat.
// `--mode medusa` (issue 14) uses heads from `lmforge train-heads` (--heads PATH, else the ones
// cached under $LMFORGE_HOME/heads, trained there once when missing) and adds each draft
// position's acceptance (position k is head k's) and the time of a sequence's step with and
// without drafts, so that speed = tokens per step / (step time on / step time off) can be read
// off: the goal is ≥ 1.5× on chat at width 1. `--mode eagle` needs an EAGLE-3 draft for the
// model (--additional-models EAGLE3.gguf, llama.cpp's eagle3 GGUF); none exists for the default
// model, so it runs on a model given with --model (the tiny fixture and its draft, for one).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cac } from 'cac';
import { ChatTemplate } from '../runtime/chat-format/chat-template.js';
import { Engine } from '../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../runtime/engine/protocol.js';
import type { SpeculativeMode } from '../runtime/engine/speculative-modes.js';
import { lmforgeHome } from '../runtime/lmforge-home.js';
import { pullModel } from '../runtime/models/pull-model.js';
import { median } from '../cli/serve-bench/percentile.js';
import { WORKLOADS, type Workload } from './speculative/workloads.js';
import { partingIndex } from './compare/parting-index.js';

const cli = cac('bench:speculative');
cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
// The device both engines decode on. Until 2026-11-30 this bench always decoded on the CPU, also
// in the GPU kit: its rows from the H100 and H200 runs are that machine's CPU, not the card.
cli.option('--device <spec>', 'cpu, or cuda (all layers on the card)', { default: 'cpu' });
cli.option('--reps <n>', 'Interleaved repetitions', { default: 3 });
cli.option('--tokens <n>', 'Most tokens per request', { default: 192 });
cli.option('--widths <list>', 'Concurrent requests, comma-separated', { default: '1,4' });
cli.option('--modes <list>', 'Drafters to compare with speculation off (ngram, small_draft, eagle, medusa)', { default: 'ngram' });
cli.option('--mode <list>', 'Same as --modes');
cli.option('--heads <path>', 'Medusa heads GGUF for medusa (default: $LMFORGE_HOME/heads/MODEL.medusa.gguf, trained once if missing)');
cli.option('--draft <path>', 'Draft model GGUF for small_draft (same vocabulary as --model)');
cli.option('--additional-models <path>', 'EAGLE-3 draft GGUF for eagle (made for --model); also accepted for small_draft and medusa');
cli.option('--workloads <list>', 'Workloads, comma-separated', { default: Object.keys(WORKLOADS).join(',') });
cli.option('--threads <n>', 'CPU threads for both engines (default: adaptive)');
cli.option('--draft-length <k>', 'spec_draft_length for the speculative engines (default: chosen per sequence)');
cli.option('--json', 'One JSON object per row instead of the table');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);
const reps = Number(options.reps);
const maxTokens = Number(options.tokens);
const widths = String(options.widths).split(',').map(Number);
const modes = String(options.mode ?? options.modes).split(',') as SpeculativeMode[];
const workloads = String(options.workloads).split(',').map((name) => {
  const workload = WORKLOADS[name];
  if (!workload) throw new Error(`unknown workload '${name}': use ${Object.keys(WORKLOADS).join(', ')}`);
  return [name, workload] as const;
});
const modelPath = typeof options.model === 'string' ? options.model : await pullModel();
const threads = options.threads === undefined ? {} : { threads: Number(options.threads) };
const json = options.json === true;

const maxWidth = Math.max(...widths);
const engines = new Map<SpeculativeMode, Engine>();
for (const mode of ['disable', ...modes] as SpeculativeMode[]) {
  const additional = typeof options.additionalModels === 'string' ? options.additionalModels : undefined;
  if (mode === 'small_draft' && typeof options.draft !== 'string' && !additional) throw new Error('--modes small_draft needs --draft PATH');
  if (mode === 'eagle' && !additional) throw new Error('--mode eagle needs --additional-models EAGLE3.gguf made for --model (no EAGLE-3 draft exists for the default model: convert a published one with llama.cpp\'s convert_hf_to_gguf.py)');
  const draft = mode === 'small_draft' ? { draftModelPath: String(options.draft ?? additional) } : mode === 'medusa' ? { draftModelPath: medusaHeads() } : mode === 'eagle' ? { draftModelPath: additional! } : {};
  const fixed = mode !== 'disable' && options.draftLength !== undefined ? { spec_draft_length: Number(options.draftLength) } : {};
  engines.set(mode, await Engine.create({ modelPath, device: String(options.device), mode: 'local', overrides: { max_num_sequence: maxWidth, context_window_size: 2048, prefix_cache_max_num_recycling_seqs: 0, ...fixed }, speculativeMode: mode, ...draft, ...threads }));
}
const info = engines.get('disable')!.info;

/** The heads for medusa: given, cached, or trained now (once) with lmforge train-heads. */
function medusaHeads(): string {
  if (typeof options.heads === 'string') return options.heads;
  if (typeof options.additionalModels === 'string') return options.additionalModels;
  const cached = join(lmforgeHome(), 'heads', `${basename(modelPath).replace(/\.gguf$/i, '')}.medusa.gguf`);
  if (!existsSync(cached)) {
    process.stderr.write(`bench:speculative: no Medusa heads at ${cached}: training them with lmforge train-heads (once)\n`);
    const lmforge = join(import.meta.dirname, '..', 'bin', 'lmforge.mjs');
    execFileSync(process.execPath, [lmforge, 'train-heads', modelPath, '--out', cached], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return cached;
}
const template = new ChatTemplate(info.chatTemplate, { bos: info.bosText, eos: info.eosText });

interface Run {
  tokens: number;
  seconds: number;
  steps: number;
  output: string[];
  /** Each request's output token ids, to find where two runs part. */
  outputTokens: number[][];
}

/** `width` requests at once; the window runs from the first first token to the last finish. */
async function measure(engine: Engine, requests: GenerateRequest[]): Promise<Run> {
  let windowStart = Infinity;
  let end = 0;
  let tokens = 0;
  let steps = 0;
  const output: string[] = [];
  const outputTokens: number[][] = [];
  await Promise.all(
    requests.map(async (request, i) => {
      let first = true;
      let text = '';
      const ids: number[] = [];
      for await (const event of engine.generate(request)) {
        if (event.type !== 'delta' || event.tokens.length === 0) continue;
        text += event.text;
        ids.push(...event.tokens);
        if (first) {
          windowStart = Math.min(windowStart, performance.now());
          first = false;
          tokens += event.tokens.length - 1;
          continue;
        }
        tokens += event.tokens.length;
        steps++;
      }
      end = Math.max(end, performance.now());
      output[i] = text;
      outputTokens[i] = ids;
    }),
  );
  return { tokens, seconds: (end - windowStart) / 1000, steps, output, outputTokens };
}

/**
 * The requests of one run: round r takes the workload's prompts from r × width on, so each
 * run asks what the runs before it did not (where the workload has prompts enough) and no
 * drafter profits from having seen the very same request (forced spellings are remembered
 * across requests; a repeated request would replay them whole).
 */
async function requestsFor(workload: Workload, width: number, engine: Engine, round: number): Promise<GenerateRequest[]> {
  const grammar = workload.schema ? await engine.compileGrammar({ kind: 'json_schema', schema: workload.schema }) : undefined;
  return Array.from({ length: width }, (_, i) => {
    const prompt = template.render([{ role: 'user', content: workload.prompts[(round * width + i) % workload.prompts.length]! }]);
    return { prompt, maxTokens, sampling: { temperature: 0 }, ...(grammar ? { grammar } : {}), ...(workload.prediction !== undefined ? { prediction: workload.prediction } : {}) };
  });
}

interface Row {
  workload: string;
  mode: SpeculativeMode;
  /** Where both engines decoded (--device). */
  device: string;
  width: number;
  off_tokens_per_second: number;
  on_tokens_per_second: number;
  ratio: number;
  ratio_min: number;
  ratio_max: number;
  tokens_per_step: number;
  /** Draft tokens proposed per sequence step, and the share of them the target accepted. */
  drafted_per_step: number;
  acceptance: number;
  /** By draft position (medusa: by head), the share of proposals there that were accepted. */
  acceptance_by_position: number[];
  /** Time of one sequence step (ms), speculation off and on, and what one drafted position added, relative to a plain step. */
  step_ms_off: number;
  step_ms_on: number;
  cost_per_drafted_position: number;
  same_output: boolean;
  /** Requests compared between the runs with speculation off and on, and how many of them parted. */
  outputs_compared: number;
  outputs_parted: number;
  /** For each output that parted, the index of the first token that differs. */
  parted_at: number[];
}


// Once before any row, every engine decodes the first workload at the widest width: on the
// H200 (2026-11-30) the first row's `off` rounds ran 1.5× slower per step than the same prompts'
// later in the run, though each row warms up with a round of its own.
{
  const [, first] = workloads[0]!;
  const requests = await requestsFor(first, Math.max(...widths), engines.get('disable')!, 0);
  for (const engine of engines.values()) await measure(engine, requests);
}

const rows: Row[] = [];
for (const [name, workload] of workloads) {
  for (const width of widths) {
    for (const mode of modes) {
      const off = engines.get('disable')!;
      const on = engines.get(mode)!;
      const warmUp = await requestsFor(workload, width, off, 0);
      await measure(off, warmUp); // warm both: first requests pay for page faults and grammar masks
      await measure(on, warmUp);
      const offRates: number[] = [];
      const onRates: number[] = [];
      const perStep: number[] = [];
      const partedAt: number[] = [];
      let compared = 0;
      const statsBefore = await on.stats();
      let onSteps = 0;
      let offSteps = 0;
      let [offSeconds, onSeconds] = [0, 0];
      for (let rep = 0; rep < reps; rep++) {
        const order = rep % 2 === 0 ? [off, on] : [on, off];
        const requests = await requestsFor(workload, width, off, rep + 1);
        const runs = new Map<Engine, Run>();
        for (const engine of order) runs.set(engine, await measure(engine, requests));
        const a = runs.get(off)!;
        const b = runs.get(on)!;
        offRates.push(a.tokens / a.seconds);
        onRates.push(b.tokens / b.seconds);
        perStep.push(b.tokens / b.steps);
        onSteps += b.steps;
        offSteps += a.steps;
        offSeconds += a.seconds;
        onSeconds += b.seconds;
        a.outputTokens.forEach((ids, i) => {
          compared++;
          const at = partingIndex(ids, b.outputTokens[i]!);
          if (at >= 0) partedAt.push(at);
        });
      }
      const ratios = onRates.map((rate, i) => rate / offRates[i]!);
      const statsAfter = await on.stats();
      const drafted = statsAfter.draftTokens - statsBefore.draftTokens;
      const accepted = statsAfter.acceptedDraftTokens - statsBefore.acceptedDraftTokens;
      const positions = statsAfter.draftPositions.proposed.map((count, k) => {
        const proposed = count - (statsBefore.draftPositions.proposed[k] ?? 0);
        const taken = (statsAfter.draftPositions.accepted[k] ?? 0) - (statsBefore.draftPositions.accepted[k] ?? 0);
        return proposed > 0 ? taken / proposed : 0;
      });
      // A sequence's step: the run's time over the steps each of its `width` sequences took.
      const stepOff = (1000 * offSeconds * width) / Math.max(1, offSteps);
      const stepOn = (1000 * onSeconds * width) / Math.max(1, onSteps);
      const row: Row = {
        workload: name,
        mode,
        device: String(options.device),
        width,
        off_tokens_per_second: median(offRates),
        on_tokens_per_second: median(onRates),
        ratio: median(ratios),
        ratio_min: Math.min(...ratios),
        ratio_max: Math.max(...ratios),
        tokens_per_step: median(perStep),
        drafted_per_step: drafted / onSteps,
        acceptance: drafted > 0 ? accepted / drafted : 0,
        acceptance_by_position: positions,
        step_ms_off: stepOff,
        step_ms_on: stepOn,
        cost_per_drafted_position: drafted > 0 ? (stepOn / stepOff - 1) / (drafted / onSteps) : 0,
        same_output: partedAt.length === 0,
        outputs_compared: compared,
        outputs_parted: partedAt.length,
        parted_at: partedAt,
      };
      const same = partedAt.length === 0;
      rows.push(row);
      if (json) console.log(JSON.stringify(row));
      else {
        console.log(
          `${name.padEnd(8)} ${mode.padEnd(11)} width ${String(width).padStart(2)}  off ${row.off_tokens_per_second.toFixed(1).padStart(6)} tok/s  on ${row.on_tokens_per_second.toFixed(1).padStart(6)} tok/s  ` +
            `ratio ${row.ratio.toFixed(2)} (${row.ratio_min.toFixed(2)}–${row.ratio_max.toFixed(2)})  tokens/step ${row.tokens_per_step.toFixed(2)}  drafted/step ${row.drafted_per_step.toFixed(2)}  accepted ${(100 * row.acceptance).toFixed(0)}%  same output: ${same ? 'yes' : `NO (${partedAt.length} of ${compared} parted, at tokens ${partedAt.join(', ')})`}`,
        );
        if (mode === 'medusa' || mode === 'eagle') {
          console.log(
            `         by position ${positions.map((a) => `${(100 * a).toFixed(0)}%`).join(' ')}  step ${stepOff.toFixed(1)} ms off, ${stepOn.toFixed(1)} ms on: ` +
              `${row.tokens_per_step.toFixed(2)} tokens/step / ${(stepOn / stepOff).toFixed(2)} step cost = ${(row.tokens_per_step / (stepOn / stepOff)).toFixed(2)}×, ` +
              `each drafted position costing ${(100 * row.cost_per_drafted_position).toFixed(0)}% of a plain step`,
          );
        }
      }
    }
  }
}
if (!json) {
  console.log('goals (issue 13): rewrite ≥ 1.8×, json ≥ 1.5×, chat never below 0.95×; "same output: NO" means the quantized');
  console.log('model rounded differently in another batch shape (see README), not that a draft changed a choice');
  if (modes.includes('small_draft')) console.log('small_draft: no real draft/target pair is available on these machines; a fixture pair shows acceptance, not speed');
}
for (const engine of engines.values()) await engine.dispose();
