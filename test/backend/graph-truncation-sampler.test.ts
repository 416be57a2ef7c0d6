// The truncation links lmforge adds to llama.cpp's graph (runtime/backend/graph-truncation-sampler.ts)
// on the CPU backend, tiny model: the tokens a chain leaves allowed after top_n_sigma, typical_p
// or XTC are the ones the reference definitions (test/sampling/oracle.ts) keep over the raw
// logits of the same prompt, with masked tokens, after top_k and at a temperature; XTC applies
// as often as its chance says, from its seeded stream; on the host path the links fail closed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { graphTruncationLinks } from '../../runtime/backend/graph-truncation-sampler.js';
import { createGrammarMaskSampler } from '../../runtime/backend/grammar-mask-sampler.js';
import type { SamplerPointer } from '../helpers/backend-sampler-calls.js';
import { cpuBackend, decodeWithChains, type ChainRow } from '../helpers/chain-rows.js';
import { softmax, topKOracle, topNSigmaOracle, typicalOracle, xtcOracle } from '../sampling/oracle.js';
import { SeededRng } from '../../runtime/sampling/seeded-rng.js';

const test = suite('graph truncation links');
const { library, calls, tiny } = await cpuBackend();
const links = graphTruncationLinks(library.path);
const decodeWith = (chains: SamplerPointer[]) => decodeWithChains(tiny, calls, chains);

/** The token ids a chain left allowed (a finite logit), in increasing order. */
function allowedIds({ left, candidates }: ChainRow): number[] {
  const ids: number[] = [];
  left.forEach((logit, i) => {
    if (logit > -Infinity) ids.push(candidates.length > 0 ? candidates[i]! : i);
  });
  return ids.sort((a, b) => a - b);
}

/** The ids an oracle's distribution keeps (mass > 0), in increasing order. */
function keptIds(probs: number[]): number[] {
  return probs.flatMap((p, id) => (p > 0 ? [id] : []));
}

test('top_n_sigma keeps the logits within n standard deviations of the best, as the reference does', () => {
  const ns = [0.5, 1.5, 3];
  const rows = decodeWith(ns.map((n) => calls.chain(links.topNSigma(n), calls.llama_sampler_init_greedy())));
  rows.forEach((row, i) => {
    const expected = keptIds(topNSigmaOracle(row.logits, softmax(row.logits), ns[i]!));
    assert.ok(expected.length > 1 && expected.length < row.logits.length, `n ${ns[i]} truncates (${expected.length} kept)`);
    assert.equal(allowedIds(row), expected, `n ${ns[i]}`);
    assert.ok(expected.includes(row.token));
  });
  // Larger n, more tokens: the three rows' prompts differ, so compare sizes of one prompt instead.
  const sizes = [0.5, 1.5, 3].map((n) => keptIds(topNSigmaOracle(rows[0]!.logits, softmax(rows[0]!.logits), n)).length);
  assert.ok(sizes[0]! < sizes[1]! && sizes[1]! < sizes[2]!, `kept sets grow with n: ${sizes}`);
});

test('top_n_sigma takes its mean and deviation over the allowed tokens only, and leaves masked ones out', () => {
  const vocabSize = tiny.vocabulary.size;
  const mask = createGrammarMaskSampler(library.path, vocabSize);
  // Every third token allowed.
  const bits = new Uint32Array(Math.ceil(vocabSize / 32));
  for (let id = 0; id < vocabSize; id += 3) bits[id >>> 5]! |= 1 << (id & 31);
  mask.setMask(bits);
  const [row] = decodeWith([calls.chain(mask.sampler, links.topNSigma(1), calls.llama_sampler_init_greedy())]);
  const masked = Float32Array.from(row!.logits, (x, id) => (id % 3 === 0 ? x : -Infinity));
  const expected = keptIds(topNSigmaOracle(masked, softmax(masked), 1));
  // The unmasked σ would keep another set: the test tells the two apart.
  assert.not.equal(expected, keptIds(topNSigmaOracle(row!.logits, softmax(row!.logits), 1)).filter((id) => id % 3 === 0));
  assert.equal(allowedIds(row!), expected);
});

test('typical_p keeps the shortest most-typical prefix reaching p, over the whole vocabulary, after top_k, and at a temperature', () => {
  const [whole, afterTopK, hot] = decodeWith([
    // A draw, not greedy: llama.cpp's greedy link names a position, not an id, after a reordering link.
    calls.chain(links.typical(0.5), calls.llama_sampler_init_dist(1)),
    calls.chain(calls.llama_sampler_init_top_k(40), links.typical(0.8), calls.llama_sampler_init_dist(2)),
    calls.chain(calls.llama_sampler_init_temp(0.5), links.typical(0.9), calls.llama_sampler_init_dist(3)),
  ]);
  const wholeKept = keptIds(typicalOracle(softmax(whole!.logits), 0.5));
  assert.ok(wholeKept.length > 1, `typical_p 0.5 keeps ${wholeKept.length}`);
  assert.equal(allowedIds(whole!), wholeKept);
  assert.is(whole!.candidates.length, whole!.logits.length, 'the ids travel with the reordered logits');

  const topK = topKOracle(afterTopK!.logits, softmax(afterTopK!.logits), 40);
  const afterTopKKept = keptIds(typicalOracle(topK, 0.8));
  assert.ok(afterTopKKept.length > 1 && afterTopKKept.length < 40, `typical_p 0.8 after top_k 40 keeps ${afterTopKKept.length}`);
  assert.equal(allowedIds(afterTopK!), afterTopKKept);

  const hotKept = keptIds(typicalOracle(softmax(hot!.logits, 0.5), 0.9));
  assert.equal(allowedIds(hot!), hotKept);
  for (const row of [whole!, afterTopK!, hot!]) assert.ok(allowedIds(row).includes(row.token), 'the draw chose among the kept');
});

test('XTC removes every token above the threshold but the least likely, when two or more are above and its chance comes up', () => {
  // The three prompts' raw logits first, to place thresholds between their best tokens.
  const plain = decodeWith([0, 1, 2].map(() => calls.chain(calls.llama_sampler_init_greedy())));
  const ranked = plain.map(({ logits }) => {
    const probs = softmax(logits);
    return { probs, order: [...probs.keys()].sort((a, b) => probs[b]! - probs[a]!) };
  });
  const between = (row: number, rank: number) => (ranked[row]!.probs[ranked[row]!.order[rank]!]! + ranked[row]!.probs[ranked[row]!.order[rank + 1]!]!) / 2;
  const thresholds = [between(0, 2), between(1, 0), between(2, 1)];
  const rows = decodeWith(thresholds.map((threshold, i) => calls.chain(links.xtc(1, threshold, new SeededRng(i)), calls.llama_sampler_init_greedy())));
  rows.forEach((row, i) => {
    const expected = keptIds(xtcOracle(ranked[i]!.probs, thresholds[i]!));
    assert.equal(allowedIds(row), expected, `row ${i}`);
  });
  // Three above: the two best removed, greedy takes the third. One above: nothing removed.
  assert.is(rows[0]!.token, ranked[0]!.order[2]);
  assert.is(allowedIds(rows[1]!).length, rows[1]!.logits.length);
  assert.is(rows[2]!.token, ranked[2]!.order[1]);
  // A chance that does not come up removes nothing; the stream decides, as on the host.
  const never = decodeWith([calls.chain(links.xtc(1e-9, thresholds[0]!, new SeededRng(5)), calls.llama_sampler_init_greedy())]);
  assert.is(allowedIds(never[0]!).length, never[0]!.logits.length);
});

test('XTC\'s chance is one draw a decode from its stream, against `probability` as on the host path: about half the steps at 0.5', () => {
  const expectedSteps = (seed: number) => {
    const removedAt: number[] = [];
    const rng = new SeededRng(seed);
    for (let step = 0; step < 40; step++) if (rng.nextUint32() / 4294967296 < 0.5) removedAt.push(step);
    return removedAt;
  };
  // The link's draws are those of a SeededRng: the host path's formula on the given stream.
  const [row] = decodeWith([calls.chain(calls.llama_sampler_init_greedy())]);
  const probs = softmax(row!.logits);
  const order = [...probs.keys()].sort((a, b) => probs[b]! - probs[a]!);
  const threshold = (probs[order[1]!]! + probs[order[2]!]!) / 2;
  const applied: number[] = [];
  for (let step = 0; step < 40; step++) {
    const rng = new SeededRng(9);
    for (let k = 0; k < step; k++) rng.nextUint32();
    const [decoded] = decodeWith([calls.chain(links.xtc(0.5, threshold, rng), calls.llama_sampler_init_greedy())]);
    if (decoded!.token !== order[0]) applied.push(step);
  }
  assert.equal(applied, expectedSteps(9));
  assert.ok(applied.length > 10 && applied.length < 30, `${applied.length} of 40 steps applied XTC`);
});

test('on the host path the links fail closed, and settings that truncate nothing are refused', () => {
  const logits = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i));
  for (const link of [links.topNSigma(1), links.typical(0.5), links.xtc(1, 0.1, new SeededRng(1))]) {
    assert.ok(calls.applyOnHost(link, logits).every((x) => x === -Infinity), 'every logit -inf');
    calls.llama_sampler_free(link);
  }
  for (const bad of [0, -1, Infinity, Number.NaN]) assert.throws(() => links.topNSigma(bad), /top_n_sigma/);
  for (const bad of [-0.1, 1, 1.5, Number.NaN]) assert.throws(() => links.typical(bad), /typical_p/);
  for (const bad of [0, 1.5, Number.NaN]) assert.throws(() => links.xtc(bad, 0.1, new SeededRng(1)), /xtc_probability/);
  assert.is(links.failure(), undefined, 'no hook failed in this process');
});

test.run();
