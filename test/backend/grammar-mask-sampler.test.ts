// The grammar mask as a link of llama.cpp's sampler chains, run in the graph on the decoding
// device (the CPU backend here): real llama.cpp, the tiny model and the default model. A second
// context without samplers decodes the same batches: its logits are the reference, through the
// host's own masked argmax (runtime/sampling). (The first context's own logits rows cannot be:
// for a sequence with a chain, llama.cpp's raw logits row came back with the mask already
// added, the chain's in-place add having written over it; its own logit_bias link does the same.)
import { existsSync } from 'node:fs';
import koffi from 'koffi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Batch } from '../../runtime/backend/batch.js';
import { LlamaContext } from '../../runtime/backend/context.js';
import { createGrammarMaskSampler } from '../../runtime/backend/grammar-mask-sampler.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { maskedArgmax, plainArgmax } from '../../runtime/sampling/argmax.js';
import { defaultModelPath } from '../../fixtures/paths.js';
import type { SamplerPointer } from '../helpers/backend-sampler-calls.js';
import { cpuBackend } from '../helpers/chain-rows.js';
import { testRandom } from '../helpers/test-random.js';

const test = suite('grammar mask sampler');
const { library, api, calls, tiny, cpu } = await cpuBackend();

/** A mask allowing about `share` of the vocabulary, at random (never empty). */
function randomMask(random: () => number, vocabSize: number, share: number): Uint32Array {
  const bits = new Uint32Array(Math.ceil(vocabSize / 32));
  for (let token = 0; token < vocabSize; token++) if (random() < share) bits[token >>> 5]! |= 1 << (token & 31);
  bits[0]! |= 1;
  return bits;
}

function maskOf(vocabSize: number, tokens: number[]): Uint32Array {
  const bits = new Uint32Array(Math.ceil(vocabSize / 32));
  for (const token of tokens) bits[token >>> 5]! |= 1 << (token & 31);
  return bits;
}

/** The first index where two rows differ, or -1 (uvu's diff of 50k floats would take minutes). */
function firstDifference(a: Float32Array, b: Float32Array): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

const allows = (bits: Uint32Array, token: number) => token >= 0 && ((bits[token >>> 5]! >>> (token & 31)) & 1) === 1;

function logitsAt(context: LlamaContext, i: number): Float32Array {
  const pointer = api.llama_get_logits_ith(context.handle, i) as unknown as bigint;
  return new Float32Array(koffi.view(pointer, context.vocabSize * 4)).slice();
}

interface Lane {
  sequence: number;
  /** The mask link, when the lane has a chain. */
  mask?: ReturnType<typeof createGrammarMaskSampler>;
  chain?: SamplerPointer;
  tokens: number[];
}

/**
 * Decodes every lane's prompt, then `steps` steps of one token each, all lanes in one batch,
 * on `context` and on `plain` (no samplers). `check` sees each lane's row after a step (the
 * token sampled in `context`, the logits of `plain`, the mask it ran under) and returns the
 * lane's next token; `maskFor` gives a lane's mask for the next step.
 */
function run(
  context: LlamaContext,
  plain: LlamaContext,
  lanes: Lane[],
  steps: number,
  maskFor: (lane: Lane, step: number) => Uint32Array | null,
  check: (lane: Lane, row: { sampled: number; logits: Float32Array; mask: Uint32Array | null; index: number }, step: number) => number,
): void {
  const batch = new Batch(256);
  const masks = new Map<Lane, Uint32Array | null>();
  for (let step = 0; step < steps; step++) {
    batch.clear();
    const indices = new Map<Lane, number>();
    let position = 0; // in the batch: llama.cpp's _ith calls count every token, not only outputs
    for (const lane of lanes) {
      const mask = lane.mask ? maskFor(lane, step) : null;
      masks.set(lane, mask);
      lane.mask?.setMask(mask);
      const from = step === 0 ? 0 : lane.tokens.length - 1;
      for (let p = from; p < lane.tokens.length; p++) {
        batch.add(lane.tokens[p]!, p, lane.sequence, p === lane.tokens.length - 1);
        indices.set(lane, position++);
      }
    }
    context.decodeNow(batch);
    plain.decodeNow(batch);
    for (const lane of lanes) {
      const index = indices.get(lane)!;
      const sampled = lane.chain ? calls.llama_get_sampled_token_ith(context.handle, index) : -1;
      lane.tokens.push(check(lane, { sampled, logits: logitsAt(plain, index), mask: masks.get(lane)!, index }, step));
    }
  }
  batch.dispose();
}

function laneWith(context: LlamaContext, sequence: number, prompt: number[], last: SamplerPointer | null): Lane {
  if (last === null) return { sequence, tokens: [...prompt] };
  const mask = createGrammarMaskSampler(library.path, context.vocabSize);
  const chain = calls.chain(mask.sampler, last);
  assert.ok(calls.llama_set_sampler(context.handle, sequence, chain), `llama_set_sampler took sequence ${sequence}'s chain`);
  return { sequence, mask, chain, tokens: [...prompt] };
}

function release(context: LlamaContext, lanes: Lane[]): void {
  for (const lane of lanes) {
    if (!lane.chain) continue;
    calls.llama_set_sampler(context.handle, lane.sequence, null);
    calls.llama_sampler_free(lane.chain);
  }
}

/** [mask, greedy] on three sequences, each with its own mask, new every step: device greedy = host masked argmax. */
function greedyMatchesHost(model: LlamaModel, steps: number, share: number): void {
  const shape = { contextSize: 512, batchSize: 256, sequences: 4, threads: 2 };
  const context = LlamaContext.create(model, shape);
  const plain = LlamaContext.create(model, shape);
  const vocab = context.vocabSize;
  const random = testRandom(29);
  const lanes = [0, 1, 2].map((s) => laneWith(context, s, [100 + s, 2000 + 7 * s, 300 + s], calls.llama_sampler_init_greedy()));
  lanes.push(laneWith(context, 3, [42, 43], null)); // a sequence without a chain beside them
  let differedFromUnmasked = 0;
  try {
    run(
      context,
      plain,
      lanes,
      steps,
      () => randomMask(random, vocab, share),
      (lane, row) => {
        if (!lane.mask) return plainArgmax(row.logits);
        const expected = maskedArgmax(row.logits, row.mask!);
        assert.is(row.sampled, expected, `sequence ${lane.sequence}: the device's masked greedy token`);
        if (expected !== plainArgmax(row.logits)) differedFromUnmasked++;
        // The logits after the link: the raw ones where allowed, -inf elsewhere, to the bit.
        const count = calls.llama_get_sampled_logits_count_ith(context.handle, row.index);
        assert.is(count, vocab);
        const masked = new Float32Array(koffi.view(calls.llama_get_sampled_logits_ith(context.handle, row.index)!, count * 4));
        for (let token = 0; token < vocab; token++) {
          const want = allows(row.mask!, token) ? row.logits[token]! : -Infinity;
          if (masked[token] !== want) assert.unreachable(`sequence ${lane.sequence}, token ${token}: masked logit ${masked[token]}, expected ${want}`);
        }
        return row.sampled;
      },
    );
    assert.ok(differedFromUnmasked >= steps, `the masks changed the choice (${differedFromUnmasked} of ${steps * 3} rows)`);
  } finally {
    release(context, lanes);
    void context.dispose();
    void plain.dispose();
  }
}

test('[mask, greedy] on the tiny model: the host masked argmax, token for token, masks differing per sequence and per step', () => {
  greedyMatchesHost(tiny, 6, 0.05);
});

test('[mask, greedy] on the default model (SmolLM2, 49,152 tokens)', async () => {
  const path = defaultModelPath();
  if (!existsSync(path)) throw new Error(`the default model is missing at ${path}: run npm run fixtures`);
  const model = await LlamaModel.create(api, { path, devices: cpu });
  try {
    greedyMatchesHost(model, 4, 0.02);
  } finally {
    await model.dispose();
  }
});

test('[mask, dist(seed)]: every sampled token is allowed; a mask of one token forces it', () => {
  const shape = { contextSize: 512, batchSize: 256, sequences: 3, threads: 2 };
  const context = LlamaContext.create(tiny, shape);
  const plain = LlamaContext.create(tiny, shape);
  const vocab = context.vocabSize;
  const random = testRandom(7);
  const lanes = [0, 1].map((s) => laneWith(context, s, [500 + s, 600 + s], calls.llama_sampler_init_dist(1234 + s)));
  lanes.push(laneWith(context, 2, [42], null));
  const forced = [31337, 7, 50256, 1000, 4242, 20000];
  let sampledRows = 0;
  try {
    run(
      context,
      plain,
      lanes,
      12,
      // Sequence 0: a small random set each step (about 1%); sequence 1: one token each step.
      (lane, step) => (lane.sequence === 0 ? randomMask(random, vocab, 0.01) : maskOf(vocab, [forced[step % forced.length]!])),
      (lane, row, step) => {
        if (!lane.mask) return plainArgmax(row.logits);
        sampledRows++;
        assert.ok(allows(row.mask!, row.sampled), `sequence ${lane.sequence}, step ${step}: token ${row.sampled} is not in its mask`);
        if (lane.sequence === 1) assert.is(row.sampled, forced[step % forced.length]);
        return row.sampled;
      },
    );
    assert.is(sampledRows, 24);
  } finally {
    release(context, lanes);
    void context.dispose();
    void plain.dispose();
  }
});

test('after top-k on the device (candidates, not the whole row): the best allowed token among the top k', () => {
  const shape = { contextSize: 256, batchSize: 64, sequences: 1, threads: 2 };
  const context = LlamaContext.create(tiny, shape);
  const plain = LlamaContext.create(tiny, shape);
  const vocab = context.vocabSize;
  const random = testRandom(11);
  const k = 64;
  const mask = createGrammarMaskSampler(library.path, vocab);
  const chain = calls.chain(calls.llama_sampler_init_top_k(k), mask.sampler, calls.llama_sampler_init_greedy());
  assert.ok(calls.llama_set_sampler(context.handle, 0, chain));
  const lane: Lane = { sequence: 0, mask, chain, tokens: [77, 78] };
  let steps = 0;
  try {
    run(
      context,
      plain,
      [lane],
      5,
      () => randomMask(random, vocab, 0.3),
      (_, row) => {
        const top = Array.from(row.logits.keys()).sort((a, b) => row.logits[b]! - row.logits[a]! || a - b).slice(0, k);
        const allowedTop = top.filter((token) => allows(row.mask!, token));
        assert.ok(allowedTop.length > 0);
        // The pinned llama.cpp's device greedy answers a position among the candidates after
        // top-k (its dist maps positions back to ids; its greedy does not): map it here.
        const count = calls.llama_get_sampled_candidates_count_ith(context.handle, row.index);
        assert.is(count, k);
        const candidates = new Int32Array(koffi.view(calls.llama_get_sampled_candidates_ith(context.handle, row.index)!, count * 4));
        const token = candidates[row.sampled]!;
        assert.is(token, allowedTop[0], 'the best allowed of the top k');
        if (allowedTop[0] !== top[0]) steps++;
        return token;
      },
    );
    assert.ok(steps > 0, "some step's best token was masked out");
  } finally {
    release(context, [lane]);
    void context.dispose();
    void plain.dispose();
  }
});

test('a decode on a koffi worker (LlamaContext.decode) runs the hooks through this thread, with the same result', async () => {
  const shape = { contextSize: 256, batchSize: 64, sequences: 1, threads: 2 };
  const context = LlamaContext.create(tiny, shape);
  const plain = LlamaContext.create(tiny, shape);
  const vocab = context.vocabSize;
  const mask = createGrammarMaskSampler(library.path, vocab);
  const chain = calls.chain(mask.sampler, calls.llama_sampler_init_greedy());
  assert.ok(calls.llama_set_sampler(context.handle, 0, chain));
  const random = testRandom(5);
  const batch = new Batch(8);
  try {
    let token = 321;
    for (let step = 0; step < 3; step++) {
      const bits = randomMask(random, vocab, 0.05);
      mask.setMask(bits);
      batch.clear();
      batch.add(token, step, 0, true);
      await context.decode(batch);
      plain.decodeNow(batch);
      const sampled = calls.llama_get_sampled_token_ith(context.handle, 0);
      assert.is(sampled, maskedArgmax(logitsAt(plain, 0), bits));
      token = sampled;
    }
  } finally {
    batch.dispose();
    calls.llama_set_sampler(context.handle, 0, null);
    calls.llama_sampler_free(chain);
    void context.dispose();
    void plain.dispose();
  }
});

test('the host path (llama_token_data_array): the same mask, and [mask, greedy] sampled there = host masked argmax', () => {
  const context = LlamaContext.create(tiny, { contextSize: 256, batchSize: 64, sequences: 1, threads: 2 });
  const vocab = context.vocabSize;
  const mask = createGrammarMaskSampler(library.path, vocab);
  const chain = calls.chain(mask.sampler, calls.llama_sampler_init_greedy());
  const random = testRandom(3);
  try {
    const batch = new Batch(8);
    batch.add(11, 0, 0, false);
    batch.add(12, 1, 0, true);
    context.decodeNow(batch);
    batch.dispose();
    const logits = logitsAt(context, 1);
    for (const bits of [randomMask(random, vocab, 0.03), maskOf(vocab, [9999])]) {
      mask.setMask(bits);
      const after = calls.applyOnHost(mask.sampler, logits);
      for (let token = 0; token < vocab; token++) {
        const want = allows(bits, token) ? logits[token]! : -Infinity;
        if (after[token] !== want) assert.unreachable(`token ${token}: ${after[token]} after the host apply, expected ${want}`);
      }
      // No sampler is set on the context, so llama_sampler_sample runs the chain on the host.
      assert.is(calls.llama_sampler_sample(chain, context.handle, 1), maskedArgmax(logits, bits));
    }
    mask.setMask(null);
    assert.is(calls.llama_sampler_sample(chain, context.handle, 1), plainArgmax(logits), 'null: every token allowed');
  } finally {
    calls.llama_sampler_free(chain);
    void context.dispose();
  }
  assert.throws(() => mask.setMask(null), /freed/, 'the chain freed the link with itself');
});

test('several output rows a sequence (n_outputs_max_per_seq 2): the link declines the device, and the host path masks each row', () => {
  // LlamaContext allows one row a sequence; speculative verification would need more.
  const params = api.llama_context_default_params();
  Object.assign(params, { n_ctx: 256, n_batch: 64, n_ubatch: 64, n_seq_max: 1, n_threads: 2, n_threads_batch: 2, n_outputs_max_per_seq: 2, n_outputs_max: 4 });
  const handle = api.llama_init_from_model(tiny.handle, params)!;
  const plain = LlamaContext.create(tiny, { contextSize: 256, batchSize: 64, sequences: 1, outputs: 4, threads: 2 });
  const vocab = tiny.vocabulary.size;
  const mask = createGrammarMaskSampler(library.path, vocab);
  const chain = calls.chain(mask.sampler, calls.llama_sampler_init_greedy());
  calls.llama_set_sampler(handle, 0, chain);
  const random = testRandom(17);
  const rows = [randomMask(random, vocab, 0.05), randomMask(random, vocab, 0.05)];
  const batch = new Batch(8);
  try {
    mask.setMask(rows[0]!);
    batch.add(5, 0, 0, true);
    batch.add(6, 1, 0, true);
    assert.is(api.llama_decode(handle, batch.toStruct()), 0);
    plain.decodeNow(batch);
    for (const i of [0, 1]) {
      assert.is(calls.llama_get_sampled_token_ith(handle, i), -1, `row ${i}: no token sampled on the device under one mask for two rows`);
      const logits = logitsAt(plain, i);
      mask.setMask(rows[i]!);
      assert.is(calls.llama_sampler_sample(chain, handle, i), maskedArgmax(logits, rows[i]!), `row ${i}: the host path, under its own mask`);
    }
  } finally {
    batch.dispose();
    calls.llama_set_sampler(handle, 0, null);
    calls.llama_sampler_free(chain);
    api.llama_free(handle);
    void plain.dispose();
  }
});

test('clone and copy carry the mask: llama_sampler_clone makes a link with the same mask, llama_sampler_copy sets one from another', () => {
  const vocab = tiny.vocabulary.size;
  const random = testRandom(23);
  const logits = new Float32Array(vocab).map(() => random() * 10 - 5);
  const first = randomMask(random, vocab, 0.1);
  const second = randomMask(random, vocab, 0.1);
  const masked = (bits: Uint32Array) => logits.map((x, token) => (allows(bits, token) ? x : -Infinity));
  const source = createGrammarMaskSampler(library.path, vocab);
  const target = createGrammarMaskSampler(library.path, vocab);
  let clone: SamplerPointer | null = null;
  try {
    source.setMask(first);
    clone = calls.llama_sampler_clone(source.sampler);
    assert.ok(clone);
    source.setMask(second); // the clone keeps the mask it was made with
    assert.is(firstDifference(calls.applyOnHost(clone, logits), masked(first)), -1, 'the clone masks as the source did');
    calls.llama_sampler_copy(source.sampler, target.sampler);
    assert.is(firstDifference(calls.applyOnHost(target.sampler, logits), masked(second)), -1, 'the copy masks as the source does');
  } finally {
    if (clone) calls.llama_sampler_free(clone);
    calls.llama_sampler_free(source.sampler);
    calls.llama_sampler_free(target.sampler);
  }
});

test('setMask refuses a bitmask shorter than the vocabulary; uploads a quarter byte a token', () => {
  const mask = createGrammarMaskSampler(library.path, tiny.vocabulary.size);
  try {
    assert.throws(() => mask.setMask(new Uint32Array(10)), /grammar bitmask has 10 words, 1571 needed/);
    assert.is(mask.uploadBytes, Math.ceil(50257 / 16) * 4);
  } finally {
    calls.llama_sampler_free(mask.sampler);
  }
});

test.after(() => tiny.dispose());

test.run();
