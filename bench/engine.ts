// `npm run bench:engine [-- --json] [--model PATH] [--reps 5] [--tokens 128] [--widths 1,4,16]`
// Decode tokens per second of the engine beside a bare llama_decode loop over the same batch
// shapes, on the default model (pulled on first use), both in this process and measured
// alternately so that load from elsewhere on the machine hits both alike. Each figure is the
// median over the repetitions; the ratio is the median of the per-repetition ratios, each
// taken between two runs measured back to back. The goal is a ratio ≥ 0.9 at every width.
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { Engine } from '../runtime/engine/engine.js';
import { BareDecoder, type DecodeRun } from './engine/bare-decode.js';
import { decodeBenchOptions } from './engine/decode-options.js';
import { engineDecode } from './engine/engine-decode.js';
import { median } from './serve/percentile.js';

const { modelPath, widths, reps, maxTokens, json } = await decodeBenchOptions('bench:engine', { reps: 5, widths: '1,4,16' });
const maxWidth = Math.max(...widths);
const threads = availableParallelism();

const engine = await Engine.create({ modelPath, device: 'cpu', mode: 'local', overrides: { max_num_sequence: maxWidth }, threads });
const config = engine.info.config;
// The same context as engine-worker.ts builds, so KV size and batch limits match.
const bare = await BareDecoder.create(modelPath, {
  contextSize: config.maxTotalSeqLength,
  batchSize: config.prefillChunkSize + config.maxNumSequence,
  sequences: config.maxNumSequence,
  threads,
});
// A short prompt, the same ids for both; every sequence of a batch gets the same one.
const prompt = bare.tokenize('The history of the printing press begins in the fifteenth century, when');
const perSecond = (run: DecodeRun) => run.tokens / run.seconds;

// One untimed pass of each warms caches and the allocator.
await engineDecode(engine, prompt, maxWidth, 8);
await bare.decode(prompt, maxWidth, 8);

const runs = new Map(widths.map((w) => [w, { engine: [] as number[], bare: [] as number[], ratio: [] as number[] }]));
for (let rep = 0; rep < reps; rep++) {
  for (const width of widths) {
    const measureEngine = async () => perSecond(await engineDecode(engine, prompt, width, maxTokens));
    // One generated token comes from the prefill, so the engine decodes maxTokens - 1 steps.
    const measureBare = async () => perSecond(await bare.decode(prompt, width, maxTokens - 1));
    // Alternate which goes first, so a drift in machine load does not favour one side.
    let e: number;
    let b: number;
    if (rep % 2 === 0) {
      e = await measureEngine();
      b = await measureBare();
    } else {
      b = await measureBare();
      e = await measureEngine();
    }
    const slot = runs.get(width)!;
    slot.engine.push(e);
    slot.bare.push(b);
    slot.ratio.push(e / b);
    if (!json) process.stderr.write(`rep ${rep + 1}/${reps} width ${width}: engine ${e.toFixed(1)} tok/s, bare ${b.toFixed(1)} tok/s\n`);
  }
}
const rows = widths.map((width) => {
  const slot = runs.get(width)!;
  return {
    width,
    engine_tokens_per_s: median(slot.engine),
    bare_tokens_per_s: median(slot.bare),
    ratio: median(slot.ratio),
    // Each decode step reads every weight once, whatever the width.
    engine_weight_gb_per_s: (median(slot.engine) / width) * bare.modelBytes / 1e9,
    decode_steps: maxTokens - 1,
    reps,
    engine_runs: slot.engine,
    bare_runs: slot.bare,
    threads,
    model: basename(modelPath),
  };
});

await engine.dispose();
await bare.dispose();

if (json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  console.log(`\ndecode tokens/s, ${basename(modelPath)}, cpu, ${threads} threads, ${maxTokens - 1} decode steps per sequence, median of ${reps}`);
  console.log(`${'width'.padEnd(8)}${'engine'.padStart(10)}${'bare'.padStart(10)}${'ratio'.padStart(8)}${'weights GB/s'.padStart(14)}`);
  for (const row of rows) {
    const cells = [row.engine_tokens_per_s.toFixed(1).padStart(10), row.bare_tokens_per_s.toFixed(1).padStart(10), row.ratio.toFixed(3).padStart(8), row.engine_weight_gb_per_s.toFixed(2).padStart(14)];
    console.log(`${String(row.width).padEnd(8)}${cells.join('')}`);
  }
  console.log('ratio: median over repetitions of engine/bare measured back to back; weights GB/s: engine steps per second × model size');
}
