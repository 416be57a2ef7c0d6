// The engine through the real llama.cpp backend, on a tiny random-weight model with the real
// GPT-2 vocabulary: whatever the model prefers, batching must not change it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Engine, EngineRequestError } from '../../runtime/engine/client/engine.js';
import { runToEnd } from '../helpers/engine-run.js';
import { tinyEngine } from '../helpers/tiny-engine.js';
import { gpt2WordTokens } from '../helpers/test-random.js';

const test = suite<{ engine: Engine }>('engine');

test.before(async (context) => {
  context.engine = await tinyEngine({ overrides: { context_window_size: 512 } });
});
test.after(async (context) => {
  await context.engine.dispose();
});

const prompts = ['The quick brown fox', 'Once upon a time', 'In a galaxy far away', 'Hello, world! This is'];
const greedy = { temperature: 0 };

test('greedy outputs of 4 concurrent requests equal the same requests run one by one', async ({ engine }) => {
  const alone: string[][] = [];
  for (const prompt of prompts) {
    const { choices } = await runToEnd(engine, { prompt, maxTokens: 24, ignoreEos: true, sampling: greedy });
    alone.push(choices[0]!.tokens.map(String));
    assert.is(choices[0]!.tokens.length, 24);
    assert.is(choices[0]!.reason, 'length');
  }
  const together = await Promise.all(prompts.map((prompt) => runToEnd(engine, { prompt, maxTokens: 24, ignoreEos: true, sampling: greedy })));
  assert.equal(together.map((r) => r.choices[0]!.tokens.map(String)), alone);
});

test('requests sent together to an idle engine share its first step, every time', async ({ engine }) => {
  // One step computes the three prompts and samples each one's only token. Sent as a message
  // each, the first could wake the engine and start a step alone before the others arrived:
  // one round in 10 to 20 took two steps on this 2-core machine, which 100 rounds all but always catch.
  const stepsTaken: number[] = [];
  for (let round = 0; round < 100; round++) {
    const before = (await engine.stats()).steps;
    const requests = [1, 2, 3].map((seed) => ({ prompt: gpt2WordTokens(400 + 3 * round + seed, 24), maxTokens: 1, sampling: { temperature: 0 } }));
    await Promise.all(requests.map((request) => runToEnd(engine, request)));
    stepsTaken.push((await engine.stats()).steps - before);
  }
  assert.equal(stepsTaken, new Array(100).fill(1));
});

test('a seeded request gives identical tokens alone and beside 3 busy neighbours', async ({ engine }) => {
  const request = { prompt: 'Seeds make sampling repeatable', maxTokens: 32, ignoreEos: true, seed: 1234, sampling: { temperature: 1.2, topP: 0.95 } };
  const alone = await runToEnd(engine, request);
  const neighbours = [1, 2, 3].map((i) => runToEnd(engine, { prompt: prompts[i]!, maxTokens: 40, ignoreEos: true, sampling: { temperature: 1 } }));
  const beside = await runToEnd(engine, request);
  await Promise.all(neighbours);
  assert.equal(beside.choices[0]!.tokens, alone.choices[0]!.tokens);
  const otherSeed = await runToEnd(engine, { ...request, seed: 4321 });
  assert.not.equal(otherSeed.choices[0]!.tokens, alone.choices[0]!.tokens, 'a different seed should give a different sample');
});

test('a stop string split across tokens is honoured and withheld', async ({ engine }) => {
  const base = await runToEnd(engine, { prompt: prompts[0]!, maxTokens: 24, ignoreEos: true, sampling: greedy });
  const { text, pieces } = base.choices[0]!;
  // The stop string: the last two characters of one token and the first two of the next.
  let stop: string | undefined;
  let boundary = 0;
  for (let k = 0; k + 1 < pieces.length && !stop; k++) {
    boundary += pieces[k]!.length;
    const candidate = pieces[k]!.slice(-2) + pieces[k + 1]!.slice(0, 2);
    if (pieces[k]!.length >= 2 && pieces[k + 1]!.length >= 2 && text.indexOf(candidate) === boundary - 2) stop = candidate;
  }
  assert.ok(stop, `no stop string crossing a token boundary in ${JSON.stringify(pieces)}`);
  const stopped = await runToEnd(engine, { prompt: prompts[0]!, maxTokens: 24, ignoreEos: true, stop: ['never appears', stop!], sampling: greedy });
  const choice = stopped.choices[0]!;
  assert.is(choice.reason, 'stop');
  assert.is(choice.text, text.slice(0, boundary - 2));
});

test('logprobs are sorted, at most 0 and consistent with the sampled token', async ({ engine }) => {
  const { choices } = await runToEnd(engine, { prompt: prompts[1]!, maxTokens: 12, ignoreEos: true, sampling: { temperature: 0, logprobs: true, topLogprobs: 5 } });
  const choice = choices[0]!;
  assert.is(choice.logprobs.length, 12);
  choice.logprobs.forEach((entry, i) => {
    assert.is(entry.token, choice.tokens[i]);
    assert.is(entry.top.length, 5);
    assert.ok(entry.logprob <= 0);
    for (let k = 1; k < entry.top.length; k++) assert.ok(entry.top[k - 1]!.logprob >= entry.top[k]!.logprob, 'top_logprobs sorted');
    // Greedy: the chosen token is the most likely one, with the same log-probability.
    assert.is(entry.top[0]!.token, entry.token);
    assert.ok(Math.abs(entry.top[0]!.logprob - entry.logprob) < 1e-6);
  });
});

test('n = 3 returns 3 choices that share the prompt correctly', async ({ engine }) => {
  const single = await runToEnd(engine, { prompt: prompts[2]!, maxTokens: 16, ignoreEos: true, sampling: greedy });
  const three = await runToEnd(engine, { prompt: prompts[2]!, n: 3, maxTokens: 16, ignoreEos: true, sampling: greedy });
  assert.is(three.choices.length, 3);
  // Greedy choices on a copied prompt cache must all equal the single greedy answer.
  for (const choice of three.choices) assert.equal(choice.tokens, single.choices[0]!.tokens);
  const sampled = await runToEnd(engine, { prompt: prompts[2]!, n: 3, maxTokens: 16, ignoreEos: true, seed: 7, sampling: { temperature: 1.5 } });
  assert.is(sampled.choices.length, 3);
  assert.is(new Set(sampled.choices.map((c) => c.tokens.join(','))).size, 3, 'seeded choices use separate random streams');
});

test('a cancelled long request gives its KV cells back and the next request is served', async ({ engine }) => {
  const controller = new AbortController();
  let seen = 0;
  for await (const event of engine.generate({ prompt: prompts[3]!, maxTokens: 400, ignoreEos: true }, controller.signal)) {
    if (event.type === 'delta' && ++seen === 5) controller.abort();
  }
  assert.is(seen, 5);
  let stats = await engine.stats();
  for (let i = 0; i < 50 && stats.running > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    stats = await engine.stats();
  }
  assert.is(stats.running, 0);
  assert.is(stats.kvCellsUsed, 0);
  assert.is(stats.freeSlots, 4);
  const next = await runToEnd(engine, { prompt: prompts[0]!, maxTokens: 4, ignoreEos: true });
  assert.is(next.choices[0]!.tokens.length, 4);
});

test('a prompt longer than the context is refused with both numbers', async ({ engine }) => {
  const long = 'word '.repeat(600);
  try {
    await runToEnd(engine, { prompt: long, maxTokens: 4 });
    assert.unreachable('should have been refused');
  } catch (error) {
    assert.instance(error, EngineRequestError);
    const info = (error as EngineRequestError).info;
    assert.is(info.code, 'context_length_exceeded');
    assert.match(info.message, /512 tokens/);
    assert.match(info.message, /\b6\d\d in the prompt/);
  }
  // The engine keeps serving.
  const after = await runToEnd(engine, { prompt: prompts[0]!, maxTokens: 3, ignoreEos: true });
  assert.is(after.choices[0]!.tokens.length, 3);
});

test('a text far longer than the context is refused without tokenizing it whole: by its bytes, or from a prefix', async ({ engine }) => {
  const refusal = async (prompt: string): Promise<string> => {
    try {
      await runToEnd(engine, { prompt, maxTokens: 4 });
    } catch (error) {
      const info = (error as EngineRequestError).info;
      assert.is(info.code, 'context_length_exceeded');
      return info.message;
    }
    throw new assert.Assertion({ message: 'should have been refused', operator: 'throws', expects: 'a refusal', actual: 'an answer' });
  };
  // 2 MB: more tokens than 512 whatever they are, since no GPT-2 token spells more than a few dozen bytes.
  assert.match(await refusal('word '.repeat(400_000)), /512 tokens, but the prompt has more than \d+ tokens \(2000000 bytes, and no token stands for more than \d+\)/);
  // Within that bound, but 13 characters a token (a control token's text): the first prefix,
  // (512 + 64) × 8 characters, has too few tokens to tell; the next, sized from it, has enough.
  const controlRun = /512 tokens, but the prompt has more than \d+ tokens \(its first (\d+) characters alone do\)/.exec(await refusal('<|endoftext|>'.repeat(3000)));
  assert.ok(controlRun && Number(controlRun[1]) > 4608 && Number(controlRun[1]) < 39000, `a second, larger prefix told, short of the whole text: ${controlRun?.[0]}`);
  // Dense text: the first prefix tells.
  assert.match(await refusal('word '.repeat(2000)), /more than 8\d\d tokens \(its first 4608 characters alone do\)/);
  const after = await runToEnd(engine, { prompt: prompts[0]!, maxTokens: 2, ignoreEos: true });
  assert.is(after.choices[0]!.tokens.length, 2);
});

test('n beyond max_num_sequence and out-of-vocabulary logit_bias are refused by field', async ({ engine }) => {
  const refused = async (request: Parameters<Engine['generate']>[0]) => {
    try {
      await runToEnd(engine, request);
    } catch (error) {
      return (error as EngineRequestError).info;
    }
    throw new Error('not refused');
  };
  assert.is((await refused({ prompt: 'x', n: 5 })).param, 'n');
  assert.is((await refused({ prompt: 'x', sampling: { logitBias: new Map([[60000, 1]]) } })).param, 'logit_bias');
});

test.run();

const tight = suite<{ engine: Engine }>('engine under a tight KV budget');

tight.before(async (context) => {
  // 96 cells for 4 sequences that each grow to ~45 tokens: the scheduler must preempt and recompute.
  context.engine = await tinyEngine({ overrides: { context_window_size: 512, max_total_seq_length: 96, prefill_chunk_size: 16 } });
});
tight.after(async (context) => {
  await context.engine.dispose();
});

tight('preempted requests resume and still give the same greedy tokens as alone', async ({ engine }) => {
  const alone: number[][] = [];
  for (const prompt of prompts) alone.push((await runToEnd(engine, { prompt, maxTokens: 40, ignoreEos: true, sampling: greedy })).choices[0]!.tokens);
  const together = await Promise.all(prompts.map((prompt) => runToEnd(engine, { prompt, maxTokens: 40, ignoreEos: true, sampling: greedy })));
  assert.equal(together.map((r) => r.choices[0]!.tokens), alone);
  const stats = await engine.stats();
  assert.ok(stats.preemptions > 0, 'the budget forced preemption');
  assert.equal([stats.running, stats.kvCellsUsed, stats.freeSlots], [0, 0, 4]);
});

tight('a request that alone outgrows the whole budget ends with length, not an error', async ({ engine }) => {
  const { choices } = await runToEnd(engine, { prompt: prompts[0]!, ignoreEos: true, sampling: greedy });
  assert.is(choices[0]!.reason, 'length');
  assert.ok(choices[0]!.tokens.length > 80 && choices[0]!.tokens.length < 96);
});

tight.run();
