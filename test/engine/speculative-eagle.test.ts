// EAGLE-3 drafts (llama.cpp's eagle3 GGUF) through the real backend: with the tiny draft
// drafting, every output is the one plain decoding gives, token for token and seed for seed
// (greedy, sampled, penalties, stop strings, logprobs, n choices, a grammar), while drafts are
// both accepted and rejected; a draft with a d2t map drafts exactly as the same draft without
// one; prefix-cache hits and preemptions keep outputs exact and the draft's cache follows them;
// drafts that do not fit the model are refused at start-up with one line.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Engine, EngineStartError } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../../runtime/engine/protocol.js';
import { KV_LAYOUTS } from '../../runtime/engine/engine-config.js';
import { tinyEagle3D2tPath, tinyEagle3Path, tinyLlama3Path, tinyModelPath } from '../../fixtures/paths.js';
import { makeTinyEagle3 } from '../../fixtures/tiny-eagle3.js';
import { assertFeaturesAsPlain, assertGrammarAsPlain, assertSameAsPlain, draftCounts, outputOf, runToEnd } from '../helpers/engine-run.js';
import { tinyEngine, UNCACHED_LIMITS } from '../helpers/tiny-engine.js';
import { gpt2WordTokens, repetitivePrompt } from '../helpers/test-random.js';

interface Engines {
  plain: Engine;
  /** The tiny draft, 3 drafts a step. */
  fixed: Engine;
  /** The same draft over a permuted vocabulary with a d2t map, 3 drafts a step. */
  mapped: Engine;
  /** The tiny draft, draft length chosen per sequence. */
  adaptive: Engine;
}

const test = suite<Engines>('speculative decoding with an EAGLE-3 draft');

// No prefix cache: prompts are computed in the same batches as the plain engine's (see UNCACHED_LIMITS).
const limits = UNCACHED_LIMITS;

test.before(async (context) => {
  context.plain = await tinyEngine({ overrides: limits });
  context.fixed = await tinyEngine({ overrides: { ...limits, spec_draft_length: 3 }, speculativeMode: 'eagle', draftModelPath: tinyEagle3Path });
  context.mapped = await tinyEngine({ overrides: { ...limits, spec_draft_length: 3 }, speculativeMode: 'eagle', draftModelPath: tinyEagle3D2tPath });
  context.adaptive = await tinyEngine({ overrides: limits, speculativeMode: 'eagle', draftModelPath: tinyEagle3Path });
});
test.after(async ({ plain, fixed, mapped, adaptive }) => {
  for (const engine of [plain, fixed, mapped, adaptive]) await engine.dispose();
});

/** The plain engine's outputs must come from every speculative one too. */
const assertSameOutputs = (e: Engines, request: GenerateRequest, what: string) => assertSameAsPlain(e.plain, { fixed: e.fixed, mapped: e.mapped, adaptive: e.adaptive }, request, what);

test('greedy outputs are the plain ones, token for token, while drafts are accepted and rejected', async (engines) => {
  const before = await draftCounts(engines.fixed);
  const mappedBefore = await draftCounts(engines.mapped);
  const adaptiveBefore = await draftCounts(engines.adaptive);
  for (let seed = 1; seed <= 12; seed++) {
    const prompt = seed % 3 === 0 ? gpt2WordTokens(seed, 12) : repetitivePrompt(seed, 2 + (seed % 4), 5);
    await assertSameOutputs(engines, { prompt, maxTokens: 48, sampling: { temperature: 0 } }, `prompt ${seed}`);
  }
  const after = await draftCounts(engines.fixed);
  const [proposed, accepted] = [after.proposed - before.proposed, after.accepted - before.accepted];
  assert.ok(accepted > 10, `drafts were accepted (${accepted} of ${proposed})`);
  assert.ok(proposed - accepted > 10, `drafts were rejected (${proposed - accepted} of ${proposed})`);
  // The d2t map only renames the draft's vocabulary: the same drafts, the same verdicts.
  const mappedAfter = await draftCounts(engines.mapped);
  assert.equal({ proposed: mappedAfter.proposed - mappedBefore.proposed, accepted: mappedAfter.accepted - mappedBefore.accepted }, { proposed, accepted }, 'the d2t draft drafts as the plain one');
  const adaptiveAfter = await draftCounts(engines.adaptive);
  assert.ok(adaptiveAfter.proposed > adaptiveBefore.proposed, 'the adaptive engine drafted too');
});

test('drafts past the first position are accepted: the draft\'s own state carries on', async ({ fixed }) => {
  for (let seed = 20; seed < 26; seed++) await runToEnd(fixed, { prompt: repetitivePrompt(seed, 3, 5), maxTokens: 40, sampling: { temperature: 0 } });
  const stats = await fixed.stats();
  assert.ok((stats.draftPositions.accepted[1] ?? 0) > 0, `second drafts accepted: ${JSON.stringify(stats.draftPositions)}`);
});

test('seeded sampling gives the same tokens with EAGLE-3 drafts, seed for seed', async (engines) => {
  for (let seed = 0; seed < 12; seed++) {
    const prompt = repetitivePrompt(100 + seed, 2 + (seed % 3), 5);
    await assertSameOutputs(engines, { prompt, maxTokens: 32, seed, sampling: { temperature: seed % 4 === 0 ? 1.2 : 0.3, topP: 0.95 } }, `seed ${seed}`);
  }
});

test('penalties, stop strings, logprobs and n choices are the plain ones', (engines) =>
  assertFeaturesAsPlain((request, what) => assertSameOutputs(engines, request, what), { frequencyPenalty: 0.3, presencePenalty: 0.2 }),
);

test('under a JSON schema, EAGLE-3 drafts are cut to what it accepts and the output is the plain one', (engines) =>
  assertGrammarAsPlain(engines.plain, (request, what) => assertSameOutputs(engines, request, what)),
);

// In both KV layouts: the draft's cache mirrors the target's shared cells, or its copied streams.
for (const kvLayout of KV_LAYOUTS) test(`prefix-cache hits (${kvLayout} KV layout): outputs stay exact, and the draft, whose cache mirrors the target's, still drafts and is accepted`, async () => {
  const cachedLimits = { context_window_size: 1024 };
  const plain = await tinyEngine({ kvLayout, overrides: cachedLimits });
  const eagle = await tinyEngine({ kvLayout, overrides: { ...cachedLimits, spec_draft_length: 3 }, speculativeMode: 'eagle', draftModelPath: tinyEagle3Path });
  try {
    for (let seed = 0; seed < 4; seed++) {
      const prompt = repetitivePrompt(700 + seed, 3, 5);
      const request: GenerateRequest = { prompt, maxTokens: 32, sampling: { temperature: 0 } };
      // The first run fills the cache, the second takes the prompt from it; n = 3 shares it between choices.
      await assertSameAsPlain(plain, { eagle }, request, `first run ${seed}`);
      const before = await draftCounts(eagle);
      const [hit] = await assertSameAsPlain(plain, { eagle }, request, `cache hit ${seed}`);
      assert.ok(hit!.cachedTokens > 0, `the second run took its prompt from the cache (${hit!.cachedTokens} tokens)`);
      const after = await draftCounts(eagle);
      assert.ok(after.proposed > before.proposed, `drafted after a cache hit (seed ${seed})`);
      await assertSameAsPlain(plain, { eagle }, { ...request, n: 3, seed, sampling: { temperature: 0.5 } }, `n = 3 from the cache ${seed}`);
    }
    const stats = await eagle.stats();
    assert.ok(stats.acceptedDraftTokens > 0, `drafts accepted with the cache on (${stats.acceptedDraftTokens} of ${stats.draftTokens})`);
  } finally {
    await plain.dispose();
    await eagle.dispose();
  }
});

test('a shared cache too small for the requests: preemptions keep outputs exact, and the draft follows', async () => {
  const small = { context_window_size: 256, max_total_seq_length: 160, max_num_sequence: 4, prefix_cache_max_num_recycling_seqs: 0 };
  const plain = await tinyEngine({ overrides: small });
  const eagle = await tinyEngine({ overrides: { ...small, spec_draft_length: 3 }, speculativeMode: 'eagle', draftModelPath: tinyEagle3Path });
  try {
    for (let round = 0; round < 3; round++) {
      const requests: GenerateRequest[] = [0, 1, 2, 3].map((i) => ({ prompt: repetitivePrompt(900 + 4 * round + i, 3, 8), maxTokens: 48, sampling: { temperature: 0 } }));
      const expected = await Promise.all(requests.map((request) => runToEnd(plain, request)));
      const results = await Promise.all(requests.map((request) => runToEnd(eagle, request)));
      results.forEach((result, i) => assert.equal(result.choices.map(outputOf), expected[i]!.choices.map(outputOf), `round ${round}, request ${i}`));
    }
    const stats = await eagle.stats();
    assert.ok(stats.preemptions > 0, 'sequences were preempted');
    assert.ok(stats.acceptedDraftTokens > 0, `drafts accepted (${stats.acceptedDraftTokens} of ${stats.draftTokens})`);
  } finally {
    await plain.dispose();
    await eagle.dispose();
  }
});

test('a draft whose logits are NaN only stops drafting: outputs are the plain ones, no request fails', async ({ plain }) => {
  const dir = await mkdtemp(join(tmpdir(), 'lmforge-eagle-nan-'));
  const path = join(dir, 'nan.gguf');
  await makeTinyEagle3({ out: path, target: tinyModelPath, nan: true });
  const broken = await tinyEngine({ overrides: { ...limits, spec_draft_length: 3 }, speculativeMode: 'eagle', draftModelPath: path });
  try {
    const schema = { type: 'object', properties: { name: { type: 'string', maxLength: 12 } }, required: ['name'], additionalProperties: false };
    const grammar = await plain.compileGrammar({ kind: 'json_schema', schema });
    for (let seed = 0; seed < 3; seed++) {
      await assertSameAsPlain(plain, { broken }, { prompt: repetitivePrompt(800 + seed, 2, 5), maxTokens: 24, sampling: { temperature: 0 } }, `free ${seed}`);
      await assertSameAsPlain(plain, { broken }, { prompt: repetitivePrompt(810 + seed, 2, 5), maxTokens: 40, grammar, sampling: { temperature: 0 } }, `grammar ${seed}`);
    }
  } finally {
    await broken.dispose();
    await rm(dir, { recursive: true, force: true });
  }
});

test('drafts that do not fit the model are refused at start-up, saying why', async () => {
  const start = (draft: string, modelPath = tinyModelPath): Promise<string> =>
    tinyEngine({ modelPath, overrides: { context_window_size: 256 }, speculativeMode: 'eagle', draftModelPath: draft }).then(
      async (engine) => {
        await engine.dispose();
        throw new Error('the engine started');
      },
      (error: Error) => {
        assert.instance(error, EngineStartError);
        return error.message;
      },
    );
  const dir = await mkdtemp(join(tmpdir(), 'lmforge-eagle-'));
  try {
    assert.match(await start(tinyModelPath), /tiny-gpt2\.gguf is not an EAGLE-3 draft \(general\.architecture is "llama", not "eagle3"\)/);
    // The Llama 3 tiny model has the same width and layers, another vocabulary.
    assert.match(await start(tinyEagle3Path, tinyLlama3Path), /tiny-gpt2-eagle3\.gguf: its token embeddings cover 50257 tokens, the model has \d+: it was made for another vocabulary$/);
    const deep = join(dir, 'deep.gguf');
    await makeTinyEagle3({ out: deep, target: tinyModelPath, targetLayers: [0, 1, 5] });
    assert.match(await start(deep), /deep\.gguf: it reads target layer 5, but the model has 2 layers \(ids 0-2\): it was made for another model$/);
    const narrow = join(dir, 'narrow.gguf');
    await makeTinyEagle3({ out: narrow, target: tinyModelPath, targetHiddenSize: 32 });
    assert.match(await start(narrow), /narrow\.gguf: it reads target hidden states of width 32, the model's are 64: it was made for another model$/);
    const short = join(dir, 'short-map.gguf');
    await makeTinyEagle3({ out: short, target: tinyModelPath, ownOutput: true, draftVocab: 1000 });
    assert.match(await start(short), /short-map\.gguf: its output matrix predicts 50257 tokens, but its d2t map has 1000: vocabulary mismatch$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
