// The sampling stages local servers add (top_k, min_p, typical_p, top_n_sigma, XTC, the
// repetition penalty and DRY), each against its brute-force definition in oracle.ts: the kept
// sets stage by stage, the penalties through the reported logprobs (the log-softmax of the
// processed logits), and the draws by chi-square. Off by default: a sampler with every stage
// off replays the plain one bit for bit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SamplingScratch, SeededRng, TokenSampler, defaultSamplingParams, type SamplingParams } from '../../runtime/sampling/index.js';
import { excludeTopChoices, keepMinP, keepTopK, keepTopNSigma, keepTypical, totalMass } from '../../runtime/sampling/candidate-filters.js';
import { breakerTokens } from '../../runtime/sampling/dry-penalty.js';
import {
  argmax,
  dryOracle,
  logSoftmax,
  minPOracle,
  randomLogits,
  repetitionOracle,
  softmax,
  topKOracle,
  topNSigmaOracle,
  topPOracle,
  typicalOracle,
  xtcOracle,
} from './oracle.js';
import { chiSquare } from '../helpers/chi-square.js';

function sampler(params: Partial<SamplingParams>, size: number, seed = 1, prompt: number[] = [], dryBreakers?: Uint8Array): TokenSampler {
  return new TokenSampler({ ...defaultSamplingParams, ...params }, size, new SeededRng(seed, 0), new SamplingScratch(size), {
    prompt,
    ...(dryBreakers ? { dryBreakers } : {}),
  });
}


/** The masses the sampler starts its truncation from (softmax numerators at temperature 1), in a scratch. */
function scratchWith(logits: Float32Array): { scratch: SamplingScratch; w: Float64Array } {
  const scratch = new SamplingScratch(logits.length);
  const w = Float64Array.from(logits);
  let max = -Infinity;
  for (const x of w) max = Math.max(max, x);
  for (let i = 0; i < w.length; i++) scratch.mass[i] = Math.exp(w[i]! - max);
  return { scratch, w };
}

const keptSet = (mass: Float64Array) => new Set(Array.from(mass).flatMap((m, id) => (m > 0 ? [id] : [])));
const oracleSet = (probs: number[]) => new Set(probs.flatMap((p, id) => (p > 0 ? [id] : [])));

test('each truncation stage keeps exactly the set its definition keeps (49,152 tokens, model-like logits)', () => {
  const size = 49_152;
  for (let trial = 0; trial < 4; trial++) {
    const logits = randomLogits(size, 700 + trial);
    const probs = softmax(logits);
    const check = (name: string, run: (s: SamplingScratch, w: Float64Array) => void, expected: number[]) => {
      const { scratch, w } = scratchWith(logits);
      run(scratch, w);
      assert.equal(keptSet(scratch.mass), oracleSet(expected), `${name}, trial ${trial}`);
    };
    for (const k of [1, 2, 40, 1000]) check(`top_k ${k}`, (s, w) => keepTopK(s, w, size, k), topKOracle(logits, probs, k));
    for (const minP of [0.05, 0.3, 1]) check(`min_p ${minP}`, (s) => keepMinP(s.mass, size, minP), minPOracle(probs, minP));
    for (const p of [0.2, 0.9, 0.99]) check(`typical_p ${p}`, (s) => keepTypical(s, size, totalMass(s.mass, size), p), typicalOracle(probs, p));
    for (const n of [0.5, 1, 3]) check(`top_n_sigma ${n}`, (s, w) => keepTopNSigma(w, s.mass, size, n), topNSigmaOracle(logits, probs, n));
    for (const threshold of [0.01, 0.05, 0.1]) check(`xtc ${threshold}`, (s) => excludeTopChoices(s.mass, size, totalMass(s.mass, size), threshold), xtcOracle(probs, threshold));
  }
});

test('ties rank the lower id first: top_k 2 of four equal logits keeps ids 0 and 1; XTC keeps the highest id of equal top choices', () => {
  const flat = Float32Array.of(1, 1, 1, 1);
  const { scratch, w } = scratchWith(flat);
  keepTopK(scratch, w, 4, 2);
  assert.equal([...keptSet(scratch.mass)], [0, 1]);
  const xtc = scratchWith(flat).scratch;
  excludeTopChoices(xtc.mass, 4, totalMass(xtc.mass, 4), 0.25);
  assert.equal([...keptSet(xtc.mass)], [3]);
});

test('every stage off replays the plain sampler bit for bit: tokens, logprobs and the seeded stream', () => {
  const size = 2000;
  const off: Partial<SamplingParams> = { topK: 0, minP: 0, typicalP: 1, topNSigma: -1, repetitionPenalty: 1, repeatLastN: 64, dryMultiplier: 0, xtcProbability: 0, xtcThreshold: 0.1 };
  for (const base of [{}, { temperature: 0.7, topP: 0.9 }, { temperature: 0, logprobs: true, topLogprobs: 5 }, { frequencyPenalty: 0.5, logprobs: true }]) {
    const plain = sampler(base, size, 17, [1, 2, 3]);
    const withOff = sampler({ ...base, ...off }, size, 17, [1, 2, 3]);
    for (let step = 0; step < 60; step++) {
      const logits = randomLogits(size, 300 + step);
      const a = plain.sample(logits);
      const b = withOff.sample(logits);
      assert.equal(b, a, `step ${step} of ${JSON.stringify(base)}`);
      plain.accept(a.token);
      withOff.accept(b.token);
    }
  }
});

test('the chain in its order (top_n_sigma → top_k → typical_p → top_p → min_p → XTC, at the temperature): chi-square against the oracle', () => {
  const draws = 20_000;
  const size = 12;
  const cases: Partial<SamplingParams>[] = [
    { topK: 1 },
    { topK: 3 },
    { topK: 5, temperature: 0.6 },
    { minP: 0.2 },
    { minP: 0.1, temperature: 1.5 },
    { typicalP: 0.6 },
    { topNSigma: 1 },
    { xtcProbability: 1, xtcThreshold: 0.1 },
    { xtcProbability: 0.5, xtcThreshold: 0.08 },
    { topK: 6, typicalP: 0.9, topP: 0.8, minP: 0.1, temperature: 1.2 },
    { topNSigma: 1.5, topK: 8, topP: 0.9, xtcProbability: 1, xtcThreshold: 0.1 },
  ];
  for (const [c, params] of cases.entries()) {
    const logits = randomLogits(size, 900 + c, 1.5);
    const temperature = params.temperature ?? 1;
    let probs = softmax(logits, temperature);
    if (params.topNSigma) probs = topNSigmaOracle(logits, probs, params.topNSigma);
    if (params.topK) probs = topKOracle(logits, probs, params.topK);
    if (params.typicalP) probs = typicalOracle(probs, params.typicalP);
    if (params.topP) probs = topPOracle(probs, params.topP);
    if (params.minP) probs = minPOracle(probs, params.minP);
    if (params.xtcProbability) {
      const excluded = xtcOracle(probs, params.xtcThreshold!);
      probs = probs.map((p, id) => (1 - params.xtcProbability!) * p + params.xtcProbability! * excluded[id]!);
    }
    const s = sampler(params, size, 40 + c);
    const counts = new Array<number>(size).fill(0);
    for (let i = 0; i < draws; i++) counts[s.sample(logits).token]!++;
    // 99.9% quantile of chi-square with 11 degrees of freedom is 31.3; fewer cells only lower it.
    const x2 = chiSquare(counts, probs, draws);
    assert.ok(x2 < 31.3, `chi-square ${x2.toFixed(1)} for ${JSON.stringify(params)}: ${counts.join(',')}`);
  }
});

test('top_k 1 and min_p 1 are greedy at any temperature; at temperature 0 the filters and XTC do not move the argmax', () => {
  const size = 5000;
  for (let trial = 0; trial < 20; trial++) {
    const logits = randomLogits(size, 40 + trial);
    const best = argmax(logits);
    assert.is(sampler({ topK: 1, temperature: 1.5 }, size, trial).sample(logits).token, best);
    assert.is(sampler({ minP: 1, temperature: 1.5 }, size, trial).sample(logits).token, best);
    assert.is(sampler({ temperature: 0, xtcProbability: 1, xtcThreshold: 0, typicalP: 0.1 }, size, trial).sample(logits).token, best);
  }
});

test('under a grammar mask the truncation stages see only the allowed tokens', () => {
  const size = 64;
  const logits = randomLogits(size, 5, 2);
  const allowedIds = new Set(Array.from({ length: size }, (_, i) => i).filter((i) => i % 3 !== 0));
  const mask = new Uint32Array(2);
  for (const i of allowedIds) mask[i >>> 5]! |= 1 << (i & 31);
  const masked = Float32Array.from(logits, (l, i) => (allowedIds.has(i) ? l : -Infinity));
  const expected = topKOracle(masked, softmax(masked), 2);
  const s = sampler({ topK: 2 }, size, 3);
  const counts = new Array<number>(size).fill(0);
  for (let i = 0; i < 8000; i++) counts[s.sample(logits, mask).token]!++;
  // 1 degree of freedom: 99.9% quantile 10.8.
  assert.ok(chiSquare(counts, expected, 8000) < 10.8, counts.join(','));
});

/** The processed logits as the sampler reports them (every token's logprob: top_logprobs over a vocabulary of ≤ 20). */
function reportedLogprobs(s: TokenSampler, logits: Float32Array): number[] {
  const out = new Array<number>(logits.length).fill(-Infinity);
  for (const entry of s.sample(logits).topLogprobs!) out[entry.token] = entry.logprob;
  return out;
}

const closeTo = (actual: number[], expected: number[], what: string) =>
  actual.forEach((x, i) => assert.ok(Math.abs(x - expected[i]!) < 1e-9, `${what}: token ${i} ${x} against ${expected[i]}`));

test('repetition_penalty: each distinct token of the last repeat_last_n of prompt and output, positive logits divided, negative multiplied', () => {
  const size = 16;
  const prompt = [3, 3, 5, 7, 9, 1];
  const output = [2, 4, 4, 6];
  for (const [penalty, lastN] of [[1.3, -1], [1.3, 4], [0.7, 7], [2, 1]] as const) {
    const s = sampler({ repetitionPenalty: penalty, repeatLastN: lastN, temperature: 0, logprobs: true, topLogprobs: size }, size, 1, prompt);
    for (const token of output) s.accept(token);
    const logits = Float32Array.from(randomLogits(size, 11, 3), (l, i) => (i === 4 ? 0 : l)); // a zero logit is multiplied: stays 0
    const history = [...prompt, ...output];
    const window = lastN < 0 ? history : history.slice(-lastN);
    closeTo(reportedLogprobs(s, logits), logSoftmax(repetitionOracle(logits, window, penalty)), `penalty ${penalty} last ${lastN}`);
  }
});

test('DRY: hand-computed cases (llama.cpp conventions), then the brute-force definition on random repetitive histories', () => {
  const uniform = (n: number) => new Float32Array(n).fill(Math.log(1 / n));
  const probsAfter = (n: number, history: number[], options: { multiplier: number; base: number; allowedLength: number; lastN?: number; breakers?: number[] }) => {
    const breakers = new Uint8Array(n);
    for (const b of options.breakers ?? []) breakers[b] = 1;
    const s = sampler({ dryMultiplier: options.multiplier, dryBase: options.base, dryAllowedLength: options.allowedLength, dryPenaltyLastN: options.lastN ?? -1, temperature: 0, logprobs: true, topLogprobs: n }, n, 1, history, breakers);
    return reportedLogprobs(s, uniform(n)).map(Math.exp);
  };
  const near = (actual: number[], expected: number[]) => actual.forEach((p, i) => assert.ok(Math.abs(p - expected[i]!) < 1e-6, `${actual} against ${expected}`));
  // "0 1" repeated: 2 would continue it (length 2 = allowed): its logit loses 1·1.1^0.
  near(probsAfter(4, [0, 1, 2, 0, 1], { multiplier: 1, base: 1.1, allowedLength: 2 }), [1, 1, Math.exp(-1), 1].map((x) => x / (3 + Math.exp(-1))));
  near(probsAfter(5, [0, 1, 2, 0, 1], { multiplier: 2, base: 1.1, allowedLength: 2 }), [1, 1, Math.exp(-2), 1, 1].map((x) => x / (4 + Math.exp(-2))));
  // Length 3 repeat "0 1 2": 3 loses 1·1.75^(3-2).
  near(probsAfter(5, [0, 1, 2, 3, 0, 1, 2], { multiplier: 1, base: 1.75, allowedLength: 2 }), [1, 1, 1, Math.exp(-1.75), 1].map((x) => x / (4 + Math.exp(-1.75))));
  // The continuation is a breaker token: never penalised.
  near(probsAfter(5, [0, 1, 3, 4, 0, 1], { multiplier: 1, base: 1.1, allowedLength: 2, breakers: [3] }), [0.2, 0.2, 0.2, 0.2, 0.2]);
  // A breaker inside the current tail bounds the repeat: "4 0 1" after breaker 3 can be at most 1 long here.
  near(probsAfter(5, [0, 1, 2, 0, 3, 1], { multiplier: 1, base: 1.1, allowedLength: 2, breakers: [3] }), [0.2, 0.2, 0.2, 0.2, 0.2]);
  // Too short for the allowed length, and a window too short to hold the repeat.
  near(probsAfter(5, [0, 1, 2, 3, 4, 0, 1], { multiplier: 1, base: 1.1, allowedLength: 4 }), [0.2, 0.2, 0.2, 0.2, 0.2]);
  near(probsAfter(4, [0, 1, 2, 0, 1], { multiplier: 1, base: 1.1, allowedLength: 2, lastN: 3 }), [0.25, 0.25, 0.25, 0.25]);

  const size = 12;
  for (let trial = 0; trial < 200; trial++) {
    const logits = randomLogits(size, 1000 + trial, 2);
    const history = Array.from(randomLogits(60, 5000 + trial), (x) => Math.min(size - 1, Math.floor(Math.abs(x) * 2)) % (trial % 2 ? 4 : size));
    const breakers = new Set(trial % 3 === 0 ? [history[40]!] : []);
    const options = { multiplier: 0.8, base: 1.75, allowedLength: 1 + (trial % 3), breakers };
    const lastN = trial % 5 === 0 ? 25 : -1;
    const marks = new Uint8Array(size);
    for (const b of breakers) marks[b] = 1;
    const s = sampler({ dryMultiplier: 0.8, dryBase: 1.75, dryAllowedLength: options.allowedLength, dryPenaltyLastN: lastN, temperature: 0, logprobs: true, topLogprobs: size }, size, 1, history.slice(0, 30), marks);
    for (const token of history.slice(30)) s.accept(token);
    const window = lastN < 0 ? history : history.slice(-lastN);
    closeTo(reportedLogprobs(s, logits), logSoftmax(dryOracle(logits, window, options)), `trial ${trial}`);
  }
});

test('DRY breaker tokens are the tokens whose text contains a breaker string', () => {
  const pieces = ['a', '\n', 'b:', '"x', 'ab', '*', '::', ''].map((text) => Buffer.from(text));
  const marks = breakerTokens(pieces.length, (token) => pieces[token]!, ['\n', ':', '"', '*']);
  assert.equal(Array.from(marks), [0, 1, 1, 1, 0, 1, 1, 0]);
  assert.equal(Array.from(breakerTokens(pieces.length, (token) => pieces[token]!, ['ab'])), [0, 0, 0, 0, 1, 0, 0, 0]);
});

test('XTC takes one word of the seeded stream per step, whatever it decides: the same seed replays, a different one differs', () => {
  const size = 50;
  const logits = randomLogits(size, 8, 1);
  const run = (seed: number) => {
    const s = sampler({ xtcProbability: 0.5, xtcThreshold: 0.02, topK: 10 }, size, seed);
    return Array.from({ length: 40 }, () => s.sample(logits).token);
  };
  assert.equal(run(5), run(5));
  assert.not.equal(run(5), run(6));
});

test.run();
