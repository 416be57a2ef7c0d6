// The draw is an exponential race so that a seeded choice survives the tiny numeric noise that
// batching adds to logits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exponentialRace, raceUniform } from '../../runtime/sampling/exponential-race.js';
import { SamplingScratch, SeededRng, TokenSampler, defaultSamplingParams } from '../../runtime/sampling/index.js';

const test = suite('exponential race');

test('race uniforms lie in (0, 1) and look uniform', () => {
  const buckets = new Array(10).fill(0);
  for (let id = 0; id < 100_000; id++) {
    const u = raceUniform(id, 0x12345678, 0x9abcdef0);
    assert.ok(u > 0 && u < 1);
    buckets[Math.floor(u * 10)]++;
  }
  for (const count of buckets) assert.ok(Math.abs(count - 10_000) < 500, buckets.join(','));
});

test('the winner follows the masses', () => {
  const mass = Float64Array.of(1, 0, 3, 6);
  const counts = [0, 0, 0, 0];
  const rng = new SeededRng(3);
  for (let i = 0; i < 20_000; i++) counts[exponentialRace(mass, 4, rng.nextUint32(), rng.nextUint32())]!++;
  assert.is(counts[1], 0, 'a token of mass 0 never wins');
  for (const [i, p] of [[0, 0.1], [2, 0.3], [3, 0.6]] as const) assert.ok(Math.abs(counts[i]! / 20_000 - p) < 0.015, counts.join(','));
  const kept = Uint32Array.of(0b0101);
  for (let i = 0; i < 100; i++) assert.ok([0, 2].includes(exponentialRace(mass, 4, i, i * 7, kept)), 'only kept ids win');
});

test('with a kept set the winner is the full race\'s over the kept ids alone (its bits walked, ids past the vocabulary ignored)', () => {
  const rng = new SeededRng(29);
  for (let trial = 0; trial < 2_000; trial++) {
    const size = 1 + (rng.nextUint32() % 200);
    const mass = new Float64Array(size);
    for (let i = 0; i < size; i++) mass[i] = rng.nextFloat() < 0.2 ? 0 : rng.nextFloat() ** 4;
    // Some sets dense, some sparse, and bits set past `size` in the last word.
    const density = rng.nextFloat();
    const kept = new Uint32Array(((size + 31) >>> 5) + 1);
    const masked = new Float64Array(size);
    for (let id = 0; id < kept.length * 32; id++) {
      if (rng.nextFloat() >= density) continue;
      kept[id >>> 5]! |= 1 << (id & 31);
      if (id < size) masked[id] = mass[id]!;
    }
    const key1 = rng.nextUint32();
    const key2 = rng.nextUint32();
    assert.is(exponentialRace(mass, size, key1, key2, kept), exponentialRace(masked, size, key1, key2), `trial ${trial}`);
  }
});

test('a seeded draw from a flat 50k distribution survives relative logit noise of 1e-3 (an inverse-CDF walk flips about 65 of these 300)', () => {
  const size = 50_000;
  const scratch = new SamplingScratch(size);
  const noise = new SeededRng(11);
  let flips = 0;
  const trials = 300;
  for (let trial = 0; trial < trials; trial++) {
    const logits = new Float32Array(size);
    for (let i = 0; i < size; i++) logits[i] = noise.nextFloat() * 0.5 - 6;
    const jittered = logits.map((x) => x * (1 + (noise.nextFloat() - 0.5) * 2e-3));
    const params = { ...defaultSamplingParams, temperature: 1.2, topP: 1 };
    const a = new TokenSampler(params, size, new SeededRng(trial), scratch).sample(logits).token;
    const b = new TokenSampler(params, size, new SeededRng(trial), scratch).sample(jittered).token;
    if (a !== b) flips++;
  }
  assert.ok(flips <= 3, `${flips} of ${trials} seeded draws changed under 1e-3 noise`);
});

test.run();
