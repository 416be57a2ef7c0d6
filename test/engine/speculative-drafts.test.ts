// Speculative decoding's parts without a model: the n-gram lookup, the adaptive draft length,
// drafts under a grammar (which must leave the matcher as it was), verification against a
// scripted target, and the scheduler's drafts and their KV cells on a fake cache.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo } from '../../compiler/index.js';
import { KvManager } from '../../runtime/engine/worker/kv-manager.js';
import { Scheduler } from '../../runtime/engine/worker/scheduler.js';
import { RequestState, Sequence } from '../../runtime/engine/worker/sequence.js';
import { DraftCost } from '../../runtime/engine/worker/speculative/draft-cost.js';
import { AcceptanceRate, bestDraftLength, DraftPolicy, ProbeMemory } from '../../runtime/engine/worker/speculative/draft-policy.js';
import { ForcedSpellings, SPELLING_LENGTH, SpellingWatch } from '../../runtime/engine/worker/speculative/forced-spellings.js';
import { admissiblePrefix, forcedText } from '../../runtime/engine/worker/speculative/grammar-drafts.js';
import { lookupContinuation } from '../../runtime/engine/worker/speculative/proposers/ngram-lookup.js';
import { verifyDraft } from '../../runtime/engine/worker/speculative/verify.js';
import { Speculation } from '../../runtime/engine/worker/speculative/speculation.js';
import type { StepPlan } from '../../runtime/engine/worker/scheduler.js';
import { nowMicros } from '../../runtime/engine/clock.js';
import { StepBudget } from '../../runtime/engine/worker/step-budget.js';
import { FakeKvCache, range } from '../helpers/fake-kv-cache.js';

const test = suite('speculative drafts');

test('n-gram lookup continues the latest earlier occurrence of the longest matching suffix', () => {
  // ... 1 2 3 [4 5] ... 9 1 2 3 -> the 3-gram "1 2 3" was followed by 4 5.
  assert.equal(lookupContinuation([1, 2, 3, 4, 5, 6, 9, 1, 2, 3], 2), [4, 5]);
  // The latest occurrence wins: "7 8" was followed by 1 first, then by 2.
  assert.equal(lookupContinuation([7, 8, 1, 7, 8, 2, 0, 7, 8], 3), [2, 0, 7]);
  // A longer suffix outranks a later shorter one: "5 6 7" matches at the start only.
  assert.equal(lookupContinuation([5, 6, 7, 1, 9, 6, 7, 2, 5, 6, 7], 1), [1]);
  // The continuation stops at the end of the context; single-token matches do not count.
  assert.equal(lookupContinuation([4, 5, 4, 5], 8), [4, 5]);
  assert.equal(lookupContinuation([1, 2, 3, 4, 1], 4), []);
  assert.equal(lookupContinuation([1, 2, 1, 2], 0), []);
});

const perToken = (cost: number) => ({ fixed: 0, perToken: cost });

test('the draft length maximises expected tokens per unit of time, and is 0 where drafting cannot pay', () => {
  // (1 + a + … + a^k) / (1 + fixed + perToken × k), worked by hand: a = 0.9, perToken = 0.1 ->
  // k = 9: 6.513 / 1.9 = 3.428, k = 10: 6.862 / 2.0 = 3.431, k = 11: 7.176 / 2.1 = 3.417.
  assert.is(bestDraftLength(0.9, perToken(0.1), 16), 10);
  assert.is(bestDraftLength(0.9, perToken(0.1), 3), 3, 'capped by what the sequence may take');
  // a = 0.5, perToken = 1/3: k = 1 gives 1.5 / 1.33 = 1.125; k = 2 gives 1.75 / 1.67 = 1.05.
  assert.is(bestDraftLength(0.5, perToken(1 / 3), 16), 1);
  // A fixed cost favours longer drafts or none: a = 0.8, fixed 0.6, perToken 0.1 -> k = 1 gives
  // 1.8 / 1.7 = 1.06, k = 6 gives 3.95 / 2.2 = 1.80; with a = 0.4 nothing beats 1.05.
  assert.is(bestDraftLength(0.8, { fixed: 0.6, perToken: 0.1 }, 16) >= 6, true);
  assert.is(bestDraftLength(0.4, { fixed: 0.6, perToken: 0.1 }, 16), 0);
  assert.is(bestDraftLength(0.3, perToken(0.5), 16), 0, 'costly positions and poor acceptance: plain decoding');
  assert.is(bestDraftLength(0.99, perToken(0), 16), 16, 'free positions: draft all that is allowed');
});

test('the draft policy learns acceptance from verifications, and probes now and then when it does not draft', () => {
  const policy = new DraftPolicy(0, 0.5);
  assert.is(policy.rate, 0.5);
  for (let i = 0; i < 10; i++) policy.record(8, 8);
  assert.ok(policy.rate > 0.95, `whole drafts accepted: ${policy.rate}`);
  assert.ok(policy.next(16, perToken(0.2)) >= 12);
  for (let i = 0; i < 10; i++) policy.record(4, 0);
  assert.ok(policy.rate < 0.2, `drafts rejected outright: ${policy.rate}`);
  const lengths = Array.from({ length: 24 }, () => policy.next(16, perToken(0.3)));
  assert.equal(lengths.filter((k) => k > 0), [2, 2, 2], 'a two-token probe every 8 steps');
  assert.is(lengths.indexOf(2), 7);
  // Probes rejected outright: the wait doubles (8, 16, 32 steps); an accepted one resets it.
  const backoff = new DraftPolicy(0, 0.05);
  const probes: number[] = [];
  for (let step = 0; step < 60; step++) {
    const k = backoff.next(16, perToken(0.3));
    if (k > 0) probes.push(step);
    backoff.record(k, 0);
  }
  assert.equal(probes, [7, 23, 55]);
  const reset = new DraftPolicy(0, 0.05);
  const resetProbes: number[] = [];
  for (let step = 0; step < 40; step++) {
    const k = reset.next(16, perToken(0.3));
    if (k > 0) resetProbes.push(step);
    reset.record(k, k > 0 && resetProbes.length === 2 ? 1 : 0);
  }
  assert.equal(resetProbes.slice(0, 3), [7, 23, 31], 'after an accepted probe, the next comes 8 steps on');
  // A fixed spec_draft_length is used as given, whatever happens, within what the sequence may take.
  const fixed = new DraftPolicy(3, 0.5);
  fixed.record(3, 0);
  fixed.record(3, 0);
  assert.is(fixed.next(16, perToken(10)), 3);
  assert.is(fixed.next(2, perToken(10)), 2);
});

test('a new sequence starts from the probe wait its source reached last', () => {
  const memory = new ProbeMemory();
  const older = new DraftPolicy(0, 0.05, memory);
  for (let step = 0; step < 60; step++) older.record(older.next(16, perToken(0.3)), 0); // probes at 7, 23, 55: the wait is now 64
  const newer = new DraftPolicy(0, 0.05, memory);
  assert.is(Array.from({ length: 70 }, () => newer.next(16, perToken(0.3))).indexOf(2), 63, 'not 8 steps on: its source\'s probes failed');
  newer.record(2, 1);
  const third = new DraftPolicy(0, 0.05, memory);
  assert.is(Array.from({ length: 10 }, () => third.next(16, perToken(0.3))).indexOf(2), 7, 'after an accepted probe, a new sequence probes 8 steps on');
  const own = new DraftPolicy(0, 0.05);
  assert.is(Array.from({ length: 10 }, () => own.next(16, perToken(0.3))).indexOf(2), 7, 'a policy of its own starts at 8');
});

test('the acceptance rate counts tokens accepted in order until the first rejection, the recent past weighing most', () => {
  const rate = new AcceptanceRate(0.5);
  rate.record(4, 3); // 3 accepted, 1 rejected
  assert.ok(Math.abs(rate.rate - (0.35 + 3) / (0.35 + 3 + 0.35 + 1)) < 1e-9);
  rate.record(0, 0);
  assert.ok(Math.abs(rate.rate - (0.35 + 3) / (0.35 + 3 + 0.35 + 1)) < 1e-9, 'no draft, no news');
  rate.record(2, 2); // all accepted: no rejection counted
  assert.ok(Math.abs(rate.rate - (0.245 + 2.1 + 2) / (0.245 + 2.1 + 2 + 0.245 + 0.7)) < 1e-9);
});

test('the cost of drafting is fitted as fixed + per token from the steps, per batch width', () => {
  const cost = new DraftCost();
  assert.equal(cost.relative(1), { fixed: 0.4, perToken: 0.3 }, 'the first guess before any step');
  // A lone decode takes 10 ms; K draft tokens add 6 + 2 K ms: fixed 0.6, per token 0.2 of a step.
  cost.observe(1, 0, 0, 10_000);
  for (let i = 0; i < 60; i++) for (const k of [1, 3, 8]) cost.observe(1, 0, k, 10_000 + 6_000 + 2_000 * k);
  const lone = cost.relative(1);
  assert.ok(Math.abs(lone.fixed - 0.6) < 0.01 && Math.abs(lone.perToken - 0.2) < 0.01, JSON.stringify(lone));
  cost.observe(1, 100, 4, 500_000);
  assert.equal(cost.relative(1), lone, 'steps with prompt tokens say nothing about drafts');
  // Four sequences share a 20 ms step (5 ms a sequence); there a draft token adds 1 ms, nothing fixed.
  cost.observe(4, 0, 0, 20_000);
  for (let i = 0; i < 60; i++) for (const k of [2, 6]) cost.observe(4, 0, k, 20_000 + 1_000 * k);
  const wide = cost.relative(4);
  assert.ok(Math.abs(wide.fixed) < 0.01 && Math.abs(wide.perToken - 0.2) < 0.01, JSON.stringify(wide));
  // A draft model's time to propose counts per token too: 2.5 ms a token is half a sequence's 5 ms.
  for (let i = 0; i < 100; i++) cost.observeProposer(5_000, 2);
  assert.ok(Math.abs(cost.relative(4).perToken - 0.7) < 0.01);
});

/** A raw vocabulary and a tokenizer that takes the longest token first. */
function rawVocabulary(tokens: string[]) {
  const enc = new TextEncoder();
  const info = TokenizerInfo.fromTokenBytes({ tokens: tokens.map((t) => enc.encode(t)), stop: [tokens.indexOf('</s>')], special: [] });
  const tokenize = (text: string): number[] => {
    const out: number[] = [];
    for (let at = 0; at < text.length; ) {
      let best = -1;
      tokens.forEach((token, id) => {
        if (token !== '</s>' && text.startsWith(token, at) && (best < 0 || token.length > tokens[best]!.length)) best = id;
      });
      if (best < 0) throw new Error(`cannot tokenize ${text.slice(at)}`);
      out.push(best);
      at += tokens[best]!.length;
    }
    return out;
  };
  return { info, tokenize };
}

test('under a grammar, forced text becomes draft tokens, drafts are cut to what the grammar accepts, and the matcher is left as it was', () => {
  const tokens = ['{"', 'colour', '": "', 'red', 'blue', '"}', '</s>', 'x', '"', 'col', 'our', ': "'];
  const { info, tokenize } = rawVocabulary(tokens);
  const grammar = Grammar.fromEBNF('root ::= "{\\"colour\\": \\"" ("red" | "blue") "\\"}"');
  const matcher = new GrammarMatcher(new GrammarCompiler(info).compile(grammar));
  const maskOf = () => {
    const mask = new Uint32Array(1);
    matcher.fillNextTokenBitmask(mask);
    return mask[0];
  };
  const before = { mask: maskOf(), units: matcher.acceptedUnits };
  assert.is(forcedText(matcher), '{"colour": "');
  const forced = admissiblePrefix(matcher, tokenize(forcedText(matcher)).slice(0, 16));
  assert.equal(forced.map((id) => tokens[id]), ['{"', 'colour', '": "']);
  assert.equal(admissiblePrefix(matcher, tokenize('{"colour": "').slice(0, 2)).map((id) => tokens[id]), ['{"', 'colour']);
  // A spelling the model used before replaces the tokenizer's split, cut where the grammar
  // stops accepting it ('x' is not a colour).
  const spelt = ['{"', 'col', 'our', '"', ': "', 'red', 'x'].map((t) => tokens.indexOf(t));
  assert.equal(admissiblePrefix(matcher, spelt.slice(0, 16)).map((id) => tokens[id]), ['{"', 'col', 'our', '"', ': "', 'red']);
  assert.equal({ mask: maskOf(), units: matcher.acceptedUnits }, before, 'the matcher is unchanged');

  for (const id of forced) assert.ok(matcher.acceptToken(id));
  const choice = { mask: maskOf(), units: matcher.acceptedUnits };
  assert.is(forcedText(matcher), '', 'nothing is forced where the grammar branches');
  const draft = [tokens.indexOf('red'), tokens.indexOf('"}'), tokens.indexOf('x')];
  assert.equal(admissiblePrefix(matcher, draft), draft.slice(0, 2));
  assert.equal(admissiblePrefix(matcher, [tokens.indexOf('x')]), [], 'a draft the grammar refuses is cut to nothing');
  assert.equal({ mask: maskOf(), units: matcher.acceptedUnits }, choice, 'the matcher is unchanged');
  assert.ok(matcher.acceptToken(tokens.indexOf('blue')), 'and goes on as before');
});

test('a draft model still drafts where the output follows the prediction but the grammar refuses its next token', async () => {
  const tokens = ['{"', 'colour', '": "', 'red', 'blue', '"}', '</s>', 'x'];
  const id = (token: string) => tokens.indexOf(token);
  const { info } = rawVocabulary(tokens);
  const matcher = new GrammarMatcher(new GrammarCompiler(info).compile(Grammar.fromEBNF('root ::= "{\\"colour\\": \\"" ("red" | "blue") "\\"}"')));
  const proposer = { propose: async (requests: readonly { count: number }[]) => requests.map(({ count }) => [id('blue'), id('"}')].slice(0, count)) };
  const speculation = new Speculation({ draftLength: 4, tokenize: () => [], piece: () => new Uint8Array(), proposer });
  const prompt = [id('x')];
  const state = new RequestState(1, { prompt, maxTokens: 64 }, prompt.length, 1000, false);
  // The prediction says 'x' where the grammar wants a colour.
  state.predicted = ['{"', 'colour', '": "', 'x', '"}'].map(id);
  const sequence = new Sequence(state, 0, Int32Array.from(prompt), undefined as never, undefined as never, undefined as never, { matcher } as never);
  for (const token of ['{"', 'colour', '": "']) {
    sequence.tokens.push(id(token));
    assert.ok(matcher.acceptToken(id(token)));
  }
  await speculation.beforeStep(() => [sequence]);
  assert.equal(speculation.propose(sequence, 4, 1), [id('blue'), id('"}')]);
});

test('forced spellings: the tokens that spelt each forced text (and each rest of it) are remembered by that text, most recent first, within a capacity', () => {
  const spellings = new ForcedSpellings(64);
  const watch = new SpellingWatch();
  // Token 40 is "k", 41 "ey", 42 '"', 43 '":', 44 " 1"; anything else "?".
  const pieces: Record<number, string> = { 40: 'k', 41: 'ey', 42: '"', 43: '":', 44: ' 1' };
  const piece = (token: number) => new TextEncoder().encode(pieces[token] ?? '?');
  const tokens = [1, 2, 3];
  watch.watch(3, 'key"');
  watch.update(tokens, spellings, piece);
  assert.is(spellings.size, 0, 'nothing written yet');
  tokens.push(40, 41);
  watch.update(tokens, spellings, piece);
  assert.equal(spellings.recall('key"'), [40, 41], 'spelt so far');
  assert.equal(spellings.recall('ey"'), [41], 'the rest of the text after its first token');
  // The last token reaches past the text ('":'); what follows (" 1") is the model's own choice.
  tokens.push(43, 44, 5, 6);
  watch.update(tokens, spellings, piece);
  assert.equal(spellings.recall('key"'), [40, 41, 43]);
  assert.equal(spellings.recall('ey"'), [41, 43]);
  assert.equal(spellings.recall('"'), [43]);
  assert.is(spellings.size, 3);
  // The text is spelt, so the watch let it go: a later spelling elsewhere changes nothing.
  spellings.remember('key"', [40, 41, 42]);
  watch.update([1, 2, 3, 40, 41, 43], spellings, piece);
  assert.equal(spellings.recall('key"'), [40, 41, 42]);
  // Tokens that do not spell the text (it was not forced after all) record nothing past them.
  const off = new SpellingWatch();
  off.watch(0, 'kz');
  off.update([40, 50, 51], spellings, piece);
  assert.equal(spellings.recall('kz'), [40]);
  assert.is(spellings.recall('z'), undefined);
  // At most SPELLING_LENGTH tokens: a long text spelt one character at a time.
  const long = new SpellingWatch();
  long.watch(0, 'k'.repeat(40));
  long.update(Array(40).fill(40), spellings, piece);
  assert.is(spellings.recall('k'.repeat(40))!.length, SPELLING_LENGTH);

  // A shorter spelling that agrees with the known one (a sequence still writing) keeps the
  // longer; one that differs replaces it.
  spellings.remember('ey"', [41]);
  assert.equal(spellings.recall('ey"'), [41, 43]);
  spellings.remember('ey"', [7]);
  assert.equal(spellings.recall('ey"'), [7]);
  // Capacity 2: the least recently used text goes.
  const small = new ForcedSpellings(2);
  small.remember('a', [1]);
  small.remember('b', [2]);
  small.recall('a');
  small.remember('c', [3]);
  assert.is(small.size, 2);
  assert.is(small.recall('b'), undefined);
  assert.ok(small.recall('a') && small.recall('c'));
});

/** A sequence whose sampler is a script: each call to the committer takes the next scripted token. */
function scriptedSequence(prompt: number[], maxTokens = 100) {
  const state = new RequestState(1, { prompt, maxTokens }, prompt.length, 1000, false);
  const sequence = new Sequence(state, 0, Int32Array.from(prompt), undefined as never, undefined as never, undefined as never, undefined);
  state.sequences.push(sequence);
  return { state, sequence };
}

test('a prediction drafts from its first step where drafting pays at a prediction\'s trust but not at a guess\'s', () => {
  const speculation = new Speculation({ draftLength: 0, tokenize: () => [], piece: () => new Uint8Array() });
  // Steps as a loaded CPU makes them: each drafted position costs half a plain step, drafting at all 0.4 more.
  const plan = (drafted: number) => ({ decoding: 1, tokens: 1 + drafted, drafted, entries: [] }) as unknown as StepPlan;
  for (let i = 0; i < 30; i++) {
    for (const drafted of [0, 1, 4]) {
      const micros = 10_000 * (1 + (drafted > 0 ? 0.4 + 0.5 * drafted : 0));
      void speculation.afterStep({ plan: plan(drafted), accepted: [], settled: [], hiddenState: () => undefined, plannedAt: nowMicros() - micros });
    }
  }
  const prompt = [1, 2, 3];
  const state = new RequestState(1, { prompt, maxTokens: 64 }, prompt.length, 1000, false);
  state.predicted = [10, 11, 12, 13, 14, 15, 16, 17];
  const sequence = new Sequence(state, 0, Int32Array.from(prompt), undefined as never, undefined as never, undefined as never, undefined);
  // (1 + 0.9 + … + 0.9^4) / (1 + 0.4 + 0.5 × 4) = 1.20 pays; at 0.8 no length beats 1.05.
  assert.equal(speculation.propose(sequence, 16, 1).slice(0, 2), [10, 11]);
});

test('verification commits the target\'s own choice at each position until it differs from the draft', () => {
  const run = (draft: number[], target: number[], end?: { at: number; pushes: boolean }) => {
    const { sequence } = scriptedSequence([1, 2, 3]);
    const rows: number[] = [];
    const accepted = verifyDraft(sequence, draft, (k) => {
      rows.push(k);
      return new Float32Array(0);
    }, (s) => {
      const token = target[s.tokens.length - 3]!;
      if (end?.at === s.tokens.length - 3) {
        if (end.pushes) s.tokens.push(token);
        s.finish = 'stop';
        return;
      }
      s.tokens.push(token);
    });
    return { accepted, output: sequence.tokens.slice(3), rows };
  };
  assert.equal(run([7, 8, 9], [7, 8, 9, 10]), { accepted: 3, output: [7, 8, 9, 10], rows: [0, 1, 2, 3] }, 'all accepted, plus a bonus token');
  assert.equal(run([7, 8, 9], [7, 5, 9, 10]), { accepted: 1, output: [7, 5], rows: [0, 1] }, 'the first difference is the correction');
  assert.equal(run([7, 8, 9], [4, 8, 9, 10]), { accepted: 0, output: [4], rows: [0] });
  // A stop string completed by an accepted token ends the sequence there; the token stays accepted.
  assert.equal(run([7, 8, 9], [7, 8, 9, 10], { at: 1, pushes: true }), { accepted: 2, output: [7, 8], rows: [0, 1] });
  // An end-of-generation token adds no token: what it replaced is not accepted.
  assert.equal(run([7, 8, 9], [7, 8, 9, 10], { at: 1, pushes: false }), { accepted: 1, output: [7], rows: [0, 1] });
});

test('the scheduler drafts after decoding sequences within their limits, and a verified draft keeps only its accepted cells', () => {
  const cache = new FakeKvCache();
  const kv = new KvManager(cache, { cells: 1000, runningSlots: 4, recyclingSlots: 0 });
  const proposals: number[] = [];
  const widths: number[] = [];
  const scheduler = new Scheduler(
    kv,
    { maxTotalSeqLength: 1000, batchCapacity: 256, shareAcrossRequests: false, maxDraftTokens: 6 },
    new StepBudget({ chunk: 256 }),
    undefined,
    (sequence, most, width) => {
      widths.push(width);
      proposals.push(most);
      return range(500, 500 + Math.min(most, 4));
    },
  );
  const { state: a, sequence: first } = scriptedSequence(range(0, 10), 3);
  const { sequence: second } = scriptedSequence(range(20, 30));
  scheduler.enqueue(a);
  scheduler.enqueue(second.request);
  const decode = () => {
    const plan = scheduler.schedule();
    for (const entry of plan.entries) cache.compute(entry.sequence.slot, entry.start, entry.count + entry.draft.length);
    scheduler.update(plan);
    return plan;
  };
  // The prompts' last tokens take drafts too: at most 3 - 0 - 1 = 2 for the first (max_tokens 3),
  // and what is left of the step's 6 for the second.
  const plan = decode();
  assert.equal(plan.entries.map((e) => [e.count, e.draft.length, e.logits]), [[10, 2, 3], [10, 4, 5]]);
  assert.equal(proposals, [2, 4]);
  assert.equal(widths, [1, 1], 'prompts: no sequence decodes yet');
  assert.is(plan.drafted, 6);
  assert.is(plan.tokens, 26);
  // The target agrees with the first token of the first draft and with none of the second.
  first.tokens.push(500, 77);
  first.generated = 2;
  scheduler.settleDraft(plan.entries[0]!, 1);
  second.tokens.push(88);
  second.generated = 1;
  scheduler.settleDraft(plan.entries[1]!, 0);
  assert.equal(cache.positionsOf(first.slot), range(0, 11), 'the prompt and the accepted draft token');
  assert.equal(cache.positionsOf(second.slot), range(0, 10), 'the prompt alone');
  assert.equal([first.computed, first.pending, second.computed, second.pending], [11, 1, 10, 1]);
  assert.is(kv.usedCells, cache.cells.size, 'the manager counts the cells the cache has');
  // One output token left for the first sequence: no draft for it; the second may take the whole step's room.
  proposals.length = 0;
  const next = decode();
  assert.equal(next.entries.map((e) => [e.start, e.count, e.draft.length]), [[11, 1, 0], [10, 1, 4]]);
  assert.equal(proposals, [6]);
  assert.equal(widths, [1, 1, 2], 'two sequences decode');
});

test.run();
