// The sampled-outputs links (runtime/backend/sampled-outputs-sampler.ts) in llama.cpp's graph on
// the CPU backend, tiny model: what a decode leaves for the host from a chain that ends with the
// outputs link, against the same chain without it, and logprobs against the log-softmax of a
// context without samplers' logits.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sampledOutputLinks } from '../../runtime/backend/sampled-outputs-sampler.js';
import { plainArgmax } from '../../runtime/sampling/argmax.js';
import type { SamplerPointer } from '../helpers/backend-sampler-calls.js';
import { cpuBackend, decodeWithChains } from '../helpers/chain-rows.js';

const test = suite('sampled outputs links');
const { library, calls, tiny } = await cpuBackend();
const links = sampledOutputLinks(library.path);

/** Float32 in the graph, float64 here. */
const TOLERANCE = 1e-4;

/** Decodes one prompt a sequence, sequence i sampled by chains[i]; returns each sequence's row. */
const decodeWith = (chains: SamplerPointer[]) => decodeWithChains(tiny, calls, chains);

/** log-softmax of `logits` at `token`, in float64. */
function logSoftmax(logits: Float32Array, token: number): number {
  const max = logits.reduce((m, x) => Math.max(m, x), -Infinity);
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  return logits[token]! - max - Math.log(sum);
}

test('only the token comes back: without the outputs link a chain leaves a vocabulary of logits, with it nothing', () => {
  const [bare, greedy, drawn] = decodeWith([
    calls.chain(calls.llama_sampler_init_greedy()),
    calls.chain(calls.llama_sampler_init_greedy(), links.outputs(null)),
    calls.chain(calls.llama_sampler_init_top_k(5), calls.llama_sampler_init_dist(11), links.outputs(null)),
  ]);
  // What the engine's chains cost before the link: a whole row for the host that nobody read.
  assert.is(bare!.left.length, bare!.logits.length);
  assert.is(bare!.token, plainArgmax(bare!.logits));
  assert.is(greedy!.token, plainArgmax(greedy!.logits));
  for (const row of [greedy!, drawn!]) {
    assert.is(row.left.length, 0, 'no logits left');
    assert.is(row.candidates.length, 0, 'no candidates left');
  }
  const top5 = [...drawn!.logits.keys()].sort((a, b) => drawn!.logits[b]! - drawn!.logits[a]!).slice(0, 5);
  assert.ok(top5.includes(drawn!.token), `the draw ${drawn!.token} is among the top 5 ${top5}`);
});

test('logprobs in the graph: the chosen token\'s and the top k\'s log-softmax of the raw logits, with their ids', () => {
  const [greedy, drawn] = decodeWith([
    calls.chain(links.tap(), calls.llama_sampler_init_greedy(), links.outputs(4)),
    // The tap before the draw's links: its logprobs ignore top_k and the draw.
    calls.chain(links.tap(), calls.llama_sampler_init_top_k(3), calls.llama_sampler_init_dist(7), links.outputs(0)),
  ]);
  const { token, logits, left, candidates } = greedy!;
  assert.is(token, plainArgmax(logits));
  assert.is(left.length, 5);
  assert.is(candidates.length, 4);
  assert.ok(Math.abs(left[0]! - logSoftmax(logits, token)) <= TOLERANCE, `chosen: ${left[0]} against ${logSoftmax(logits, token)}`);
  const top4 = [...logits.keys()].sort((a, b) => logits[b]! - logits[a]!).slice(0, 4);
  assert.equal([...candidates].sort((a, b) => a - b), [...top4].sort((a, b) => a - b), 'the top 4 ids, in any order');
  candidates.forEach((id, j) => assert.ok(Math.abs(left[j + 1]! - logSoftmax(logits, id)) <= TOLERANCE, `token ${id}`));
  // A drawn token's logprob, and no list at top_logprobs 0.
  assert.is(drawn!.left.length, 1);
  assert.is(drawn!.candidates.length, 0);
  assert.ok(Math.abs(drawn!.left[0]! - logSoftmax(drawn!.logits, drawn!.token)) <= TOLERANCE);
});

test('on the host path the links fail closed: no token is allowed, rather than one without its logprobs', () => {
  const logits = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i));
  for (const link of [links.outputs(null), links.outputs(3), links.tap()]) {
    const after = calls.applyOnHost(link, logits);
    assert.ok(after.every((x) => x === -Infinity), 'every logit -inf');
    calls.llama_sampler_free(link);
  }
});

test('outputs refuses a negative or fractional top_logprobs', () => {
  assert.throws(() => links.outputs(-1), /topLogprobs/);
  assert.throws(() => links.outputs(2.5), /topLogprobs/);
});

test.run();
