// `npm run bench:engine [-- --json] [--model PATH] [--reps 5] [--tokens 128] [--widths 1,4,16] [--threads N]`
// Decode tokens per second of the engine against the floor of overhead: llama_decode in a C
// loop (engine/decode-floor.c) over the same batch shapes, through the same prebuilt libllama,
// with no JavaScript between decodes. A third run, the same loop written in JavaScript over
// lmforge's bindings (koffi), gives the kernel-parity line: lmforge's calls into the library
// against C's, which should be equal within noise. All three use the engine's context shape
// and thread count, on the default model (pulled on first use), measured in turn (the order
// reversed every other repetition) so that load from elsewhere on the machine hits all alike.
// Each figure is the median over the repetitions; a ratio is the median of per-repetition
// ratios. The goal is engine/floor ≥ 0.9 at every width.
import { basename } from 'node:path';
import { Engine } from '../runtime/engine/client/engine.js';
import { BareDecoder, type DecodeRun } from './engine/bare-decode.js';
import { DecodeFloor } from './engine/decode-floor.js';
import { TILED_ATTENTION_TOKENS } from '../runtime/engine/worker/model-runner.js';
import { decodeBenchOptions } from './engine/decode-options.js';
import { engineDecode } from './engine/engine-decode.js';
import { median } from '../cli/serve-bench/percentile.js';

const { modelPath, widths, reps, maxTokens, json, threads } = await decodeBenchOptions('bench:engine', { reps: 5, widths: '1,4,16' });
const maxWidth = Math.max(...widths);

const engine = await Engine.create({ modelPath, device: 'cpu', mode: 'local', overrides: { max_num_sequence: maxWidth }, threads });
const config = engine.info.config;
// The same context as engine-worker.ts builds, so KV size and batch limits match.
const shape = {
  contextSize: config.maxTotalSeqLength,
  batchSize: config.prefillChunkSize + config.maxNumSequence,
  sequences: config.maxNumSequence,
  threads,
};
const bare = await BareDecoder.create(modelPath, shape);
// A short prompt, the same ids for all three; every sequence of a batch gets the same one.
const promptText = 'The history of the printing press begins in the fifteenth century, when';
const prompt = bare.tokenize(promptText);
const floor = await DecodeFloor.start(modelPath, shape, promptText);
const perSecond = (run: DecodeRun) => run.tokens / run.seconds;
// The engine decodes 64 streams or more of its one pool in smaller batches on a CPU, out of
// ggml's tiled attention (model-runner.ts): both loops decode the same batches.
const most = TILED_ATTENTION_TOKENS - 1;

// One untimed pass of each warms caches and the allocator.
await engineDecode(engine, prompt, maxWidth, 8);
await bare.decode(prompt, maxWidth, 8);
await floor.decode(maxWidth, 8);

type Side = 'engine' | 'bare' | 'floor';
const sides: Side[] = ['engine', 'bare', 'floor'];
const runs = new Map(widths.map((w) => [w, { engine: [] as number[], bare: [] as number[], floor: [] as number[], ratio: [] as number[], parity: [] as number[] }]));
for (let rep = 0; rep < reps; rep++) {
  for (const width of widths) {
    // One generated token comes from the prefill, so the engine decodes maxTokens - 1 steps.
    const measure: Record<Side, () => Promise<number>> = {
      engine: async () => perSecond(await engineDecode(engine, prompt, width, maxTokens)),
      bare: async () => perSecond(await bare.decode(prompt, width, maxTokens - 1, most)),
      floor: async () => perSecond(await floor.decode(width, maxTokens - 1, most)),
    };
    const got = {} as Record<Side, number>;
    for (const side of rep % 2 === 0 ? sides : [...sides].reverse()) got[side] = await measure[side]();
    const slot = runs.get(width)!;
    for (const side of sides) slot[side].push(got[side]);
    slot.ratio.push(got.engine / got.floor);
    slot.parity.push(got.bare / got.floor);
    if (!json) process.stderr.write(`rep ${rep + 1}/${reps} width ${width}: engine ${got.engine.toFixed(1)}, bindings loop ${got.bare.toFixed(1)}, C loop ${got.floor.toFixed(1)} tok/s\n`);
  }
}
const rows = widths.map((width) => {
  const slot = runs.get(width)!;
  return {
    width,
    engine_tokens_per_s: median(slot.engine),
    floor_tokens_per_s: median(slot.floor),
    bindings_tokens_per_s: median(slot.bare),
    ratio: median(slot.ratio),
    kernel_parity: median(slot.parity),
    // Each decode step reads every weight once, whatever the width.
    engine_weight_gb_per_s: (median(slot.engine) / width) * bare.modelBytes / 1e9,
    decode_steps: maxTokens - 1,
    reps,
    engine_runs: slot.engine,
    floor_runs: slot.floor,
    bindings_runs: slot.bare,
    threads,
    model: basename(modelPath),
  };
});

await engine.dispose();
await bare.dispose();
await floor.dispose();

if (json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  console.log(`\ndecode tokens/s, ${basename(modelPath)}, cpu, ${threads} threads, ${maxTokens - 1} decode steps per sequence, median of ${reps}`);
  console.log(`${'width'.padEnd(8)}${'engine'.padStart(10)}${'C loop'.padStart(10)}${'ratio'.padStart(8)}${'JS loop'.padStart(10)}${'parity'.padStart(8)}${'weights GB/s'.padStart(14)}`);
  for (const row of rows) {
    const cells = [
      row.engine_tokens_per_s.toFixed(1).padStart(10), row.floor_tokens_per_s.toFixed(1).padStart(10), row.ratio.toFixed(3).padStart(8),
      row.bindings_tokens_per_s.toFixed(1).padStart(10), row.kernel_parity.toFixed(3).padStart(8), row.engine_weight_gb_per_s.toFixed(2).padStart(14),
    ];
    console.log(`${String(row.width).padEnd(8)}${cells.join('')}`);
  }
  console.log('ratio: engine / C loop (the floor of overhead); parity: the same loop over lmforge\'s bindings / C loop (kernel parity, ≈ 1);');
  console.log('each the median over repetitions of ratios measured back to back; weights GB/s: engine steps per second × model size');
}
