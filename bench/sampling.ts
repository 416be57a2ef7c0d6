// Micro-benchmark of TokenSampler.sample on model-sized logits. Usage: npx tsx bench/sampling.ts
// Reports µs per sample beside a reference measured in the same run: one plain pass over the
// logits (copy to float64 + max), the least any sampler must do.
import {
  SamplingScratch,
  SeededRng,
  TokenSampler,
  defaultSamplingParams,
  type SamplingParams,
} from '../runtime/sampling/index.js';

function modelLikeLogits(size: number, seed: number): Float32Array {
  const rng = new SeededRng(seed);
  const logits = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    const bulk = (rng.nextFloat() + rng.nextFloat() + rng.nextFloat() - 1.5) * 6;
    logits[i] = bulk + (rng.nextFloat() < 0.001 ? 12 * rng.nextFloat() : 0);
  }
  return logits;
}

/**
 * Fastest round's mean µs per call, after a warm-up. The minimum rather than the median: other
 * processes on the machine only ever add time.
 */
function measure(fn: () => void, calls: number): number {
  for (let i = 0; i < calls; i++) fn();
  let best = Infinity;
  for (let r = 0; r < 15; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000 / calls);
  }
  return best;
}

const cases: [string, Partial<SamplingParams>][] = [
  ['greedy', { temperature: 0 }],
  ['temperature 0.8 + top_p 0.9', { temperature: 0.8, topP: 0.9 }],
  ['logprobs, top 20 (T 1)', { logprobs: true, topLogprobs: 20 }],
  // typical_p ranks every survivor (radix-order.ts): with nothing truncating before it, the whole vocabulary.
  ['temperature 0.8 + typical_p 0.9', { temperature: 0.8, typicalP: 0.9 }],
];

for (const size of [49_152, 151_936]) {
  const logits = modelLikeLogits(size, size);
  const scratch = new SamplingScratch(size);
  const calls = size > 100_000 ? 40 : 100;
  const copy = scratch.logits;
  let sink = 0;
  const floor = measure(() => {
    copy.set(logits);
    let max = -Infinity;
    for (let i = 0; i < size; i++) if (copy[i]! > max) max = copy[i]!;
    sink += max;
  }, calls);
  console.log(`vocabulary ${size}  (reference: copy + max pass ${floor.toFixed(1)} µs)`);
  for (const [name, params] of cases) {
    const sampler = new TokenSampler({ ...defaultSamplingParams, ...params }, size, new SeededRng(1), scratch);
    const us = measure(() => {
      sink += sampler.sample(logits).token;
    }, calls);
    console.log(`  ${name.padEnd(30)} ${us.toFixed(1).padStart(7)} µs/sample  (${(us / floor).toFixed(1)}× reference)`);
  }
  if (sink === 0.5) console.log(''); // keep the work observable
}
