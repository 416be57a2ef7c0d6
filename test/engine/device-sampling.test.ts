// Sampling in the model's graph (--sampling device) against the host path, through the real
// llama.cpp backend on the CPU (a device like any other here): greedy is the host's token for
// token (the tiny random model and the default model, several prompts and batch sizes), with
// logit_bias and every penalty; seeded sampling is reproducible; every stage is observable; and
// the first token's draws follow the distribution both paths promise (chi-square), at the
// request's temperature after top_k, top_p and min_p.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineRequestError, EngineStartError, type Engine } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest, TokenLogprob } from '../../runtime/engine/protocol.js';
import type { SamplingParams } from '../../runtime/sampling/sampling-params.js';
import { defaultModelPath } from '../../fixtures/paths.js';
import { runToEnd, type ChoiceResult } from '../helpers/engine-run.js';
import { tinyEngine, UNCACHED_LIMITS } from '../helpers/tiny-engine.js';
import { gpt2WordTokens, repetitivePrompt } from '../helpers/test-random.js';
import { minPOracle, softmax, topPOracle, typicalOracle, xtcOracle } from '../sampling/oracle.js';
import { Engine as EngineClass } from '../../runtime/engine/client/engine.js';
import { systemFingerprint } from '../../runtime/server/api-server.js';
import { chainLinks, DeviceSampling, hostOnlyReason } from '../../runtime/engine/worker/device-sampling.js';
import type { Sequence } from '../../runtime/engine/worker/sequence.js';
import { chiSquare } from '../helpers/chi-square.js';

interface Engines {
  host: Engine;
  device: Engine;
}

const test = suite<Engines>('sampling on the device');
const limits = { ...UNCACHED_LIMITS, max_num_sequence: 16 };

test.before(async (context) => {
  context.host = await tinyEngine({ overrides: limits, sampling: 'host' });
  context.device = await tinyEngine({ overrides: limits, sampling: 'device' });
  // Every comparison below is vacuous unless the engine really samples in the graph.
  assert.is(context.device.info.sampling, 'device');
});
test.after(async ({ host, device }) => {
  await host.dispose();
  await device.dispose();
});

/** Each request's choices' tokens, the requests sent together (one batch). */
async function tokensOf(engine: Engine, requests: GenerateRequest[]): Promise<number[][][]> {
  const results = await Promise.all(requests.map((request) => runToEnd(engine, request)));
  return results.map((result) => result.choices.map((choice) => choice.tokens));
}

/** The tokens of a request's only choice. */
async function onlyChoice(engine: Engine, request: GenerateRequest): Promise<number[]> {
  const [[tokens]] = (await tokensOf(engine, [request])) as [[number[]]];
  return tokens;
}

// The fourth is long enough (≥ 64 tokens) that the CPU runner decodes the streams beside it in
// a batch of their own (model-runner.ts splitSteps): their tokens are read between the two.
const prompts = [repetitivePrompt(200, 2, 6), repetitivePrompt(201, 3, 4), gpt2WordTokens(202, 9), gpt2WordTokens(203, 90), repetitivePrompt(204, 5, 3)];

test('greedy on the device is the host token for token: prompts alone and 4 at once, with logit_bias, penalties and DRY', async ({ host, device }) => {
  const variants: Partial<SamplingParams>[] = [
    { temperature: 0 },
    { temperature: 0, logitBias: new Map([[prompts[0]![0]!, 3], [50, -100]]) },
    { temperature: 0, frequencyPenalty: 1.2 },
    { temperature: 0, presencePenalty: 1.5 },
    { temperature: 0, repetitionPenalty: 1.6, repeatLastN: 8 },
    { temperature: 0, repetitionPenalty: 1.3, frequencyPenalty: 0.4, presencePenalty: 0.3 },
    // DRY with no sequence breakers (the random model's tokens would end its repeats at random).
    { temperature: 0, dryMultiplier: 2, dryAllowedLength: 2, drySequenceBreakers: [] },
    { temperature: 0, dryMultiplier: 0.8, dryBase: 2, dryAllowedLength: 3, dryPenaltyLastN: 24, drySequenceBreakers: [], frequencyPenalty: 0.4 },
  ];
  for (const sampling of variants) {
    for (const width of [1, 4]) {
      const requests = prompts.slice(0, width).map((prompt) => ({ prompt, maxTokens: 16, sampling }));
      assert.equal(await tokensOf(device, requests), await tokensOf(host, requests), `${JSON.stringify(sampling, (_, v) => (v instanceof Map ? [...v] : v))}, ${width} at once`);
    }
  }
});

test('requests coming and going on the chains of lmforge\'s own links: greedy DRY stays the host\'s, every stage at once keeps answering', async () => {
  // Rounds of 4 requests of unequal lengths: chains go idle as their sequences end (a step lists
  // nothing for them) and the next round's requests take them over. A link's inputs live in
  // the graph's compute buffer, which the graph reuses once they are read: a step that uploaded
  // less than its whole input read ids other tensors left there. In this engine's shapes (4
  // sequences, 8,192 cells, the prefix cache on) that aborted the engine in the second round.
  const overrides = { max_num_sequence: 4, context_window_size: 2048, max_total_seq_length: 8192 };
  const [host, device] = [await tinyEngine({ overrides, sampling: 'host' }), await tinyEngine({ overrides, sampling: 'device' })];
  const dry = { temperature: 0, dryMultiplier: 2, dryAllowedLength: 2, drySequenceBreakers: [] };
  const every = { temperature: 0.8, topP: 0.95, frequencyPenalty: 0.3, presencePenalty: 0.3, repetitionPenalty: 1.1, topNSigma: 2, typicalP: 0.9, xtcProbability: 0.5, dryMultiplier: 0.8 };
  try {
    for (let round = 0; round < 3; round++) {
      const requests = [0, 1, 2, 3].map((i) => ({ prompt: repetitivePrompt(400 + 4 * round + i, 3, 4), maxTokens: 6 + 3 * i, ignoreEos: true, sampling: dry }));
      assert.equal(await tokensOf(device, requests), await tokensOf(host, requests), `round ${round}: greedy with DRY`);
      const sampled = await tokensOf(device, requests.map((request, i) => ({ ...request, seed: 10 * round + i, sampling: every })));
      assert.equal(sampled.map(([tokens]) => tokens!.length), [6, 9, 12, 15], `round ${round}: every stage, each request its length`);
    }
  } finally {
    await host.dispose();
    await device.dispose();
  }
});

test('penalties, DRY and logit_bias change the device output where they change the host one', async ({ device }) => {
  const prompt = repetitivePrompt(77, 3, 4);
  const plain = await onlyChoice(device, { prompt, maxTokens: 24, sampling: { temperature: 0 } });
  // The random model loops under greedy decoding here; every penalty breaks the loop.
  assert.ok(new Set(plain).size <= plain.length - 6, `greedy repeats itself: ${plain}`);
  for (const sampling of [{ frequencyPenalty: 1.5 }, { presencePenalty: 1.5 }, { repetitionPenalty: 2, repeatLastN: 64 }, { dryMultiplier: 2, drySequenceBreakers: [] }]) {
    const penalised = await onlyChoice(device, { prompt, maxTokens: 24, sampling: { temperature: 0, ...sampling } });
    assert.not.equal(penalised, plain, JSON.stringify(sampling));
  }
  const biased = await onlyChoice(device, { prompt, maxTokens: 8, seed: 1, sampling: { temperature: 1, logitBias: new Map([[1234, 100]]) } });
  assert.equal(biased, new Array(8).fill(1234));
});

test('seeded sampling on the device: the same seed in the same batch gives the same tokens, another seed others', async ({ host, device }) => {
  // One request of 4 choices: its sequences join the same steps in every run, whereas separate
  // requests join steps as they arrive, and another step shape moves a draw over the random
  // model's near-flat logits (a top_k of 3 keeps that noise small).
  const batch = (seed: number) => [{ prompt: prompts[0]!, maxTokens: 24, seed, n: 4, sampling: { temperature: 0.9, topK: 3, topP: 0.95 } }];
  const first = await tokensOf(device, batch(10));
  assert.equal(await tokensOf(device, batch(10)), first);
  assert.not.equal(await tokensOf(device, batch(20)), first);
  // The two choices of a request draw from streams of their own.
  assert.not.equal(first[0]![0], first[0]![1]);
  // llama.cpp's generator, not the host's: the same seed gives other text than the host path.
  assert.not.equal(await tokensOf(host, batch(10)), first);
});

test('top_k 1, a tiny top_p, min_p 1 and a tiny top_n_sigma leave only the argmax at any temperature on the device', async ({ device }) => {
  const prompt = prompts[1]!;
  const greedy = await onlyChoice(device, { prompt, maxTokens: 16, sampling: { temperature: 0 } });
  const hot = (sampling: Partial<SamplingParams>) => onlyChoice(device, { prompt, maxTokens: 16, seed: 7, sampling: { temperature: 2, ...sampling } });
  assert.not.equal(await hot({}), greedy, 'at temperature 2 the random model samples away from the argmax');
  assert.equal(await hot({ topK: 1 }), greedy);
  assert.equal(await hot({ topP: 1e-6 }), greedy);
  assert.equal(await hot({ minP: 1 }), greedy);
  assert.equal(await hot({ topNSigma: 1e-6 }), greedy);
});

test('typical_p 0 keeps only the most typical token: the device chooses the host\'s, token for token, 4 at once', async ({ host, device }) => {
  // After top_k 12 the scores |ln q + H| of the random model's candidates lie far enough apart
  // that float32 in the graph and float64 on the host rank them alike.
  const requests = prompts.slice(0, 4).map((prompt, i) => ({ prompt, maxTokens: 16, seed: i, sampling: { temperature: 1.5, topK: 12, typicalP: 0 } }));
  const onHost = await tokensOf(host, requests);
  assert.equal(await tokensOf(device, requests), onHost);
  const hot = await tokensOf(host, requests.map((request) => ({ ...request, sampling: { temperature: 1.5, topK: 12 } })));
  assert.not.equal(onHost, hot, 'typical_p changed the output');
  const greedy = await tokensOf(host, requests.map((request) => ({ ...request, sampling: { temperature: 0 } })));
  assert.not.equal(onHost, greedy, 'the most typical token is not always the most likely');
});

test('typical_p, top_n_sigma, XTC and DRY are drawn in the graph: a seed repeats there, and gives other tokens than on the host', async ({ host, device }) => {
  const all = { temperature: 1.5, topK: 40, topNSigma: 1.5, typicalP: 0.8, xtcProbability: 0.5, xtcThreshold: 0.02 };
  const dry = { temperature: 1.5, dryMultiplier: 1.5, drySequenceBreakers: [] };
  for (const sampling of [{ temperature: 1.5, typicalP: 0.9 }, { temperature: 1.5, topNSigma: 2 }, { temperature: 1.5, xtcProbability: 0.5 }, dry, { ...all, ...dry }]) {
    const requests = prompts.slice(0, 4).flatMap((prompt, i) => [0, 1].map((j) => ({ prompt, maxTokens: 10, seed: 10 * i + j, sampling })));
    const [onDevice, onHost] = [await tokensOf(device, requests), await tokensOf(host, requests)];
    // A seed repeats on the device: the chains taken over afresh (XTC's stream too).
    assert.equal(await tokensOf(device, requests), onDevice, `${JSON.stringify(sampling)}: the same seeds again`);
    // Had these fallen back to the host, each would be the host's text.
    const drawnElsewhere = onDevice.filter((tokens, r) => JSON.stringify(tokens) !== JSON.stringify(onHost[r])).length;
    assert.ok(drawnElsewhere >= 4, `${JSON.stringify(sampling)}: ${drawnElsewhere} of 8 requests drew other tokens than the host`);
  }
});

// GPT-2 ids of " the", " a", " and", " of", " to", " in", " is", " that", " for", " it": words
// the preemption test's regex allows, so its chains choose among the same words under a grammar.
const WORDS = [262, 257, 290, 286, 284, 287, 318, 326, 329, 340];
// Recomputing a prompt in other cells and batch shapes moves the random model's logits by up to
// ~2e-3 (measured), enough to swap two near-tied candidates of its near-flat vocabulary now and
// then, so outputs compared across a preemption must not hang on the model. Biased to 2^28, where
// a float's step is 32, a word's logit loses the model's part (|x| < 16) to rounding: what
// chooses among the biased words is only the chain's state (its penalties' counts, its draws).
const BIAS_FLOOR = 2 ** 28;
// A frequency penalty of 200 moves a word down 6.25 float steps a use: greedy then takes the
// least used word, so a chain that came back without its counts would start the round again.
const rotation = { temperature: 0, frequencyPenalty: 200, logitBias: new Map(WORDS.map((id) => [id, BIAS_FLOOR])) };
// Three words tied exactly: each draw is the chain's generator alone.
const draws = { temperature: 0.9, topK: 3, logitBias: new Map(WORDS.slice(0, 3).map((id) => [id, BIAS_FLOOR])) };

test('preempted sequences continue their chains (penalties, generator) on the ids they come back on', async ({ device }) => {
  // 96 cells for 4 sequences that each grow to ~45 tokens: the scheduler must preempt and recompute.
  const tight = await tinyEngine({ overrides: { context_window_size: 512, max_total_seq_length: 96, prefill_chunk_size: 16 }, sampling: 'device' });
  try {
    const requests = (sampling: Partial<SamplingParams>, grammar?: Uint8Array) =>
      [0, 1, 2, 3].map((i) => ({ prompt: repetitivePrompt(300 + i, 3, 4), maxTokens: 40, ignoreEos: true, seed: i, sampling, ...(grammar ? { grammar } : {}) }));
    const rotated = await tokensOf(tight, requests(rotation));
    assert.equal(rotated, await tokensOf(device, requests(rotation)), 'penalties');
    // Not vacuous: the penalty counted every use, so each output is the ten words in turns.
    for (const [tokens = []] of rotated) {
      for (let k = 10; k < tokens.length; k++) assert.is(tokens[k], tokens[k - 10], `a round of ten: ${tokens}`);
      assert.is(new Set(tokens).size, 10);
    }
    const drawn = await tokensOf(tight, requests(draws));
    assert.equal(drawn, await tokensOf(device, requests(draws)), 'draws');
    for (const [tokens = []] of drawn) assert.is(new Set(tokens).size, 3, `drawn among three: ${tokens}`);
    assert.ok((await tight.stats()).preemptions > 0, 'the budget forced preemption');
    // A constrained chain comes back as a clone whose mask link (a clone too) takes the masks.
    const grammar = await tight.compileGrammar({ kind: 'regex', pattern: '[a-z ]{20,400}' });
    const before = (await tight.stats()).preemptions;
    const constrained = requests(rotation, grammar).map(({ ignoreEos: _, ...request }) => request);
    assert.equal(await tokensOf(tight, constrained), await tokensOf(device, constrained), 'under a grammar');
    assert.ok((await tight.stats()).preemptions > before, 'the budget forced preemption under a grammar');
    // A chain with the logprobs links comes back as a clone that still reports them: under the
    // bias the lists hold only the ten words, whose values the penalty counts set exactly.
    const reported = async (engine: Engine) => {
      const results = await Promise.all(requests({ ...rotation, logprobs: true, topLogprobs: 3 }).map((request) => runToEnd(engine, request)));
      return results.map(({ choices: [choice] }) => choice!.logprobs.map(({ token, logprob, top }) => ({ token, logprob, top: top.map((entry) => [entry.token, entry.logprob]) })));
    };
    const beforeLogprobs = (await tight.stats()).preemptions;
    const withLogprobs = await reported(tight);
    assert.equal(withLogprobs, await reported(device), 'logprobs');
    assert.ok((await tight.stats()).preemptions > beforeLogprobs, 'the budget forced preemption with logprobs');
    for (const positions of withLogprobs) {
      assert.is(positions.length, 40);
      assert.ok(positions.every(({ top }) => top.length === 3) && positions.some(({ logprob }) => logprob < 0), JSON.stringify(positions.slice(0, 3)));
    }
  } finally {
    await tight.dispose();
  }
});


test('min_tokens, allowed_token_ids and bad_words mask in the graph: greedy is the host\'s, 1 and 4 at once; seeded draws keep to the mask there; a mask that allows nothing fails as on the host', async ({ host, device }) => {
  const eos = device.info.endOfGeneration[0]!;
  const plain = await onlyChoice(host, { prompt: prompts[0]!, maxTokens: 12, sampling: { temperature: 0 } });
  // Two tokens the plain output writes, as a word to keep out: the mask must steer around them.
  const word = await device.detokenize(plain.slice(2, 4));
  const endsFirst = new Map([[eos, 100]]);
  // " the", " a", " and", " of" (WORDS' first four), any number of them; allowed_token_ids keeps the first three.
  const threeWords = await device.compileGrammar({ kind: 'regex', pattern: '( the| a| and| of)+' });
  const variants: { fields: Partial<GenerateRequest>; holds: (tokens: number[]) => boolean }[] = [
    // The end token biased to be all but certain: it comes right after min_tokens.
    { fields: { minTokens: 6, sampling: { temperature: 0, logitBias: endsFirst } }, holds: (tokens) => tokens.length === 6 },
    { fields: { allowedTokenIds: WORDS, sampling: { temperature: 0 } }, holds: (tokens) => tokens.every((token) => WORDS.includes(token)) },
    { fields: { badWords: [word], sampling: { temperature: 0 } }, holds: (tokens) => JSON.stringify(tokens) !== JSON.stringify(plain) },
    { fields: { minTokens: 4, allowedTokenIds: [...WORDS, eos], badWords: ['the'], sampling: { temperature: 0, logitBias: endsFirst } }, holds: (tokens) => tokens.length === 4 && !tokens.includes(262) },
    // Beside a grammar, whose mask is wider than the vocabulary: the two masks combined.
    { fields: { allowedTokenIds: WORDS.slice(0, 3), grammar: threeWords, sampling: { temperature: 0 } }, holds: (tokens) => tokens.length === 12 && tokens.every((token) => WORDS.slice(0, 3).includes(token)) },
  ];
  for (const { fields, holds } of variants) {
    for (const width of [1, 4]) {
      const requests = prompts.slice(0, width).map((prompt) => ({ prompt, maxTokens: 12, ...fields }));
      const onDevice = await tokensOf(device, requests);
      const what = `${JSON.stringify(fields, (_, v) => (v instanceof Map ? [...v] : v))}, ${width} at once`;
      assert.equal(onDevice, await tokensOf(host, requests), what);
      assert.ok(onDevice.every(([tokens]) => holds(tokens!)), `${what}: ${JSON.stringify(onDevice)}`);
    }
  }
  // Drawn in the graph (llama.cpp's generator: other tokens than the host's for the same seed), within the mask.
  const seeded = [0, 1, 2, 3, 4, 5, 6, 7].map((seed) => ({ prompt: prompts[seed % 4]!, maxTokens: 10, seed, allowedTokenIds: WORDS, badWords: ['the'], sampling: { temperature: 1 } }));
  const [drawn, onHost] = [await tokensOf(device, seeded), await tokensOf(host, seeded)];
  for (const [tokens] of drawn) assert.ok(tokens!.every((token) => WORDS.includes(token) && token !== 262), `${tokens}`);
  const drawnElsewhere = drawn.filter((choices, r) => JSON.stringify(choices) !== JSON.stringify(onHost[r])).length;
  assert.ok(drawnElsewhere >= 4, `${drawnElsewhere} of 8 requests drew other tokens than the host`);
  // " the" is the only token allowed, and a bad word: no token is left, the request's fault on both paths.
  for (const engine of [host, device]) {
    const failed = await runToEnd(engine, { prompt: prompts[0]!, maxTokens: 4, allowedTokenIds: [262], badWords: ['the'], sampling: { temperature: 0 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.instance(failed, EngineRequestError);
    assert.is((failed as EngineRequestError).info.code, 'invalid_request');
    assert.match((failed as Error).message, /no token is allowed/);
  }
});

test('chains stay on their ids: requests configured alike re-plan the graph once, and each starts afresh (penalties, seed, prompt window)', async () => {
  const engine = await tinyEngine({ overrides: { ...limits, max_num_sequence: 4 }, sampling: 'device' });
  // The reference: one id, and a request of another configuration before each, so that every
  // request it answers gets a new chain (two re-plans a pair: replaced, then replaced again).
  const fresh = await tinyEngine({ overrides: { ...limits, max_num_sequence: 1 }, sampling: 'device' });
  try {
    const replans = async (of = engine) => (await of.stats()).samplerReplans!;
    assert.is(await replans(), 0);
    const request = (prompt: number[], sampling: Partial<SamplingParams>, seed?: number) => ({ prompt, maxTokens: 15, ignoreEos: true, sampling, ...(seed !== undefined ? { seed } : {}) });
    const alone = async (each: GenerateRequest) => {
      const before = await replans(fresh);
      await onlyChoice(fresh, { prompt: prompts[4]!, maxTokens: 1, sampling: { temperature: 0, presencePenalty: 0.5 } });
      const tokens = await onlyChoice(fresh, each);
      assert.is(await replans(fresh), before + 2, 'the reference request had a chain of its own');
      return tokens;
    };
    // 15 tokens: five words used twice, five once, so counts carried into the next request would
    // change its order; and the repetition penalty's window holds each request's own prompt.
    const repetition = { temperature: 0, repetitionPenalty: 1.6, repeatLastN: 8 };
    for (const sampling of [rotation, repetition]) {
      const before = await replans();
      for (const [index, prompt] of prompts.slice(0, 3).entries()) {
        const wanted = await alone(request(prompt, sampling));
        assert.equal(await onlyChoice(engine, request(prompt, sampling)), wanted, `prompt ${index}, ${JSON.stringify(sampling, (_, v) => (v instanceof Map ? [...v] : v))}`);
      }
      assert.is(await replans(), before + 1, 'one chain attached, then taken over by the next two');
    }
    // The generator is reseeded: a seed draws on a taken-over chain what it draws on a new one, another seed other draws.
    const before = await replans();
    const drawn: number[][] = [];
    for (const seed of [3, 3, 4]) drawn.push(await onlyChoice(engine, request(prompts[0]!, draws, seed)));
    assert.equal(drawn[0], await alone(request(prompts[0]!, draws, 3)));
    assert.equal(drawn[1], drawn[0]);
    assert.not.equal(drawn[2], drawn[0]);
    assert.is(await replans(), before + 1);
    // Every request this engine takes samples in the graph (hostOnlyReason: what would not).
  } finally {
    await engine.dispose();
    await fresh.dispose();
  }
});

test('a new id finds a chain waiting: requests taking ids the prefix cache has not used yet re-plan the graph once, not once each', async ({ host }) => {
  // 2 running ids and 6 the prefix cache keeps: each finished request's id stays with its cells
  // until the cache is full, so each of the first 8 requests takes an id never used.
  const cached = { ...UNCACHED_LIMITS, max_num_sequence: 2, prefix_cache_max_num_recycling_seqs: 6 };
  const [engine, penalisedEngine] = [await tinyEngine({ overrides: cached, sampling: 'device' }), await tinyEngine({ overrides: cached, sampling: 'device' })];
  try {
    const replans = async (of: Engine) => (await of.stats()).samplerReplans!;
    const greedy = (prompt: number[]) => ({ prompt, maxTokens: 8, ignoreEos: true, sampling: { temperature: 0, topK: 5 } });
    const distinct = [...prompts, ...[205, 206, 207].map((seed) => gpt2WordTokens(seed, 12))];
    for (const [index, prompt] of distinct.entries()) {
      assert.equal(await onlyChoice(engine, greedy(prompt)), await onlyChoice(host, greedy(prompt)), `prompt ${index}`);
    }
    assert.is((await engine.stats()).cachedSequences, 6, 'the finished requests kept their ids');
    assert.is(await replans(engine), 1, 'the first chain was copied to every id at once');
    // Chains whose idle copies would upload a window each step are not copied: each fresh id re-plans.
    const penalised = (prompt: number[]) => ({ ...greedy(prompt), sampling: { temperature: 0, repetitionPenalty: 1.3, repeatLastN: 16 } });
    for (const prompt of distinct.slice(0, 4)) await onlyChoice(penalisedEngine, penalised(prompt));
    assert.is(await replans(penalisedEngine), 4);
  } finally {
    await engine.dispose();
    await penalisedEngine.dispose();
  }
});

test('the first token follows softmax at the temperature after top_k, typical_p, top_p, min_p and XTC, on both paths (chi-square over seeds)', async ({ host, device }) => {
  const prompt = repetitivePrompt(77, 3, 4);
  const K = 12;
  // The model's log-probabilities of its K best first tokens, on the host (logprobs are a host feature).
  const [probe] = (await runToEnd(host, { prompt, maxTokens: 1, sampling: { temperature: 0, logprobs: true, topLogprobs: K } })).choices;
  const top = probe!.logprobs[0]!.top;
  assert.is(top.length, K);
  const ids = top.map((entry) => entry.token);
  // XTC's threshold between the second and third best at temperature 0.5 in the top 6: two above.
  const xtcProbs = softmax(top.slice(0, 6).map((entry) => entry.logprob), 0.5);
  const xtcThreshold = (xtcProbs[1]! + xtcProbs[2]!) / 2;
  const cases: Partial<SamplingParams>[] = [
    { temperature: 0.5, topK: 6 },
    { temperature: 0.4, topK: K, topP: 0.7 },
    { temperature: 0.3, topK: K, minP: 0.2 },
    { temperature: 0.6, topK: K, typicalP: 0.5 },
    // Half the draws with the best token removed, half without.
    { temperature: 0.5, topK: 6, xtcProbability: 0.5, xtcThreshold },
  ];
  const draws = 1024;
  for (const params of cases) {
    // Within the top K (log-softmax differs from the logits by a constant), then each stage on the survivors.
    let probs = softmax(top.slice(0, params.topK!).map((entry) => entry.logprob), params.temperature!);
    if (params.topP) probs = topPOracle(probs, params.topP);
    if (params.typicalP) probs = typicalOracle(probs, params.typicalP);
    if (params.minP) probs = minPOracle(probs, params.minP);
    if (params.xtcProbability) {
      const excluded = xtcOracle(probs, params.xtcThreshold!);
      probs = probs.map((p, i) => (1 - params.xtcProbability!) * p + params.xtcProbability! * excluded[i]!);
    }
    for (const [name, engine] of [['host', host], ['device', device]] as const) {
      const counts = new Array<number>(probs.length).fill(0);
      for (let seed = 0; seed < draws / 16; seed += 4) {
        const requests = [0, 1, 2, 3].map((i) => ({ prompt, maxTokens: 1, n: 16, seed: 1000 * seed + i, sampling: params }));
        for (const choices of await tokensOf(engine, requests)) {
          for (const [token] of choices) {
            const at = ids.indexOf(token!);
            assert.ok(at >= 0 && at < probs.length, `${name} drew token ${token}, outside the top ${params.topK} (${JSON.stringify(params)})`);
            counts[at]!++;
          }
        }
      }
      // 99.9% quantile of chi-square with 11 degrees of freedom is 31.3; fewer cells only lower it.
      const x2 = chiSquare(counts, probs, draws);
      assert.ok(x2 < 31.3, `${name}: chi-square ${x2.toFixed(1)} for ${JSON.stringify(params)}: ${counts.join(',')} against ${probs.map((p) => (p * draws).toFixed(0)).join(',')}`);
    }
  }
});

// Three kinds of grammar, each short enough to complete on a random model.
const colorSchema = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, color: { type: 'string', enum: ['red', 'green', 'blue'] } },
  required: ['ok', 'color'],
  additionalProperties: false,
};
const emailPattern = '[a-z]{3,8}@(example|test)\\.(com|org)';

/** The three grammars (json_schema, json_object, regex), compiled by `engine`. */
function grammarsOf(engine: Engine): Promise<Uint8Array[]> {
  return Promise.all([
    engine.compileGrammar({ kind: 'json_schema', schema: colorSchema }),
    engine.compileGrammar({ kind: 'json_object' }),
    engine.compileGrammar({ kind: 'regex', pattern: emailPattern }),
  ]);
}

/** Whether a finished choice's text follows grammar `index` of grammarsOf. */
function follows(index: number, text: string): boolean {
  if (index === 2) return new RegExp(`^${emailPattern}$`).test(text);
  const value: unknown = JSON.parse(text);
  if (index === 1) return typeof value === 'object' && value !== null && !Array.isArray(value);
  const { ok, color } = value as { ok: unknown; color: unknown };
  return typeof ok === 'boolean' && ['red', 'green', 'blue'].includes(color as string);
}

test('grammars on the device: greedy json_schema, json_object and regex are the host token for token, with and without penalties', async ({ host, device }) => {
  const grammars = await grammarsOf(device);
  const requests = grammars.map((grammar, i) => ({ prompt: prompts[i]!, maxTokens: 48, grammar, sampling: { temperature: 0 } }));
  for (const request of requests) assert.equal(await tokensOf(device, [request]), await tokensOf(host, [request]), 'alone');
  // With penalties and logit_bias in the chain after the mask. (Batched runs of two engines can
  // part where timing gives their batches other shapes, grammar or not: see the default model's test.)
  const sampling = { temperature: 0, frequencyPenalty: 0.8, repetitionPenalty: 1.3, logitBias: new Map([[90, 5]]) };
  for (const request of requests) assert.equal(await tokensOf(device, [{ ...request, sampling }]), await tokensOf(host, [{ ...request, sampling }]), 'penalised');
});

test('seeded constrained sampling on the device: the output of each seed follows its grammar, is reproducible, and is drawn in the graph', async ({ host, device }) => {
  // json_object is left out: at temperature 1 a random model writes an object that never ends.
  const [schema, , regex] = await grammarsOf(device);
  const grammars = [schema!, regex!];
  let differs = 0;
  for (let seed = 1; seed <= 6; seed++) {
    const requests = grammars.map((grammar, i) => ({ prompt: prompts[i]!, maxTokens: 96, seed, grammar, sampling: { temperature: 1 } }));
    const results = await Promise.all(requests.map((request) => runToEnd(device, request)));
    results.forEach(({ choices: [choice] }, k) => {
      const i = k === 0 ? 0 : 2;
      assert.is(choice!.reason, 'stop', `seed ${seed}, grammar ${i}: ${JSON.stringify(choice!.text)}`);
      assert.ok(follows(i, choice!.text), `seed ${seed}, grammar ${i}: ${JSON.stringify(choice!.text)}`);
    });
    const tokens = results.map(({ choices }) => choices.map((choice) => choice.tokens));
    assert.equal(await tokensOf(device, requests), tokens, `seed ${seed}: the same seed in the same batch`);
    if (JSON.stringify(await tokensOf(host, requests)) !== JSON.stringify(tokens)) differs++;
  }
  // The graph draws with llama.cpp's generator: had the host sampled, every seed would give the host's text.
  assert.ok(differs >= 3, `${differs} of 6 seeds drew other tokens than the host`);
});

// Alone, not batched: on this model a batch's shape (which prompt joins which step, a matter of
// timing) moves greedy outputs on the host path itself (measured: the json_object request's
// text differs alone and beside the other two), so batched runs of two engines need not agree.
test('the default model: constrained greedy output on the device is the host token for token; three grammars in one batch follow them', async () => {
  const options = { modelPath: defaultModelPath(), device: 'cpu', mode: 'local' as const, threads: 2, overrides: { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 0 } };
  const host = await EngineClass.create({ ...options, sampling: 'host' });
  const device = await EngineClass.create({ ...options, sampling: 'device' });
  try {
    const grammars = await grammarsOf(device);
    const texts = ['Give a color as JSON:', 'Describe a cat as a JSON object:', 'Write an email address:'];
    const requests = grammars.map((grammar, i) => ({ prompt: texts[i]!, maxTokens: 64, grammar, sampling: { temperature: 0 } }));
    for (const [i, request] of requests.entries()) assert.equal(await tokensOf(device, [request]), await tokensOf(host, [request]), `grammar ${i}`);
    const batched = await Promise.all(requests.map((request) => runToEnd(device, request)));
    batched.forEach(({ choices: [choice] }, i) => {
      assert.is(choice!.reason, 'stop', `grammar ${i}: ${JSON.stringify(choice!.text)}`);
      assert.ok(follows(i, choice!.text), `grammar ${i}: ${JSON.stringify(choice!.text)}`);
    });
  } finally {
    await host.dispose();
    await device.dispose();
  }
});

// Each prompt alone: batched, the two engines' step shapes (which prompt joins which step) follow
// the requests' arrival, and on this model the shape moves greedy text on either path (the same
// measurement as the constrained test above); the tiny model's test covers batches.
test('the default model: greedy on the device is the host token for token, for each of four prompts, and so are logprobs', async () => {
  const options = { modelPath: defaultModelPath(), device: 'cpu', mode: 'local' as const, threads: 2, overrides: { context_window_size: 1024, prefix_cache_max_num_recycling_seqs: 0 } };
  const host = await EngineClass.create({ ...options, sampling: 'host' });
  const device = await EngineClass.create({ ...options, sampling: 'device' });
  try {
    assert.is(device.info.sampling, 'device');
    const texts = ['The capital of France is', 'def fibonacci(n):', 'Once upon a time, in a small village,', 'List three colors:'];
    for (const prompt of texts) {
      const requests = [{ prompt, maxTokens: 24, sampling: { temperature: 0 } }];
      assert.equal(await tokensOf(device, requests), await tokensOf(host, requests), prompt);
    }
    // Logprobs of a real vocabulary (49,152 tokens, peaked distributions), computed in the graph.
    const request = { prompt: texts[1]!, maxTokens: 16, sampling: { temperature: 0, logprobs: true, topLogprobs: 5 } };
    assertSameLogprobs((await runToEnd(device, request)).choices[0]!, (await runToEnd(host, request)).choices[0]!, 'the default model');
  } finally {
    await host.dispose();
    await device.dispose();
  }
});

/** Float32 in the graph, float64 on the host: a log-softmax over 50,257 tokens parts by rounding only. */
const LOGPROB_TOLERANCE = 1e-4;

/**
 * Whether two positions' top lists agree: every token both list has the same logprob; one only
 * one lists sits at that list's boundary (a near tie for the last place, broken by rounding).
 */
function assertSameTop(device: TokenLogprob['top'], host: TokenLogprob['top'], what: string): void {
  assert.is(device.length, host.length, `${what}: list lengths`);
  for (let i = 1; i < device.length; i++) assert.ok(device[i - 1]!.logprob >= device[i]!.logprob, `${what}: the device's list descends`);
  const hostValues = new Map(host.map((entry) => [entry.token, entry.logprob]));
  const deviceValues = new Map(device.map((entry) => [entry.token, entry.logprob]));
  for (const [list, other, name] of [[device, hostValues, 'device'], [host, deviceValues, 'host']] as const) {
    const last = list.at(-1)?.logprob ?? 0;
    for (const entry of list) {
      const theirs = other.get(entry.token);
      if (theirs !== undefined) assert.ok(Math.abs(theirs - entry.logprob) <= LOGPROB_TOLERANCE, `${what}: token ${entry.token}: ${entry.logprob} on the ${name}, ${theirs} on the other`);
      else assert.ok(Math.abs(entry.logprob - last) <= LOGPROB_TOLERANCE, `${what}: token ${entry.token} (${entry.logprob}) listed only on the ${name}, away from its boundary ${last}`);
    }
  }
}

/** The same tokens, each with the host's logprob and top list, within rounding. */
function assertSameLogprobs(actual: ChoiceResult, expected: ChoiceResult, what: string): void {
  assert.equal(actual.tokens, expected.tokens, what);
  assert.is(actual.logprobs.length, expected.logprobs.length, what);
  actual.logprobs.forEach((entry, i) => {
    const wanted = expected.logprobs[i]!;
    assert.is(entry.token, wanted.token, `${what}, position ${i}`);
    assert.ok(entry.logprob <= 0 && Math.abs(entry.logprob - wanted.logprob) <= LOGPROB_TOLERANCE, `${what}, position ${i}: ${entry.logprob} against ${wanted.logprob}`);
    assertSameTop(entry.top, wanted.top, `${what}, position ${i}`);
  });
}

test('logprobs in the graph: greedy tokens, their logprobs and top lists are the host\'s, with logit_bias, penalties and a grammar, 1 and 4 at once', async ({ host, device }) => {
  const [schema] = await grammarsOf(device);
  const variants: { sampling: Partial<SamplingParams>; grammar?: Uint8Array }[] = [
    { sampling: { temperature: 0, logprobs: true, topLogprobs: 0 } },
    { sampling: { temperature: 0, logprobs: true, topLogprobs: 3 } },
    { sampling: { temperature: 0, logprobs: true, topLogprobs: 20, logitBias: new Map([[prompts[0]![0]!, 3], [50, -100]]), frequencyPenalty: 0.7, repetitionPenalty: 1.3 } },
    // Fewer tokens allowed than asked for: the masked ones are never listed.
    { sampling: { temperature: 0, logprobs: true, topLogprobs: 20 }, grammar: schema! },
  ];
  for (const { sampling, grammar } of variants) {
    for (const width of [1, 4]) {
      const requests = prompts.slice(0, width).map((prompt) => ({ prompt, maxTokens: 12, sampling, ...(grammar ? { grammar } : {}) }));
      const [onDevice, onHost] = [await Promise.all(requests.map((r) => runToEnd(device, r))), await Promise.all(requests.map((r) => runToEnd(host, r)))];
      onHost.forEach(({ choices: [expected] }, r) => {
        const what = `${JSON.stringify(sampling, (_, v) => (v instanceof Map ? [...v] : v))}${grammar ? ', a grammar' : ''}, ${width} at once, request ${r}`;
        assertSameLogprobs(onDevice[r]!.choices[0]!, expected!, what);
      });
    }
  }
});

test('logprobs under sampling in the graph: drawn there, the chosen token\'s logprob is its top-list entry, and lists ignore temperature', async ({ host, device }) => {
  const prompt = prompts[1]!;
  // top_k 3 keeps the draw among the three best processed logits, all in a top list of 5.
  const request = (seed: number, temperature: number) => ({ prompt, maxTokens: 10, seed, sampling: { temperature, topK: 3, logprobs: true, topLogprobs: 5 } });
  const greedy = (await runToEnd(host, { prompt, maxTokens: 1, sampling: { temperature: 0, logprobs: true, topLogprobs: 5 } })).choices[0]!.logprobs[0]!;
  let drawnElsewhere = 0;
  for (const seed of [1, 2, 3, 4]) {
    for (const temperature of [0.6, 1.8]) {
      const [choice] = (await runToEnd(device, request(seed, temperature))).choices;
      choice!.logprobs.forEach((entry, i) => {
        const listed = entry.top.find((top) => top.token === entry.token);
        assert.ok(listed, `seed ${seed}, temperature ${temperature}, position ${i}: the drawn token ${entry.token} is in the top 3`);
        assert.is(entry.logprob, listed!.logprob, `seed ${seed}, position ${i}`);
      });
      // The first position's logits are the prompt's alone: its list is the host's at any temperature.
      assertSameTop(choice!.logprobs[0]!.top, greedy.top, `seed ${seed}, temperature ${temperature}, first position`);
      const [hostChoice] = (await runToEnd(host, request(seed, temperature))).choices;
      if (JSON.stringify(hostChoice!.tokens) !== JSON.stringify(choice!.tokens)) drawnElsewhere++;
    }
  }
  // llama.cpp's generator drew them: had these requests fallen back to the host, each would be the host's text.
  assert.ok(drawnElsewhere >= 4, `${drawnElsewhere} of 8 requests drew other tokens than the host`);
});

test('what still samples on the host: a token mask without mask links; nothing else, penalty windows past the vocabulary included', () => {
  assert.is(hostOnlyReason(true, false), 'a token mask');
  assert.is(hostOnlyReason(true, true), undefined);
  assert.is(hostOnlyReason(false, false), undefined);
  // A context longer than the vocabulary: the penalties' window is the whole sequence (llama.cpp's
  // link with such a window: test/backend/graph-penalties.test.ts).
  const plain = { temperature: 0.8, topP: 0.9, frequencyPenalty: 0, presencePenalty: 0 } as SamplingParams;
  const everything = { ...plain, logprobs: true, topLogprobs: 5, topK: 40, minP: 0.05, typicalP: 0.9, topNSigma: 1.5, xtcProbability: 0.5, dryMultiplier: 0.8, repetitionPenalty: 1.1, frequencyPenalty: 0.5, logitBias: new Map([[5, 2]]) };
  const sampling = new DeviceSampling(undefined as never, undefined as never, undefined as never, 0);
  const longContext = (params: SamplingParams) => ({ sampler: { params, vocabSize: 1000 }, request: { lengthLimit: 4096, request: {} }, grammar: undefined, masked: false }) as unknown as Sequence;
  for (const params of [plain, { ...plain, frequencyPenalty: 0.5 }, { ...plain, repetitionPenalty: 1.2 }, everything]) {
    assert.ok(sampling.onDevice(longContext(params)), JSON.stringify(params, (_, v) => (v instanceof Map ? [...v] : v)));
  }
  const windows = chainLinks(everything, false, 4096, 1000).flatMap((link) => (link.kind === 'penalties' ? [link.window] : []));
  assert.equal(windows, [4096, 4096]);
  // DRY's inputs (uploaded whole each step) hold what its window can penalise, at most.
  const dryCapacity = (params: SamplingParams, lengthLimit: number) => chainLinks(params, false, lengthLimit, 1000).flatMap((link) => (link.kind === 'dry' ? [link.capacity] : []));
  assert.equal(dryCapacity({ ...plain, dryMultiplier: 0.8 }, 512), [512]);
  assert.equal(dryCapacity({ ...plain, dryMultiplier: 0.8 }, 4096), [1000]);
  assert.equal(dryCapacity({ ...plain, dryMultiplier: 0.8, dryPenaltyLastN: 24 }, 4096), [24]);
});

// Last: disposing an engine hands llama.cpp's logging back to its default for the whole process.
test('the engine says where it samples: device as asked; auto is the host on a CPU; device refuses speculation', async ({ host, device }) => {
  assert.is(device.info.sampling, 'device');
  assert.is(host.info.sampling, 'host');
  // Responses say so: a seed gives other text on the device path.
  assert.is(systemFingerprint('1.0.0', host.info.library, host.info.devices, host.info.sampling), 'lmforge-1.0.0_linux-x64_cpu:0');
  assert.is(systemFingerprint('1.0.0', device.info.library, device.info.devices, device.info.sampling), 'lmforge-1.0.0_linux-x64_cpu:0_device-sampling');
  const auto = await tinyEngine({ overrides: limits });
  try {
    assert.is(auto.info.sampling, 'host');
  } finally {
    await auto.dispose();
  }
  const refused = await tinyEngine({ overrides: limits, sampling: 'device', speculativeMode: 'ngram' }).then(
    (engine) => engine.dispose().then(() => undefined),
    (error: unknown) => error,
  );
  assert.instance(refused, EngineStartError);
  assert.match((refused as Error).message, /--sampling device cannot verify speculative drafts/);
});

test.run();
