// The sparse bias link (runtime/backend/sparse-bias-sampler.ts) in llama.cpp's graph on the CPU
// backend, tiny model: over steps of one sequence, the logits a chain leaves are the raw logits
// (a context without samplers, same batches) less exactly the amounts listed for that step;
// a step that lists fewer pairs than the last leaves the others alone; on the host path the
// link fails closed.
import koffi from 'koffi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Batch } from '../../runtime/backend/batch.js';
import { LlamaContext } from '../../runtime/backend/context.js';
import { sparseBiasLinks, type PenaltySource } from '../../runtime/backend/sparse-bias-sampler.js';
import { cpuBackend } from '../helpers/chain-rows.js';

const test = suite('sparse bias link');
const { library, api, calls, tiny } = await cpuBackend();
const links = sparseBiasLinks(library.path);
const vocabSize = tiny.vocabulary.size;

/** Pairs listed per step: three, then five (one of them the last token id), then one, then none. */
const steps: [number, number][][] = [
  [[10, 1.5], [262, 40], [7, 0.25]],
  [[262, 3], [11, 100], [vocabSize - 1, 2], [0, 0.5], [5000, 1e6]],
  [[11, 2]],
  [],
];

/** Decodes a prompt and then one token a step; returns, per step, [chain's logits, raw logits]. */
function run(source: PenaltySource, capacity: number): [Float32Array, Float32Array][] {
  const shape = { contextSize: 64, batchSize: 16, sequences: 1, threads: 1 };
  const context = LlamaContext.create(tiny, shape);
  const plain = LlamaContext.create(tiny, shape);
  const batch = new Batch(16);
  const chain = calls.chain(links.create(source, capacity, vocabSize), calls.llama_sampler_init_greedy());
  const read = (at: bigint | null, count: number) => new Float32Array(koffi.view(at!, count * 4)).slice();
  try {
    assert.ok(calls.llama_set_sampler(context.handle, 0, chain));
    const rows: [Float32Array, Float32Array][] = [];
    let position = 0;
    for (const tokens of [[100, 2000, 300], [400], [500], [600]]) {
      batch.clear();
      tokens.forEach((token, i) => batch.add(token, position++, 0, i === tokens.length - 1));
      context.decodeNow(batch);
      plain.decodeNow(batch);
      const index = batch.length - 1;
      rows.push([
        read(calls.llama_get_sampled_logits_ith(context.handle, index), calls.llama_get_sampled_logits_count_ith(context.handle, index)),
        read(api.llama_get_logits_ith(plain.handle, index) as unknown as bigint, vocabSize),
      ]);
    }
    return rows;
  } finally {
    calls.llama_set_sampler(context.handle, 0, null);
    calls.llama_sampler_free(chain);
    batch.dispose();
    void context.dispose();
    void plain.dispose();
  }
}

test('each step, exactly the listed amounts come off the listed tokens, and nothing else changes', () => {
  let step = 0;
  const rows = run((emit) => {
    for (const [token, amount] of steps[step++]!) emit(token, amount);
  }, 8);
  assert.is(step, steps.length, 'the source is asked once a decode');
  rows.forEach(([left, raw], i) => {
    assert.is(left.length, vocabSize, `step ${i}: a whole row`);
    const penalised = new Map(steps[i]);
    for (let token = 0; token < vocabSize; token++) {
      const expected = Math.fround(raw[token]! - (penalised.get(token) ?? 0));
      if (left[token] !== expected) assert.unreachable(`step ${i}, token ${token}: ${left[token]} against ${expected}`);
    }
  });
});

test('a source listing more tokens than the capacity fails the step loudly, and the host path fails closed', () => {
  const before = links.failure();
  assert.is(before, undefined);
  const link = links.create(() => undefined, 4, 64);
  assert.ok(calls.applyOnHost(link, Float32Array.from({ length: 64 }, (_, i) => i)).every((x) => x === -Infinity));
  calls.llama_sampler_free(link);
  assert.throws(() => links.create(() => undefined, 0, 64), /capacity/);
  // Last: the failure is kept for the process (the engine then refuses such chains' tokens).
  run((emit) => {
    for (let token = 0; token < 5; token++) emit(token, 1);
  }, 4);
  assert.match(links.failure()?.message ?? '', /more than 4 tokens penalised in one step/);
});

test.run();
