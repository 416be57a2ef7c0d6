// Sampling in the graph under a random mix of everything requests may ask for at once: each
// request draws its own sampling stages (temperature, top_k, top_p, min_p, typical_p,
// top_n_sigma, XTC, DRY, the three penalties with their windows, logit_bias, logprobs), some a
// grammar, some two choices, some a cancellation, 10 at a time over 4 sequence ids, so that
// chains of every configuration are built, go idle, are taken over and replaced while others
// decode; and again with too few KV cells for them all, so that sequences are preempted and
// their chains parked and taken back. Every request must end well: a native fault in a link (an
// out-of-range id read from a stale input aborted the engine here) loses every request in flight.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Engine } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../../runtime/engine/protocol.js';
import type { SamplingParams } from '../../runtime/sampling/sampling-params.js';
import { runToEnd } from '../helpers/engine-run.js';
import { gpt2WordTokens, repetitivePrompt, testRandom } from '../helpers/test-random.js';
import { tinyEngine } from '../helpers/tiny-engine.js';

const test = suite<{ engine: Engine }>('sampling on the device: random mixes');

// The shapes the abort showed in: 4 ids, 8,192 cells, the prefix cache on.
test.before(async (context) => {
  context.engine = await tinyEngine({ overrides: { max_num_sequence: 4, context_window_size: 2048, max_total_seq_length: 8192 }, sampling: 'device' });
  assert.is(context.engine.info.sampling, 'device');
});
test.after(({ engine }) => engine.dispose());

const EMAIL = '[a-z]{3,8}@(example|test)\\.(com|org)';

/** A request's sampling: each stage on or off at random, with one of a few settings. */
function randomSampling(random: () => number): Partial<SamplingParams> {
  const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)]!;
  const sometimes = (chance: number, stage: () => Partial<SamplingParams>) => (random() < chance ? stage() : {});
  return {
    temperature: pick([0, 0, 0.7, 1.3]),
    ...sometimes(0.4, () => ({ topK: pick([1, 5, 40]) })),
    ...sometimes(0.4, () => ({ topP: pick([0.5, 0.9, 0.99]) })),
    ...sometimes(0.3, () => ({ minP: pick([0.01, 0.1]) })),
    ...sometimes(0.3, () => ({ typicalP: pick([0, 0.5, 0.9]) })),
    ...sometimes(0.3, () => ({ topNSigma: pick([0.5, 2]) })),
    ...sometimes(0.3, () => ({ xtcProbability: pick([0.5, 1]), xtcThreshold: pick([0.01, 0.1]) })),
    ...sometimes(0.4, () => ({ dryMultiplier: pick([0.8, 2]), dryAllowedLength: pick([1, 2, 3]), dryPenaltyLastN: pick([-1, 8, 64]), ...(random() < 0.5 ? { drySequenceBreakers: [] } : {}) })),
    ...sometimes(0.4, () => ({ repetitionPenalty: pick([1.1, 1.5]), repeatLastN: pick([-1, 0, 8, 64]) })),
    ...sometimes(0.4, () => ({ frequencyPenalty: pick([0.3, 1]) })),
    ...sometimes(0.3, () => ({ presencePenalty: pick([0.3, 1]) })),
    ...sometimes(0.2, () => ({ logitBias: new Map([[pick([262, 257, 290]), pick([-100, 2, 5])]]) })),
    ...sometimes(0.3, () => ({ logprobs: true, topLogprobs: pick([0, 1, 5]) })),
  };
}

/**
 * Sends 80 requests of random mixes, 10 at a time, of up to `longest` tokens each; returns what
 * went wrong (nothing, when each request ends with its choices, within its max_tokens, a regex's
 * output following it) and how many ran to their end (the rest were cancelled on purpose).
 */
async function sendMixes(engine: Engine, seed: number, longest: number): Promise<{ problems: string[]; finished: number }> {
  const random = testRandom(seed);
  const grammars = { regex: await engine.compileGrammar({ kind: 'regex', pattern: EMAIL }), json: await engine.compileGrammar({ kind: 'json_object' }) };
  const problems: string[] = [];
  let finished = 0;
  const one = async (i: number) => {
    const maxTokens = 1 + Math.floor(random() * longest);
    const g = random();
    const grammar = g < 0.1 ? 'regex' : g < 0.15 ? 'json' : undefined;
    const request: GenerateRequest = {
      prompt: random() < 0.5 ? repetitivePrompt(1000 + i, 3, 4) : gpt2WordTokens(2000 + i, 5 + Math.floor(random() * 60)),
      maxTokens,
      n: random() < 0.2 ? 2 : 1,
      ignoreEos: random() < 0.5,
      ...(random() < 0.7 ? { seed: i } : {}),
      sampling: randomSampling(random),
      ...(grammar ? { grammar: grammars[grammar] } : {}),
    };
    const controller = new AbortController();
    if (random() < 0.15) setTimeout(() => controller.abort(), Math.floor(random() * 50));
    const described = `request ${i} (${JSON.stringify(request.sampling, (_, v) => (v instanceof Map ? [...v] : v))}${grammar ? `, ${grammar}` : ''})`;
    try {
      const { choices } = await runToEnd(engine, request, controller.signal);
      if (controller.signal.aborted) return;
      if (choices.length !== request.n) problems.push(`${described}: ${choices.length} choices of ${request.n}`);
      for (const choice of choices) {
        if (choice.reason !== 'length' && choice.reason !== 'stop') problems.push(`${described}: finished ${choice.reason}`);
        if (choice.completionTokens > maxTokens) problems.push(`${described}: ${choice.completionTokens} tokens of ${maxTokens}`);
        if (grammar === 'regex' && choice.reason === 'stop' && !new RegExp(`^${EMAIL}$`).test(choice.text)) problems.push(`${described}: ${JSON.stringify(choice.text)} against its regex`);
      }
      finished++;
    } catch (error) {
      problems.push(`${described}: ${(error as Error).message}`);
    }
  };
  for (let wave = 0; wave < 8; wave++) await Promise.all(Array.from({ length: 10 }, (_, j) => one(wave * 10 + j)));
  return { problems, finished };
}

test('80 requests of random sampling mixes, 10 at a time over 4 ids: each ends with its choices, within its max_tokens, a grammar\'s output following it', async ({ engine }) => {
  const { problems, finished } = await sendMixes(engine, 7, 20);
  assert.equal(problems, []);
  assert.ok(finished >= 60, `${finished} of 80 finished`);
});

test('the same with 256 cells for 4 ids: sequences are preempted, their chains parked and taken back, and every request still ends well', async () => {
  const engine = await tinyEngine({ overrides: { max_num_sequence: 4, context_window_size: 256, max_total_seq_length: 256 }, sampling: 'device' });
  try {
    const { problems, finished } = await sendMixes(engine, 8, 80);
    assert.equal(problems, []);
    assert.ok(finished >= 60, `${finished} of 80 finished`);
    assert.ok((await engine.stats()).preemptions > 0, 'sequences were preempted');
  } finally {
    await engine.dispose();
  }
});

test.run();
