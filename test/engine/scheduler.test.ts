// The scheduler without a model: a fake KV cache plays llama.cpp's, the test plays the decode
// and the sampler. Phase-free catch-up, the step budget, shared prefixes (in flight and
// cached), n choices, fairness between short and long prompts, and preemption.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KvManager } from '../../runtime/engine/worker/kv-manager.js';
import { Scheduler, type StepPlan } from '../../runtime/engine/worker/scheduler.js';
import { RequestState, Sequence } from '../../runtime/engine/worker/sequence.js';
import { StepBudget } from '../../runtime/engine/worker/step-budget.js';
import { FakeKvCache, range } from '../helpers/fake-kv-cache.js';

const test = suite('scheduler');

interface Setup {
  cells?: number;
  runningSlots?: number;
  recyclingSlots?: number;
  chunk?: number;
  budget?: StepBudget;
  promptStepFloor?: number;
  scoredRowsPerStep?: number;
}

function setup(options: Setup = {}) {
  const cache = new FakeKvCache();
  const recyclingSlots = options.recyclingSlots ?? 4;
  const kv = new KvManager(cache, { cells: options.cells ?? 10_000, runningSlots: options.runningSlots ?? 4, recyclingSlots });
  // Lone prompts take whole chunks (a granule of the chunk): what these tests look at is how steps are shared.
  const budget = options.budget ?? new StepBudget({ chunk: options.chunk ?? 512, granule: options.chunk ?? 512 });
  const limits = { maxTotalSeqLength: options.cells ?? 10_000, batchCapacity: 4096, shareAcrossRequests: recyclingSlots > 0, scoredRowsPerStep: options.scoredRowsPerStep ?? 1024 };
  const scheduler = new Scheduler(kv, options.promptStepFloor === undefined ? limits : { ...limits, promptStepFloor: options.promptStepFloor }, budget);
  let nextId = 1;
  let nextToken = 50_000;
  /** A request whose choices have this prompt and stop after `maxTokens`. */
  const submit = (prompt: number[], n = 1, maxTokens = 4, promptLogprobs = false): RequestState => {
    const state = new RequestState(nextId++, { prompt, n, maxTokens, promptLogprobs }, prompt.length, 100_000, false);
    // As the engine starts a scored prompt's list: its first token, unscored.
    if (promptLogprobs) state.promptLogprobs = [{ token: prompt[0]!, logprob: null, rank: null, bytes: [], top: [] }];
    for (let choice = 0; choice < n; choice++) {
      state.sequences.push(new Sequence(state, choice, Int32Array.from(prompt), undefined as never, undefined as never, undefined as never, undefined));
    }
    scheduler.enqueue(state);
    return state;
  };
  /** One step: plan, "decode" into the fake cache, sample a fresh token where logits were asked. */
  const step = (): StepPlan => {
    const plan = scheduler.schedule();
    for (const { sequence, start, count } of plan.entries) {
      assert.equal(cache.positionsOf(sequence.slot), range(0, start), 'a sequence computes right after what it holds');
      cache.compute(sequence.slot, start, count);
    }
    scheduler.update(plan);
    for (const { sequence, start, count, logits, promptRows } of plan.entries) {
      // Prompt rows score the next prompt token (prompt-scoring.ts), the first of them the one after the list's last.
      const list = sequence.request.promptLogprobs;
      if (promptRows > 0) assert.is(start + count - logits, list!.length - 1, 'prompt rows begin at the first unscored position');
      for (let k = 0; k < promptRows; k++) list!.push({ token: sequence.tokens[list!.length]!, logprob: -1, rank: 1, bytes: [], top: [] });
      if (logits === promptRows) continue;
      sequence.tokens.push(nextToken++);
      sequence.generated++;
      if (sequence.generated >= (sequence.request.request.maxTokens ?? 1)) {
        sequence.finish = 'length';
        scheduler.release(sequence, true);
      }
    }
    for (const state of [...scheduler.running]) if (state.done) scheduler.retire(state, true);
    assert.is(cache.cells.size, kv.usedCells, 'the manager counts the cells the cache has');
    return plan;
  };
  const entryOf = (plan: StepPlan, state: RequestState, choice = 0) => plan.entries.find((e) => e.sequence === state.sequences[choice]);
  return { cache, kv, scheduler, submit, step, entryOf };
}

test('a lone prompt is computed at full chunk size, then decoded one token a step', () => {
  const { submit, step, entryOf } = setup({ chunk: 512 });
  const r = submit(range(0, 1200));
  assert.equal([512, 512, 176].map(() => entryOf(step(), r)!.count), [512, 512, 176]);
  const decode = entryOf(step(), r)!;
  assert.equal([decode.start, decode.count, decode.logits], [1200, 1, 1]);
});

test('a prompt that is scored asks a logit row at every position, at most scoredRowsPerStep a step, and its last row is sampled', () => {
  const { submit, step, entryOf } = setup({ chunk: 512, scoredRowsPerStep: 100 });
  const r = submit(range(0, 250), 1, 2, true);
  const steps = [step(), step(), step()].map((plan) => entryOf(plan, r)!);
  assert.equal(steps.map((e) => [e.start, e.count, e.promptRows, e.logits]), [[0, 100, 100, 100], [100, 100, 100, 100], [200, 50, 49, 50]]);
  assert.is(r.promptLogprobs!.length, 250, 'every prompt token scored once');
  assert.equal(r.promptLogprobs!.map((entry) => entry.token), range(0, 250));
  const decode = entryOf(step(), r)!;
  assert.equal([decode.start, decode.count, decode.promptRows, decode.logits], [250, 1, 0, 1]);
});

test('a prompt that is scored is computed whole, never taken from the prefix cache; the others still take it', () => {
  const { submit, step, entryOf } = setup({ chunk: 512 });
  const prompt = range(0, 300);
  const plain = submit(prompt, 1, 1);
  step();
  assert.ok(plain.done);
  const scored = submit([...prompt, 7], 1, 1, true);
  const first = entryOf(step(), scored)!;
  assert.equal([first.start, first.count, first.promptRows], [0, 301, 300]);
  assert.is(scored.cachedTokens, 0);
  const again = submit([...prompt, 8], 1, 1);
  assert.is(entryOf(step(), again)!.start, 300, 'a plain request still takes the cached prefix');
});

test('n choices of a scored prompt: the first computes and scores it, the others take its cells', () => {
  const { submit, step, entryOf } = setup({ chunk: 512 });
  const r = submit(range(0, 40), 3, 2, true);
  const plan = step();
  const entries = [0, 1, 2].map((choice) => entryOf(plan, r, choice));
  assert.equal([entries[0]!.count, entries[0]!.promptRows], [40, 39]);
  assert.is(r.promptLogprobs!.length, 40);
  const next = step();
  for (const choice of [1, 2]) {
    const entry = entryOf(next, r, choice)!;
    assert.equal([entry.promptRows, entry.logits], [0, 1], `choice ${choice}`);
  }
});

test('while streams decode, a long prompt joins their steps a budgeted slice at a time', () => {
  const budget = new StepBudget({ chunk: 4096, slowdown: 2, minTokens: 8 });
  // Learnt costs: a decode step 10 ms; each prompt token 0.5 ms -> 20 prompt tokens a step.
  budget.observe(2, 0, 10_000);
  budget.observe(0, 100, 50_000);
  const { submit, step, entryOf } = setup({ budget });
  const streams = [submit(range(0, 10), 1, 50), submit(range(100, 110), 1, 50)];
  step(); // both prompts at once: nobody decodes yet
  const long = submit(range(1000, 3000), 1, 5);
  for (let i = 0; i < 5; i++) {
    const plan = step();
    for (const s of streams) assert.is(entryOf(plan, s)!.count, 1, 'each stream keeps its token a step');
    assert.is(entryOf(plan, long)!.count, 20);
  }
});

/** A budget that has learnt 20 prompt tokens a step beside streams (a 10 ms decode step, 0.5 ms a prompt token). */
function learntBudget(options: { wholePrompt?: number } = {}): StepBudget {
  const budget = new StepBudget({ chunk: 4096, slowdown: 2, minTokens: 8, ...options });
  budget.observe(2, 0, 10_000);
  budget.observe(0, 100, 50_000);
  return budget;
}

test('beside streams, a prompt within the whole-prompt bound is computed whole in one step', () => {
  const { submit, step, entryOf } = setup({ budget: learntBudget({ wholePrompt: 256 }) });
  const streams = [submit(range(0, 10), 1, 50), submit(range(100, 110), 1, 50)];
  step();
  const turn = submit(range(1000, 1200), 1, 5);
  const plan = step();
  for (const s of streams) assert.is(entryOf(plan, s)!.count, 1, 'each stream keeps its token');
  assert.equal([entryOf(plan, turn)!.count, entryOf(plan, turn)!.logits], [200, 1]);
});

test('beside streams, the tail of a long prompt stays in budgeted slices, never computed whole', () => {
  const { submit, step, entryOf } = setup({ budget: learntBudget({ wholePrompt: 256 }) });
  submit(range(0, 10), 1, 100);
  step();
  // 300 tokens: past the whole-prompt bound at first, within it after three slices.
  const long = submit(range(1000, 1300), 1, 5);
  const counts: number[] = [];
  for (let i = 0; i < 15; i++) counts.push(entryOf(step(), long)?.count ?? 0);
  assert.equal(counts, Array(15).fill(20), 'each step a 20-token slice, the last 256 tokens too');
});

test('beside streams, short prompts computed whole go oldest first, one a step past the floor', () => {
  const { submit, step, entryOf } = setup({ budget: learntBudget({ wholePrompt: 256 }), promptStepFloor: 64, runningSlots: 6 });
  submit(range(0, 10), 1, 50);
  step();
  const [first, second] = [submit(range(1000, 1200), 1, 5), submit(range(2000, 2100), 1, 5)];
  const plan = step();
  assert.is(entryOf(plan, first)!.count, 200);
  assert.is(entryOf(plan, second), undefined, 'the step already completes a prompt of 200 tokens');
  assert.is(entryOf(step(), second)!.count, 100);
});

test('the oldest long prompt keeps its half of the budget while short prompts are computed whole', () => {
  const { submit, step, entryOf } = setup({ budget: learntBudget({ wholePrompt: 256 }), promptStepFloor: 64, runningSlots: 8 });
  submit(range(0, 10), 1, 50);
  step();
  const long = submit(range(1000, 3000), 1, 5);
  for (let i = 0; i < 5; i++) {
    const short = submit(range(10_000 + i * 1000, 10_100 + i * 1000), 1, 1);
    const plan = step();
    assert.is(entryOf(plan, short)!.count, 100, `step ${i}: the short prompt whole`);
    // Two prompts behind one stream double the 20-token allowance; the oldest is promised half.
    assert.is(entryOf(plan, long)!.count, 20, `step ${i}: half of the budget`);
  }
});

test('a short prompt is not stuck behind a long one', () => {
  const { submit, step, entryOf } = setup({ chunk: 256 });
  const long = submit(range(0, 5000));
  const first = step();
  assert.is(entryOf(first, long)!.count, 256);
  const short = submit(range(9000, 9030));
  const plan = step();
  assert.is(entryOf(plan, short)!.count, 30, 'the short prompt is computed whole in its first step');
  assert.is(entryOf(plan, long)!.count, 226);
});

test('with a prompt step floor, prompts sent together complete one a step, oldest first', () => {
  const { submit, step, entryOf } = setup({ chunk: 2048, promptStepFloor: 64 });
  // Each is done at its first token: no stream decodes, so the step budget stays out of it.
  const prompts = [0, 1, 2, 3].map((i) => submit(range(i * 1000, i * 1000 + 600), 1, 1));
  for (let i = 0; i < 4; i++) {
    const plan = step();
    assert.equal(
      prompts.map((p) => entryOf(plan, p)?.count ?? 0).filter((count) => count > 1),
      [600],
      `step ${i}: one prompt whole, none of the others`,
    );
    assert.is(entryOf(plan, prompts[i]!)!.logits, 1, `step ${i} samples prompt ${i}'s first token`);
  }
});

test('with a prompt step floor, short prompts still share a step up to the floor', () => {
  const { submit, step, entryOf } = setup({ chunk: 2048, promptStepFloor: 64 });
  const prompts = [0, 1, 2, 3, 4].map((i) => submit(range(i * 100, i * 100 + 30), 1, 2));
  const plan = step();
  // 30 + 30 reaches no floor, 90 does: the third completes the step.
  assert.equal(prompts.map((p) => entryOf(plan, p)?.count ?? 0), [30, 30, 30, 0, 0]);
});

test('without a floor (a GPU), prompts sent together share one step', () => {
  const { submit, step, entryOf } = setup({ chunk: 2048 });
  const prompts = [0, 1, 2].map((i) => submit(range(i * 1000, i * 1000 + 600), 1, 2));
  const plan = step();
  assert.equal(prompts.map((p) => entryOf(plan, p)!.count), [600, 600, 600]);
});

test('the oldest prompt keeps half of each step, however many short ones arrive', () => {
  const { submit, step, entryOf } = setup({ chunk: 100, runningSlots: 8 });
  const long = submit(range(0, 2000));
  step();
  for (let i = 0; i < 6; i++) {
    submit(range(10_000 + i * 100, 10_060 + i * 100), 1, 1); // done at its first token: no stream slows the step
    const plan = step();
    assert.ok(entryOf(plan, long)!.count >= 50, `step ${i}: ${entryOf(plan, long)!.count}`);
  }
});

test('a prompt that starts like one being computed waits for it, then shares its cells', () => {
  const { cache, submit, step, entryOf } = setup({ chunk: 100 });
  const system = range(0, 300);
  const a = submit([...system, 1, 2, 3]);
  const b = submit([...system, 7, 8]);
  for (let i = 0; i < 3; i++) assert.is(entryOf(step(), b), undefined, 'b waits while a computes the shared part');
  const plan = step();
  assert.equal([entryOf(plan, b)!.start, entryOf(plan, b)!.count], [300, 2], 'b computes only its own tokens');
  for (const p of range(0, 300)) assert.ok(cache.shareCell(a.sequences[0]!.slot, b.sequences[0]!.slot, p));
  assert.is(b.cachedTokens, 300);
  assert.is(a.cachedTokens, 0);
});

test('a later request takes a finished one’s prefix from the cache', () => {
  const { submit, step, entryOf, kv } = setup({ chunk: 1000 });
  const history = range(0, 400);
  const first = submit(history, 1, 3);
  while (!first.done) step();
  assert.ok(kv.cachedOnlyCells >= 400);
  const second = submit([...history, ...range(20_000, 20_050)]);
  const plan = step();
  assert.equal([entryOf(plan, second)!.start, entryOf(plan, second)!.count], [400, 50]);
  assert.is(second.cachedTokens, 400);
});

test('with the cache off, requests never share, but the choices of one request do', () => {
  const { submit, step, entryOf, cache } = setup({ recyclingSlots: 0, chunk: 1000 });
  const a = submit(range(0, 200), 3);
  const b = submit(range(0, 200));
  const plan = step();
  assert.is(entryOf(plan, a, 0)!.count, 200);
  assert.is(entryOf(plan, a, 1), undefined, 'the other choices wait for the first');
  assert.is(entryOf(plan, b)!.count, 200, 'another request computes its own copy');
  const next = step();
  for (const choice of [1, 2]) {
    assert.equal([entryOf(next, a, choice)!.start, entryOf(next, a, choice)!.count], [199, 1], 'a choice computes only the last prompt token');
    assert.ok(cache.shareCell(a.sequences[0]!.slot, a.sequences[choice]!.slot, 198));
  }
  assert.is(b.cachedTokens, 0);
});

test('when the KV budget is short, the youngest request is preempted and later resumed', () => {
  const { submit, step, scheduler, kv } = setup({ cells: 120, recyclingSlots: 0, chunk: 1000 });
  const a = submit(range(0, 50), 1, 30);
  const b = submit(range(100, 150), 1, 30);
  let steps = 0;
  while (!(a.done && b.done) && steps++ < 500) step();
  assert.ok(a.done && b.done, 'both finish');
  assert.ok(scheduler.preemptions > 0, 'the budget forced a preemption');
  assert.ok(scheduler.recomputedTokens > 0, 'and computed tokens again, counted for /metrics');
  assert.is(kv.usedCells, 0);
});

test('under steady KV pressure, admission after a preemption leaves room for growth: little work is computed twice', () => {
  // Six clients on 2,048 cells, each sending its next request when one ends: prompts of
  // 480-1,100 tokens, n 1-4, most without max_tokens (each choice capped at its share).
  // Admitting whatever fit the cells of the moment recomputed 37% more tokens than it kept.
  const cells = 2048;
  const { kv, scheduler, cache } = setup({ cells, runningSlots: 8, recyclingSlots: 4 });
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let nextId = 1000;
  let nextToken = 100_000;
  const send = (): RequestState => {
    const length = 480 + Math.floor(random() * 620);
    const n = 1 + Math.floor(random() * 4);
    const maxTokens = random() < 0.6 ? undefined : 800 + Math.floor(random() * 200);
    const prompt = range(nextToken, (nextToken += length));
    const limit = n === 1 ? cells : length + Math.floor((cells - length) / n);
    const state = new RequestState(nextId++, { prompt, n, maxTokens }, length, limit, false);
    for (let choice = 0; choice < n; choice++) state.sequences.push(new Sequence(state, choice, Int32Array.from(prompt), undefined as never, undefined as never, undefined as never, undefined));
    scheduler.enqueue(state);
    return state;
  };
  for (let i = 0; i < 6; i++) send();
  let computed = 0;
  let kept = 0;
  let finished = 0;
  for (let steps = 0; finished < 20; steps++) {
    assert.ok(steps < 50_000, 'the workload finishes');
    const plan = scheduler.schedule();
    for (const { sequence, start, count } of plan.entries) cache.compute(sequence.slot, start, count);
    scheduler.update(plan);
    computed += plan.tokens;
    for (const { sequence, logits } of plan.entries) {
      if (logits === 0) continue;
      sequence.tokens.push(nextToken++);
      sequence.generated++;
      if (sequence.generated >= (sequence.request.request.maxTokens ?? Infinity) || sequence.tokens.length >= sequence.request.lengthLimit) {
        sequence.finish = 'length';
        scheduler.release(sequence, true);
      }
    }
    for (const state of [...scheduler.running]) {
      if (!state.done) continue;
      scheduler.retire(state, true);
      kept += state.promptLength + state.sequences.reduce((sum, sequence) => sum + sequence.generated, 0);
      finished++;
      send();
    }
    assert.ok(kv.usedCells <= cells);
  }
  assert.ok(scheduler.preemptions > 0, 'the workload preempts');
  assert.ok(computed / kept < 1.2, `computed ${computed} tokens to keep ${kept}, after ${scheduler.preemptions} preemptions`);
  assert.ok(scheduler.recomputedTokens > 0 && scheduler.recomputedTokens <= computed - kept, `recomputed ${scheduler.recomputedTokens}: part of what was computed and not kept`);
});

test('after a preemption, requests without max_tokens still run side by side where cells allow: each choice is counted for a bounded share of its growth', () => {
  const { submit, step, scheduler } = setup({ cells: 8192, runningSlots: 4, recyclingSlots: 0 });
  const first = [submit(range(0, 200), 1, Infinity), submit(range(1000, 1200), 1, Infinity)];
  step();
  assert.is(scheduler.running.length, 2);
  assert.ok(scheduler.preemptYoungest());
  const later = [submit(range(2000, 2200), 1, Infinity), submit(range(3000, 3200), 1, Infinity)];
  step();
  // Counting each choice's growth to the whole context (8,000 tokens) let one run at a time.
  assert.is(scheduler.running.length, 4, 'four 200-token prompts in 8,192 cells');
  assert.ok([...first, ...later].every((state) => state.admittedAt >= 0));
});

test('an idle engine forgets a preemption: the next burst is admitted as if none happened', () => {
  const { submit, step, scheduler } = setup({ cells: 2000, runningSlots: 4, recyclingSlots: 0 });
  const early = [submit(range(0, 200), 1, 100), submit(range(1000, 1200), 1, 100)];
  step();
  assert.ok(scheduler.preemptYoungest());
  for (const state of early) scheduler.retire(state, false);
  step(); // nothing runs
  const burst = [0, 1, 2].map((i) => submit(range(10_000 * (i + 1), 10_000 * (i + 1) + 500), 1, 600));
  step();
  assert.is(scheduler.running.length, 3, '1,500 prompt cells of 2,000: all three fit');
  assert.ok(burst.every((state) => state.admittedAt >= 0));
});

test('cached cells make way for running requests before anyone is preempted', () => {
  const { submit, step, scheduler, kv } = setup({ cells: 200, recyclingSlots: 4, chunk: 1000 });
  for (let i = 0; i < 3; i++) {
    const r = submit(range(i * 1000, i * 1000 + 60), 1, 2);
    while (!r.done) step();
  }
  assert.ok(kv.cachedOnlyCells >= 150);
  const big = submit(range(50_000, 50_150), 1, 5);
  while (!big.done) step();
  assert.is(scheduler.preemptions, 0);
});

test.run();
