// Speculative decoding through the real llama.cpp backend (a tiny random-weight model with
// GPT-2's vocabulary): with drafts from prompt lookup and forced grammar text, every output is
// the one plain decoding gives, token for token and seed for seed: greedy, sampled, with
// penalties and logit bias, stop strings, logprobs, n choices and grammars. Equality per seed is
// stronger than equal distributions: it holds for every seed, so the distributions of the
// first, second and every later token match too. Drafts are proposed and both accepted and
// rejected along the way (the tests check the counts), and rejected ones leave no KV cells.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Engine } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../../runtime/engine/protocol.js';
import { POISONED_TOKEN, tinyDraftModelPath, tinyLlama3Path, tinyModelPath, tinyPoisonedModelPath } from '../../fixtures/paths.js';
import { EngineStartError } from '../../runtime/engine/client/engine.js';
import { assertSameAsPlain, draftCounts, outputOf, runToEnd } from '../helpers/engine-run.js';
import { tinyEngine, UNCACHED_LIMITS } from '../helpers/tiny-engine.js';
import { gpt2WordTokens, repetitivePrompt } from '../helpers/test-random.js';

interface Engines {
  plain: Engine;
  /** ngram, with the draft length chosen per sequence. */
  adaptive: Engine;
  /** ngram, 4 draft tokens whenever a lookup finds them. */
  fixed: Engine;
  /** small_draft: the tiny model's first block alone drafts 4 tokens a step. */
  drafted: Engine;
}

const test = suite<Engines>('speculative decoding');

// No prefix cache: prompts are computed in the same batches as the plain engine's (see UNCACHED_LIMITS).
const limits = UNCACHED_LIMITS;

test.before(async (context) => {
  context.plain = await tinyEngine({ overrides: limits });
  context.adaptive = await tinyEngine({ overrides: limits, speculativeMode: 'ngram' });
  context.fixed = await tinyEngine({ overrides: { ...limits, spec_draft_length: 4 }, speculativeMode: 'ngram' });
  context.drafted = await tinyEngine({ overrides: { ...limits, spec_draft_length: 4 }, speculativeMode: 'small_draft', draftModelPath: tinyDraftModelPath });
});
test.after(async ({ plain, adaptive, fixed, drafted }) => {
  for (const engine of [plain, adaptive, fixed, drafted]) await engine.dispose();
});

/** The plain engine's outputs must come from every speculative one too. */
const assertSameOutputs = (e: Engines, request: GenerateRequest, what: string) => assertSameAsPlain(e.plain, { adaptive: e.adaptive, fixed: e.fixed, drafted: e.drafted }, request, what);

test('greedy outputs are the plain ones, token for token, while drafts are accepted and rejected', async (engines) => {
  const before = await draftCounts(engines.fixed);
  const modelBefore = await draftCounts(engines.drafted);
  for (let seed = 1; seed <= 12; seed++) {
    const prompt = repetitivePrompt(seed, 3 + (seed % 5), 6);
    await assertSameOutputs(engines, { prompt, maxTokens: 48, sampling: { temperature: 0 } }, `prompt ${seed}`);
  }
  const after = await draftCounts(engines.fixed);
  const proposed = after.proposed - before.proposed;
  const accepted = after.accepted - before.accepted;
  assert.ok(accepted > 20, `drafts were accepted (${accepted} of ${proposed})`);
  assert.ok(proposed - accepted > 20, `drafts were rejected (${proposed - accepted} of ${proposed})`);
  const modelAfter = await draftCounts(engines.drafted);
  const [modelProposed, modelAccepted] = [modelAfter.proposed - modelBefore.proposed, modelAfter.accepted - modelBefore.accepted];
  assert.ok(modelAccepted > 20 && modelProposed - modelAccepted > 20, `the draft model's drafts were accepted (${modelAccepted}) and rejected (${modelProposed - modelAccepted})`);
});

test('a draft model with the target\'s own weights has its greedy drafts accepted', async ({ plain }) => {
  const self = await tinyEngine({ overrides: { ...limits, spec_draft_length: 4 }, speculativeMode: 'small_draft', draftModelPath: tinyModelPath });
  try {
    for (let seed = 1; seed <= 4; seed++) {
      const request: GenerateRequest = { prompt: repetitivePrompt(800 + seed, 7, 2), maxTokens: 40, sampling: { temperature: 0 } };
      assert.equal((await runToEnd(self, request)).choices.map(outputOf), (await runToEnd(plain, request)).choices.map(outputOf));
    }
    const { proposed, accepted } = await draftCounts(self);
    // Only batch-shape rounding can tell the two apart.
    assert.ok(proposed > 50 && accepted >= 0.95 * proposed, `${accepted} of ${proposed} accepted`);
  } finally {
    await self.dispose();
  }
});

test('a prediction is drafted by every mode, a draft model\'s included: outputs are the plain ones, the counts in each finish', async (engines) => {
  for (let seed = 1; seed <= 3; seed++) {
    const request: GenerateRequest = { prompt: repetitivePrompt(300 + seed, 4, 6), maxTokens: 40, n: 2, seed, sampling: { temperature: seed === 1 ? 0 : 0.7 } };
    const [first] = (await runToEnd(engines.plain, request)).choices;
    const predicted = { ...request, prediction: first!.text };
    const choices = await assertSameOutputs(engines, predicted, `prediction, seed ${seed}`);
    assert.equal(choices.map((choice) => choice.prediction), [{ accepted: 0, rejected: 0 }, { accepted: 0, rejected: 0 }], 'the plain engine drafts nothing');
    for (const name of ['fixed', 'drafted'] as const) {
      const [kept] = (await runToEnd(engines[name], predicted)).choices;
      assert.ok(kept!.prediction!.accepted >= kept!.completionTokens / 2, `${name}, seed ${seed}: ${JSON.stringify(kept!.prediction)} of ${kept!.completionTokens}`);
    }
  }
});

test('a draft model whose logits turn NaN only stops drafting: outputs are the plain ones, no request fails', async ({ plain }) => {
  // The poisoned twin of the target gives NaN logits to any sequence holding POISONED_TOKEN.
  const poisoned = await tinyEngine({ overrides: { ...limits, spec_draft_length: 4 }, speculativeMode: 'small_draft', draftModelPath: tinyPoisonedModelPath });
  try {
    for (let seed = 1; seed <= 3; seed++) {
      const prompt = [...repetitivePrompt(850 + seed, 3, 3), POISONED_TOKEN, ...repetitivePrompt(860 + seed, 3, 2)];
      await assertSameAsPlain(plain, { poisoned }, { prompt, maxTokens: 24, sampling: { temperature: 0 } }, `seed ${seed}`);
    }
  } finally {
    await poisoned.dispose();
  }
});

test('a draft model catching up several long prompts in several decodes drafts from each one\'s own last row', async ({ plain }) => {
  // A batch of 8 + 2 tokens: two 30-token prompts take the draft four decodes to catch up.
  const self = await tinyEngine({
    overrides: { ...limits, max_num_sequence: 2, prefill_chunk_size: 8, spec_draft_length: 4 },
    speculativeMode: 'small_draft', draftModelPath: tinyModelPath,
  });
  try {
    const requests: GenerateRequest[] = [1, 2].map((seed) => ({ prompt: repetitivePrompt(850 + seed, 10, 3), maxTokens: 24, sampling: { temperature: 0 } }));
    const together = await Promise.all(requests.map((request) => runToEnd(self, request)));
    for (const [i, request] of requests.entries()) {
      assert.equal(together[i]!.choices.map(outputOf), (await runToEnd(plain, request)).choices.map(outputOf));
    }
    const { proposed, accepted } = await draftCounts(self);
    assert.ok(proposed > 20 && accepted >= 0.95 * proposed, `${accepted} of ${proposed} accepted`);
  } finally {
    await self.dispose();
  }
});

test('a draft model whose vocabulary differs is refused at start-up, saying where', async () => {
  try {
    await tinyEngine({ overrides: { context_window_size: 256 }, speculativeMode: 'small_draft', draftModelPath: tinyLlama3Path });
    assert.unreachable('the engine started');
  } catch (error) {
    assert.instance(error, EngineStartError);
    assert.match((error as Error).message, /^--additional-models .*tiny-llama3\.gguf: its vocabulary is not the model's, so its drafts cannot be verified: it has \d+ tokens, the model 50257$/);
  }
});

test('seeded sampling gives the same tokens with speculation, seed for seed', async (engines) => {
  for (let seed = 0; seed < 24; seed++) {
    const prompt = repetitivePrompt(100 + seed, 4, 5);
    await assertSameOutputs(engines, { prompt, maxTokens: 32, seed, sampling: { temperature: 0.8, topP: 0.95 } }, `seed ${seed}`);
  }
});

/**
 * Pearson's two-sample chi-square statistic over the categories both histograms use, rare ones
 * (fewer than 10 draws in both together) pooled into one; returns it with its degrees of freedom.
 */
function chiSquare(a: Map<number, number>, b: Map<number, number>): { statistic: number; freedom: number } {
  const na = [...a.values()].reduce((x, y) => x + y, 0);
  const nb = [...b.values()].reduce((x, y) => x + y, 0);
  const bins: [number, number][] = [];
  const pooled: [number, number] = [0, 0];
  for (const token of new Set([...a.keys(), ...b.keys()])) {
    const pair: [number, number] = [a.get(token) ?? 0, b.get(token) ?? 0];
    if (pair[0] + pair[1] < 10) [pooled[0], pooled[1]] = [pooled[0] + pair[0], pooled[1] + pair[1]];
    else bins.push(pair);
  }
  if (pooled[0] + pooled[1] > 0) bins.push(pooled);
  let statistic = 0;
  for (const [x, y] of bins) {
    const expectedA = ((x + y) * na) / (na + nb);
    const expectedB = ((x + y) * nb) / (na + nb);
    statistic += (x - expectedA) ** 2 / expectedA + (y - expectedB) ** 2 / expectedB;
  }
  return { statistic, freedom: bins.length - 1 };
}

/** Wilson–Hilferty: the chi-square quantile with k degrees of freedom at the normal quantile z (3.09: p = 0.001). */
function chiSquareQuantile(k: number, z: number): number {
  const h = 2 / (9 * k);
  return k * (1 - h + z * Math.sqrt(h)) ** 3;
}

test('over many seeds, the first three tokens are distributed as without speculation (chi-square)', async ({ plain, drafted }) => {
  const prompt = repetitivePrompt(900, 3, 6);
  // The draft model drafts from the second step on: the third token comes from a drafted row when
  // the first draft token was accepted. A low temperature: this random model spreads its mass thin.
  const histograms = () => [new Map<number, number>(), new Map<number, number>(), new Map<number, number>()];
  const [plainTokens, speculativeTokens] = [histograms(), histograms()];
  const before = await draftCounts(drafted);
  for (let seed = 0; seed < 200; seed++) {
    for (const [engine, counts] of [[plain, plainTokens], [drafted, speculativeTokens]] as const) {
      const { tokens } = (await runToEnd(engine, { prompt, maxTokens: 3, seed, sampling: { temperature: 0.15 } })).choices[0]!;
      tokens.forEach((token, position) => counts[position]!.set(token, (counts[position]!.get(token) ?? 0) + 1));
    }
  }
  const after = await draftCounts(drafted);
  assert.ok(after.accepted - before.accepted > 20, `third tokens came from drafted rows (${after.accepted - before.accepted})`);
  for (const position of [0, 1, 2]) {
    const { statistic, freedom } = chiSquare(plainTokens[position]!, speculativeTokens[position]!);
    assert.ok(freedom >= 2, `position ${position}: the draws spread over several tokens`);
    const critical = chiSquareQuantile(freedom, 3.09);
    assert.ok(statistic < critical, `position ${position}: chi-square ${statistic.toFixed(2)} ≥ ${critical.toFixed(2)} (p < 0.001, ${freedom} degrees of freedom)`);
  }
});

test('penalties and logit bias see only accepted tokens', async (engines) => {
  for (let seed = 0; seed < 6; seed++) {
    const prompt = repetitivePrompt(200 + seed, 5, 4);
    const bias = new Map([[prompt[1]!, 3], [prompt[2]!, -2]]);
    await assertSameOutputs(
      engines,
      { prompt, maxTokens: 40, seed, sampling: { temperature: seed % 2 ? 0.7 : 0, frequencyPenalty: 0.6, presencePenalty: 0.4, logitBias: bias } },
      `penalties, seed ${seed}`,
    );
  }
});

test('stop strings end the output where plain decoding ends it, also inside an accepted draft', async (engines) => {
  for (let seed = 1; seed <= 6; seed++) {
    const prompt = repetitivePrompt(300 + seed, 3, 6);
    const [free] = await assertSameOutputs(engines, { prompt, maxTokens: 40, sampling: { temperature: 0 } }, `free ${seed}`);
    // A stop string from the middle of the free output, spanning a token boundary where possible.
    const text = free!.text;
    const stop = text.slice(Math.floor(text.length / 2), Math.floor(text.length / 2) + 4);
    if (stop.trim() === '') continue;
    const [stopped] = await assertSameOutputs(engines, { prompt, maxTokens: 40, stop: [stop], sampling: { temperature: 0 } }, `stop ${JSON.stringify(stop)}`);
    assert.is(stopped!.reason, 'stop');
    assert.ok(!stopped!.text.includes(stop));
  }
});

test('logprobs describe the accepted tokens from the target distribution', async (engines) => {
  const prompt = repetitivePrompt(400, 4, 6);
  const request: GenerateRequest = { prompt, maxTokens: 32, seed: 3, sampling: { temperature: 0.7, logprobs: true, topLogprobs: 3 } };
  const plain = await runToEnd(engines.plain, request);
  const speculative = await runToEnd(engines.fixed, request);
  assert.equal(speculative.choices.map(outputOf), plain.choices.map(outputOf));
  plain.choices[0]!.logprobs.forEach((entry, k) => {
    const other = speculative.choices[0]!.logprobs[k]!;
    // Rows computed in another batch shape move by float rounding only.
    assert.ok(Math.abs(entry.logprob - other.logprob) < 0.01, `token ${k}: ${entry.logprob} against ${other.logprob}`);
    assert.equal(other.top.map((top) => top.token), entry.top.map((top) => top.token));
    assert.equal(other.bytes, entry.bytes);
  });
});

test('n choices each follow their own seeded stream, drafted or not', async (engines) => {
  const prompt = repetitivePrompt(500, 5, 5);
  const choices = await assertSameOutputs(engines, { prompt, n: 3, maxTokens: 32, seed: 9, sampling: { temperature: 0.9 } }, 'n = 3');
  assert.is(choices.length, 3);
});

test('under a grammar, forced text is drafted and the output is the plain one', async (engines) => {
  const schema = {
    type: 'object',
    properties: { identifier_of_the_item: { type: 'integer' }, category_name: { type: 'string', enum: ['first_category_value', 'second_category_value'] } },
    required: ['identifier_of_the_item', 'category_name'],
    additionalProperties: false,
  };
  const grammar = await engines.plain.compileGrammar({ kind: 'json_schema', schema });
  // The fixed draft length drafts whatever the learnt costs say, so the counts do not depend on the machine.
  const before = await draftCounts(engines.fixed);
  for (let seed = 0; seed < 4; seed++) {
    const prompt = repetitivePrompt(600 + seed, 4, 3);
    const [choice] = await assertSameOutputs(engines, { prompt, maxTokens: 80, seed, grammar, sampling: { temperature: seed % 2 ? 0.8 : 0 } }, `grammar, seed ${seed}`);
    if (choice!.reason === 'stop') assert.ok(['first_category_value', 'second_category_value'].includes(JSON.parse(choice!.text).category_name));
  }
  // A random-weight model often spells forced text in other tokens than the tokenizer's (the
  // grammar allows every spelling): drafts are accepted, but far less often than with a real model.
  const after = await draftCounts(engines.fixed);
  const [proposed, accepted] = [after.proposed - before.proposed, after.accepted - before.accepted];
  assert.ok(proposed > 20 && accepted > 5, `forced tokens were drafted (${proposed}) and accepted (${accepted})`);
});

test('forced text is drafted as the model spelt it in an earlier request with the same schema', async ({ plain }) => {
  // Keys and enum values no prompt mentions: under the mask this model spells them in its own
  // fragments. The second request (the same, greedy) finds the first one's spellings.
  const schema = {
    type: 'object',
    properties: { measured_value_in_units: { type: 'integer' }, quality_level: { type: 'string', enum: ['acceptable_quality_level', 'rejected_for_poor_quality'] } },
    required: ['measured_value_in_units', 'quality_level'],
    additionalProperties: false,
  };
  const engine = await tinyEngine({ overrides: { ...limits, spec_draft_length: 4 }, speculativeMode: 'ngram' });
  try {
    const grammar = await engine.compileGrammar({ kind: 'json_schema', schema });
    const request: GenerateRequest = { prompt: gpt2WordTokens(77, 12), maxTokens: 60, grammar, sampling: { temperature: 0 } };
    const expected = (await runToEnd(plain, request)).choices.map(outputOf);
    const rounds = [];
    for (let round = 0; round < 2; round++) {
      const before = await draftCounts(engine);
      assert.equal((await runToEnd(engine, request)).choices.map(outputOf), expected, `round ${round + 1}`);
      const after = await draftCounts(engine);
      rounds.push({ proposed: after.proposed - before.proposed, accepted: after.accepted - before.accepted });
    }
    const [first, second] = rounds as [(typeof rounds)[0], (typeof rounds)[0]];
    console.log(`  forced drafts accepted: ${first.accepted}/${first.proposed}, then ${second.accepted}/${second.proposed}`);
    // Drafts where nothing is forced come from prompt lookup and are often rejected in both
    // rounds; the forced ones are the model's own spellings in the second (measured: 12 of 39
    // accepted, then 16 of 24).
    assert.ok(second.accepted > first.accepted, JSON.stringify(rounds));
    assert.ok(second.accepted / second.proposed > first.accepted / first.proposed + 0.2, JSON.stringify(rounds));
  } finally {
    await engine.dispose();
  }
});

test('an accepted draft arrives as one delta of several tokens, and no draft cell outlives its step', async () => {
  const cached = await tinyEngine({ overrides: { context_window_size: 1024, spec_draft_length: 4 }, speculativeMode: 'ngram' });
  try {
    const prompt = repetitivePrompt(700, 3, 8);
    const result = await runToEnd(cached, { prompt, maxTokens: 48, sampling: { temperature: 0 } });
    const choice = result.choices[0]!;
    assert.ok(choice.pieces.length < choice.tokens.length, `${choice.tokens.length} tokens came in ${choice.pieces.length} deltas`);
    const stats = await cached.stats();
    assert.is(stats.running, 0);
    assert.is(stats.kvCellsUsed, 0, 'nothing running holds cells');
    // The finished request's cells stay in the prefix cache: its prompt and output, not one more.
    assert.is(stats.kvCellsCached, prompt.length + choice.tokens.length - 1, 'the last token was sampled, never computed');
    const again = await runToEnd(cached, { prompt: [...prompt, ...choice.tokens], maxTokens: 1, sampling: { temperature: 0 } });
    assert.is(again.choices[0]!.cachedTokens, prompt.length + choice.tokens.length - 1);
  } finally {
    await cached.dispose();
  }
});

test('a stream per sequence: a draft model drafts beside prefix-cache hits, and outputs are the plain ones', async () => {
  // The draft's context has a stream per sequence id too, and catches up on what the target
  // took from its cache (draft-model.ts).
  const overrides = { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 4 };
  const plain = await tinyEngine({ kvLayout: 'per-sequence', overrides });
  const drafted = await tinyEngine({ kvLayout: 'per-sequence', overrides: { ...overrides, spec_draft_length: 4 }, speculativeMode: 'small_draft', draftModelPath: tinyDraftModelPath });
  try {
    const before = await draftCounts(drafted);
    const history = repetitivePrompt(800, 4, 30);
    for (const [turn, prompt] of [history, [...history, ...repetitivePrompt(801, 3, 4)], [...history.slice(0, 90), ...repetitivePrompt(802, 5, 3)]].entries()) {
      await assertSameAsPlain(plain, { drafted }, { prompt, maxTokens: 32, sampling: { temperature: 0 } }, `turn ${turn}`);
      await assertSameAsPlain(plain, { drafted }, { prompt, maxTokens: 16, n: 2, seed: turn, sampling: { temperature: 1 } }, `turn ${turn}, n = 2`);
    }
    const after = await draftCounts(drafted);
    assert.ok(after.accepted - before.accepted > 0, `drafts were accepted (${after.accepted - before.accepted} of ${after.proposed - before.proposed})`);
    const hit = await runToEnd(drafted, { prompt: [...history, 1, 2], maxTokens: 2 });
    assert.ok(hit.choices[0]!.cachedTokens >= history.length, `served from cache (${hit.choices[0]!.cachedTokens})`);
  } finally {
    await plain.dispose();
    await drafted.dispose();
  }
});

test.run();
