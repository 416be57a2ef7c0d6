import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  SamplingError,
  SamplingScratch,
  SeededRng,
  TokenSampler,
  defaultSamplingParams,
  type SamplingParams,
} from '../../runtime/sampling/index.js';
import { argmax, logSoftmax, logSumExp, nucleusOracle, randomLogits, softmax } from './oracle.js';
import { chiSquare } from '../helpers/chi-square.js';
import { exponentialRace } from '../../runtime/sampling/exponential-race.js';
import { expNonPositive } from '../../runtime/sampling/fast-exp.js';

function sampler(params: Partial<SamplingParams>, size: number, seed = 1, stream = 0): TokenSampler {
  return new TokenSampler(
    { ...defaultSamplingParams, ...params },
    size,
    new SeededRng(seed, stream),
    new SamplingScratch(size),
  );
}

/** A bitmask allowing exactly the tokens for which `allow` is true. */
function bitmask(size: number, allow: (token: number) => boolean): Uint32Array {
  const mask = new Uint32Array(Math.ceil(size / 32));
  for (let i = 0; i < size; i++) if (allow(i)) mask[i >>> 5]! |= 1 << (i & 31);
  return mask;
}

const isSamplingError = (e: unknown) => e instanceof SamplingError;


test('temperature 0 is argmax, ties to the lowest id', () => {
  for (const size of [5, 1000, 49_152]) {
    for (let trial = 0; trial < 5; trial++) {
      const logits = randomLogits(size, size + trial);
      assert.is(sampler({ temperature: 0 }, size).sample(logits).token, argmax(logits));
    }
  }
  const tied = Float32Array.of(0, 3, 1, 3, 3);
  assert.is(sampler({ temperature: 0 }, 5).sample(tied).token, 1);
});

test('temperature → 0 converges to greedy (and a denormal temperature does not produce NaN)', () => {
  const logits = randomLogits(1000, 42);
  const best = argmax(logits);
  const s = sampler({ temperature: 1e-3 }, 1000, 9);
  for (let i = 0; i < 200; i++) assert.is(s.sample(logits).token, best);
  const tiny = sampler({ temperature: 5e-324, logprobs: true }, 1000, 9).sample(logits);
  assert.is(tiny.token, best);
  assert.ok(Number.isFinite(tiny.logprob));
});

test('draw frequencies match softmax(logits / T) restricted to the nucleus', () => {
  const draws = 20_000;
  const cases = [
    { temperature: 1, topP: 1 },
    { temperature: 0.7, topP: 1 },
    { temperature: 1.3, topP: 0.8 },
    { temperature: 1, topP: 0.5 },
  ];
  for (const [c, { temperature, topP }] of cases.entries()) {
    const size = 8;
    const logits = randomLogits(size, 100 + c, 1.5);
    const probs = softmax(logits, temperature);
    const nucleus = nucleusOracle(logits, temperature, topP);
    if (topP < 1) assert.not.ok(nucleus.ambiguous);
    let kept = 0;
    for (const id of nucleus.ids) kept += probs[id]!;
    const expected = probs.map((p, id) => (nucleus.ids.has(id) ? p / kept : 0));
    const counts = new Array<number>(size).fill(0);
    const s = sampler({ temperature, topP }, size, 1234 + c);
    for (let i = 0; i < draws; i++) counts[s.sample(logits).token]!++;
    // 99.9% quantile of chi-square with 7 degrees of freedom is 24.3; fewer cells only lower it.
    const x2 = chiSquare(counts, expected, draws);
    assert.ok(x2 < 24.3, `chi-square ${x2.toFixed(1)} for T=${temperature} top_p=${topP}`);
    for (let i = 0; i < size; i++) {
      assert.ok(Math.abs(counts[i]! / draws - expected[i]!) < 0.015, `token ${i} frequency off`);
    }
  }
});

test('top_p on a large vocabulary only ever draws from the oracle nucleus', () => {
  const size = 50_000;
  const logits = randomLogits(size, 77);
  for (const topP of [0.01, 0.5, 0.9]) {
    const { ids, ambiguous } = nucleusOracle(logits, 1, topP);
    assert.not.ok(ambiguous);
    const s = sampler({ topP }, size, 5);
    const seen = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const t = s.sample(logits).token;
      assert.ok(ids.has(t), `token ${t} outside the nucleus (top_p ${topP}, size ${ids.size})`);
      seen.add(t);
    }
    if (ids.size > 1) assert.ok(seen.size > 1, 'only one token drawn from a multi-token nucleus');
  }
});

test('a top_p draw is the race over the oracle nucleus, whether the exp pass\'s candidates hold it or the buckets are needed', () => {
  const size = 100_000;
  // Model-like logits (the candidates of mass ≥ 2^-16 hold the nucleus), and one token above a
  // flat rest of tokens each lighter than 2^-16 of it but together nearly as heavy, whose nucleus
  // at top_p 0.9 needs tens of thousands of them (the buckets' path; the top token wins ~58%).
  const modelLike = randomLogits(size, 91);
  const peaked = new Float32Array(size);
  peaked[17] = 11.6;
  const cases: [Float32Array, number, number][] = [
    [modelLike, 0.9, 0.8],
    [modelLike, 0.5, 1.3],
    [peaked, 0.9, 1],
    [peaked, 0.5, 1],
  ];
  for (const [logits, topP, temperature] of cases) {
    const { ids, ambiguous } = nucleusOracle(logits, temperature, topP);
    assert.not.ok(ambiguous);
    // The masses as the sampler computes them, and the race's two key words from the same stream.
    let max = -Infinity;
    for (const x of logits) max = Math.max(max, x);
    const mass = Float64Array.from(logits, (x) => expNonPositive((x - max) * (1 / temperature)));
    const kept = new Uint32Array(Math.ceil(size / 32));
    for (const id of ids) kept[id >>> 5]! |= 1 << (id & 31);
    for (let seed = 0; seed < 40; seed++) {
      const keys = new SeededRng(seed);
      const expected = exponentialRace(mass, size, keys.nextUint32(), keys.nextUint32(), kept);
      assert.is(sampler({ topP, temperature }, size, seed).sample(logits).token, expected, `top_p ${topP}, T ${temperature}, seed ${seed}`);
    }
  }
});

test('same seed and stream replay exactly; another stream or seed differs', () => {
  const size = 1000;
  const logits = randomLogits(size, 3, 0.5); // flat-ish, so draws vary
  const run = (seed: number, stream: number) => {
    const s = sampler({ temperature: 1, topP: 0.95 }, size, seed, stream);
    return Array.from({ length: 50 }, () => s.sample(logits).token);
  };
  for (const seed of [0, -1, 42, 2 ** 53 - 1, -(2 ** 53) + 1, 1e30]) {
    assert.equal(run(seed, 0), run(seed, 0), `seed ${seed} does not replay`);
    assert.not.equal(run(seed, 0), run(seed, 1), `seed ${seed}: streams 0 and 1 coincide`);
  }
  assert.not.equal(run(1, 0), run(2, 0));
});

test('penalties follow the OpenAI formula exactly, over generated tokens only', () => {
  const size = 20;
  const logits = randomLogits(size, 11, 2);
  const frequencyPenalty = 0.7;
  const presencePenalty = -0.4;
  const bias = new Map([
    [2, 5],
    [3, -1.5],
  ]);
  const s = sampler(
    { temperature: 0, frequencyPenalty, presencePenalty, logitBias: bias, logprobs: true, topLogprobs: 20 },
    size,
  );
  const generated = [3, 3, 5, 3, 19, 2];
  for (const t of generated) s.accept(t);
  const processed = Array.from(logits, (x, j) => {
    const count = generated.filter((t) => t === j).length;
    return x + (bias.get(j) ?? 0) - (count * frequencyPenalty + (count > 0 ? 1 : 0) * presencePenalty);
  });
  const expected = logSoftmax(processed);
  const result = s.sample(logits);
  assert.is(result.token, argmax(processed));
  assert.is(result.topLogprobs!.length, 20);
  for (const { token, logprob } of result.topLogprobs!) {
    assert.ok(Math.abs(logprob - expected[token]!) < 1e-9, `token ${token}: ${logprob} vs ${expected[token]}`);
  }
});

test('no penalty before any token is accepted', () => {
  const logits = randomLogits(50, 12);
  const plain = sampler({ temperature: 0, logprobs: true, topLogprobs: 5 }, 50).sample(logits);
  const penalised = sampler(
    { temperature: 0, frequencyPenalty: 2, presencePenalty: 2, logprobs: true, topLogprobs: 5 },
    50,
  ).sample(logits);
  assert.equal(penalised, plain);
});

test('logit_bias -100 effectively bans and +100 forces', () => {
  const size = 10;
  const flat = new Float32Array(size);
  const banned = sampler({ logitBias: new Map([[3, -100]]) }, size, 8);
  for (let i = 0; i < 5000; i++) assert.is.not(banned.sample(flat).token, 3);
  const logits = randomLogits(size, 13, 3);
  const forced = sampler({ temperature: 2, logitBias: new Map([[7, 100]]) }, size, 8);
  for (let i = 0; i < 5000; i++) assert.is(forced.sample(logits).token, 7);
  assert.throws(() => sampler({ logitBias: new Map([[size, 1]]) }, size), /outside the vocabulary/);
});

test('grammar mask: a disallowed argmax is never drawn, all-masked throws', () => {
  const size = 1000;
  const logits = randomLogits(size, 21);
  const best = argmax(logits);
  const mask = bitmask(size, (t) => t !== best && t % 3 !== 0);
  for (const params of [{ temperature: 0 }, { temperature: 1.5 }, { temperature: 1, topP: 0.5 }]) {
    const s = sampler(params, size, 4);
    for (let i = 0; i < 500; i++) {
      const t = s.sample(logits, mask).token;
      assert.ok(t !== best && t % 3 !== 0, `disallowed token ${t} drawn with ${JSON.stringify(params)}`);
    }
  }
  // Greedy under a mask is the argmax over the allowed tokens (brute force over every token).
  const allowedLogits = Array.from(logits, (x, t) => (t !== best && t % 3 !== 0 ? x : -Infinity));
  assert.is(sampler({ temperature: 0 }, size).sample(logits, mask).token, argmax(allowedLogits));
  // A token in the last, partial word (size 1000 = 31 words + 8 bits).
  const onlyLast = bitmask(size, (t) => t === 999);
  assert.is(sampler({}, size).sample(logits, onlyLast).token, 999);
  assert.throws(() => sampler({}, size).sample(logits, new Uint32Array(32)), isSamplingError);
  assert.throws(() => sampler({}, size).sample(logits, new Uint32Array(31)), RangeError);
  // The same through greedy's fast path, which reads the mask's set bits only.
  assert.is(sampler({ temperature: 0 }, size).sample(logits, onlyLast).token, 999);
  assert.throws(() => sampler({ temperature: 0 }, size).sample(logits, new Uint32Array(32)), isSamplingError);
  assert.throws(() => sampler({ temperature: 0 }, size).sample(logits, new Uint32Array(31)), RangeError);
  // A mask that leaves only a token the bias pushed to -Infinity is also a clear error.
  const onlyZero = bitmask(size, (t) => t === 0);
  const s = sampler({ logitBias: new Map([[0, -Infinity]]) }, size);
  assert.throws(() => s.sample(logits, onlyZero), /no token is allowed/);
});

test('logprobs: ≤ 0, sorted, count honoured, consistent with the chosen token and normalised', () => {
  const size = 49_152;
  const logits = randomLogits(size, 31);
  const lse = logSumExp(logits);
  for (const topLogprobs of [0, 1, 5, 20]) {
    const s = sampler({ temperature: 1.2, topP: 0.9, logprobs: true, topLogprobs }, size, topLogprobs);
    for (let i = 0; i < 20; i++) {
      const r = s.sample(logits);
      assert.ok(r.logprob! <= 0);
      assert.ok(Math.abs(r.logprob! - (logits[r.token]! - lse)) < 1e-9, 'chosen logprob is not log-softmax');
      const top = r.topLogprobs!;
      assert.is(top.length, topLogprobs);
      for (let j = 0; j < top.length; j++) {
        assert.ok(top[j]!.logprob <= 0);
        if (j > 0) {
          const [a, b] = [top[j - 1]!, top[j]!];
          assert.ok(a.logprob > b.logprob || (a.logprob === b.logprob && a.token < b.token), 'not sorted');
        }
        assert.ok(Math.abs(top[j]!.logprob - (logits[top[j]!.token]! - lse)) < 1e-9);
      }
      const mine = top.find((e) => e.token === r.token);
      if (mine) assert.is(mine.logprob, r.logprob);
      // The top-20 are the true top-20 (full sort oracle).
      if (topLogprobs === 20 && i === 0) {
        const oracle = Array.from(logits.keys())
          .sort((a, b) => logits[b]! - logits[a]! || a - b)
          .slice(0, 20);
        assert.equal(
          top.map((e) => e.token),
          oracle,
        );
      }
    }
  }
  // Without logprobs no alternatives are built.
  assert.is(sampler({}, size).sample(logits).topLogprobs, undefined);
});

test('top_logprobs breaks ties by the lower id', () => {
  const logits = Float32Array.of(1, 5, 3, 5, 5, 3, 0, 5);
  const top = sampler({ temperature: 0, logprobs: true, topLogprobs: 6 }, 8).sample(logits).topLogprobs!;
  assert.equal(
    top.map((e) => e.token),
    [1, 3, 4, 7, 2, 5],
  );
  const first = sampler({ temperature: 0, logprobs: true, topLogprobs: 2 }, 8).sample(logits);
  assert.equal(
    first.topLogprobs!.map((e) => e.token),
    [1, 3],
  );
  assert.is(first.token, 1);
  assert.is(first.logprob, first.topLogprobs![0]!.logprob);
});

test('logprobs of every token sum to one, masked tokens are left out', () => {
  const size = 20;
  const logits = randomLogits(size, 5, 3);
  const full = sampler({ logprobs: true, topLogprobs: 20 }, size).sample(logits).topLogprobs!;
  const total = full.reduce((acc, e) => acc + Math.exp(e.logprob), 0);
  assert.ok(Math.abs(total - 1) < 1e-12, `Σ exp(logprob) = ${total}`);
  const mask = bitmask(size, (t) => t < 6);
  const masked = sampler({ logprobs: true, topLogprobs: 20 }, size).sample(logits, mask);
  assert.is(masked.topLogprobs!.length, 6);
  const maskedTotal = masked.topLogprobs!.reduce((acc, e) => acc + Math.exp(e.logprob), 0);
  assert.ok(Math.abs(maskedTotal - 1) < 1e-12);
  assert.ok(masked.topLogprobs!.every((e) => e.token < 6));
});

test('input logits are never written, and two choices can share them', () => {
  const size = 5000;
  const logits = randomLogits(size, 55);
  const before = Float32Array.from(logits);
  const scratch = new SamplingScratch(size);
  const params = {
    ...defaultSamplingParams,
    topP: 0.7,
    frequencyPenalty: 1,
    presencePenalty: 1,
    logitBias: new Map([[1, 50]]),
    logprobs: true,
    topLogprobs: 3,
  };
  const a = new TokenSampler(params, size, new SeededRng(9, 0), scratch);
  const b = new TokenSampler(params, size, new SeededRng(9, 1), scratch);
  const mask = bitmask(size, (t) => t % 2 === 1);
  const aTokens: number[] = [];
  for (let i = 0; i < 20; i++) {
    const ta = a.sample(logits, mask).token;
    a.accept(ta);
    aTokens.push(ta);
    b.accept(b.sample(logits).token);
  }
  assert.equal(logits, before);
  // Interleaving with b through the shared scratch did not disturb a.
  const alone = new TokenSampler(params, size, new SeededRng(9, 0), new SamplingScratch(size));
  const aloneTokens: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = alone.sample(logits, mask).token;
    alone.accept(t);
    aloneTokens.push(t);
  }
  assert.equal(aTokens, aloneTokens);
});

test('mismatched sizes are clear errors', () => {
  assert.throws(() => sampler({}, 10).sample(new Float32Array(11)), /expected 10 logits/);
  assert.throws(
    () => new TokenSampler(defaultSamplingParams, 10, new SeededRng(1), new SamplingScratch(5)),
    /scratch holds 5/,
  );
  const s = sampler({ presencePenalty: 1 }, 10);
  assert.throws(() => s.accept(10), RangeError);
  assert.throws(() => sampler({ temperature: -0.5 }, 10), /temperature/);
  assert.throws(() => sampler({ temperature: NaN }, 10), /temperature/);
});

test('infinite temperature is uniform over the allowed tokens', () => {
  const size = 4;
  const logits = Float32Array.of(10, -10, 0, 3);
  const s = sampler({ temperature: Infinity }, size, 2);
  const counts = [0, 0, 0, 0];
  const draws = 8000;
  for (let i = 0; i < draws; i++) counts[s.sample(logits).token]!++;
  // 99.9% quantile of chi-square with 3 degrees of freedom is 16.3.
  assert.ok(chiSquare(counts, [0.25, 0.25, 0.25, 0.25], draws) < 16.3, counts.join(','));
});

test('NaN logits raise SamplingError instead of returning garbage', () => {
  const logits = Float32Array.of(0, NaN, 1);
  assert.throws(() => sampler({}, 3).sample(logits), isSamplingError);
  assert.throws(() => sampler({ temperature: 0 }, 3).sample(logits), isSamplingError);
});

test.run();
