// Which requests run, and which of their tokens go into the next step. Phase-free (vLLM v1):
// every running sequence's computed tokens catch up with its known ones, whether they are a
// prompt, a prompt resumed after preemption, or the token just sampled. Before computing, a
// sequence takes what the prefix cache holds of its tokens, and waits for an older sequence
// that is computing the same tokens rather than computing them twice.
import type { KvManager } from './kv-manager.js';
import { commonLength } from './kv-tree.js';
import type { RequestState, Sequence } from './sequence.js';
import type { StepBudget } from './step-budget.js';

export interface StepEntry {
  sequence: Sequence;
  /** Index in `sequence.tokens` of the first token computed this step. */
  start: number;
  count: number;
  /**
   * Logit rows wanted: for the last `logits` tokens of the entry, drafts included (1 + the
   * drafts when it reaches the last known token), and before those the `promptRows`.
   */
  logits: number;
  /**
   * Of `logits`, the first rows: prompt positions whose rows score the next prompt token
   * (GenerateRequest.promptLogprobs), not sampled from. 0 for every other entry.
   */
  promptRows: number;
  /** Draft tokens computed after the entry's known ones, for the target to verify (speculative decoding). */
  draft: number[];
}

export interface StepPlan {
  entries: StepEntry[];
  tokens: number;
  /** Entries computing one token after the last sampled one (streams decoding). */
  decoding: number;
  /** Of `tokens`, the draft tokens. */
  drafted: number;
}

/**
 * Draft tokens for a sequence whose known tokens this step completes, at most `most`, in a
 * step that decodes `width` sequences (speculative decoding).
 */
export type ProposeDraft = (sequence: Sequence, most: number, width: number) => number[];

export interface SchedulerLimits {
  /** KV cells in all (max_total_seq_length). */
  maxTotalSeqLength: number;
  /** Most tokens the batch holds. */
  batchCapacity: number;
  /** Most draft tokens one step verifies, across sequences (each takes a logit row). */
  maxDraftTokens?: number;
  /**
   * Whether a request may take cells other requests computed (the prefix cache is on). The
   * choices of one request share their prompt either way.
   */
  shareAcrossRequests: boolean;
  /**
   * Once a step completes a prompt (its first token will be sampled) and carries at least this
   * many prompt tokens, no further prompt joins it (default: no limit). On a CPU a prompt token
   * costs about the same in any step from a few dozen tokens up (SmolLM2 on 2 cores: 1.2-1.5 ms
   * at 8 to 512), so prompts packed into one step all get their first token when the last is
   * done: four 620-token chats at once, 4.7 s each, where one after another gives 0.8, 1.9,
   * 3.3 and 4.3 s. A GPU computes many prompts for the price of one and packs them.
   */
  promptStepFloor?: number;
  /**
   * Most prompt tokens a step computes for requests that score their prompts, all of them
   * together, each with a logit row (the context has room for this many beyond the sequences'
   * and drafts' rows: prompt-scoring.ts).
   */
  scoredRowsPerStep?: number;
}

/** promptStepFloor on a CPU: below this a step's fixed cost (~6 ms for SmolLM2 on 2 cores) starts to matter. */
export const CPU_PROMPT_STEP_FLOOR = 64;

/**
 * After a preemption, admission leaves room for this share of what the running choices may
 * still generate, each counted for at most RESERVED_GROWTH_PER_CHOICE tokens, shrinking to none
 * over RESERVE_DECAY_STEPS steps and forgotten when the engine is idle (SGLang's new-token
 * ratio, there from the start, with its per-request clip). Admitting whatever fit the cells of
 * the moment, a request was admitted, computed its prompt and was preempted again as the others
 * grew. A simulation (test/engine/scheduler.test.ts has the first): 6 clients on 2,048 cells
 * (prompts of 480-1,100 tokens, n 1-4, most without max_tokens) went from 31 preemptions and
 * 29,395 tokens computed twice to 13 and 11,899, in 4% more steps; 64 chat clients on 32,768
 * cells (answers ending after ~300 tokens) from 372 preemptions and 22,517 to 10 and 3,340, in
 * 3% fewer steps. Counting growth up to the context (8,000 tokens a choice without max_tokens)
 * let one request run at a time after a preemption. A server that never preempts admits as before.
 */
const RESERVE_AFTER_PREEMPTION = 0.7;
const RESERVE_DECAY_STEPS = 3000;
const RESERVED_GROWTH_PER_CHOICE = 256;

/** A sequence waits for another to compute a shared prefix only when it saves at least this many tokens. */
const WAIT_FOR_SHARED_PREFIX = 32;

export class Scheduler {
  readonly waiting: RequestState[] = [];
  readonly running: RequestState[] = [];
  private admissions = 0;
  preemptions = 0;
  /** Tokens computed again after a preemption (below what the sequence held then; what it took back from the prefix cache is not counted). */
  recomputedTokens = 0;
  /** Share of the running choices' remaining growth that admission leaves room for (anti-thrash after a preemption). */
  private reserve = 0;

  constructor(
    private readonly kv: KvManager,
    private readonly limits: SchedulerLimits,
    private readonly budget: StepBudget,
    private readonly onAdmit: (state: RequestState) => void = () => undefined,
    private readonly proposeDraft?: ProposeDraft,
    /** How well a free slot suits a sequence (kv-manager.ts allocate); device-sampling.ts ranks by the chain a slot keeps. */
    private readonly rankSlot?: (sequence: Sequence, slot: number) => number,
  ) {}

  enqueue(state: RequestState): void {
    this.waiting.push(state);
  }

  /**
   * Of the waiting requests, and `also` after them, how many the free slots will not take at
   * the next admission: those that truly wait. Requests that arrive together are all waiting
   * until the next step admits them, while slots may be free for each.
   */
  waitingBeyondFreeSlots(also?: RequestState): number {
    const queue = also ? [...this.waiting, also] : this.waiting;
    let free = this.kv.freeRunningSlots;
    let taken = 0;
    for (const state of queue) {
      if (state.live.length > free) break;
      free -= state.live.length;
      taken++;
    }
    return queue.length - taken;
  }

  /** Admits what fits, then plans the next step within the step budget and the KV budget. */
  schedule(): StepPlan {
    // An idle engine (nothing running or waiting) forgets: a preemption long ago throttles no new burst.
    const idle = this.running.length === 0 && this.waiting.length === 0;
    this.reserve = idle ? 0 : Math.max(0, this.reserve - RESERVE_AFTER_PREEMPTION / RESERVE_DECAY_STEPS);
    this.admit();
    for (;;) {
      const plan = this.plan();
      if (plan.tokens <= this.kv.freeCells || this.kv.makeRoom(plan.tokens)) {
        this.addDrafts(plan);
        return plan;
      }
      if (!this.preemptYoungest()) return plan;
    }
  }

  /** Records a decoded step: the planned tokens are now in the KV cache. */
  update(plan: StepPlan): void {
    for (const { sequence, start, count } of plan.entries) {
      this.recomputedTokens += Math.max(0, Math.min(start + count, sequence.heldBeforePreemption) - start);
      sequence.computed += count;
      sequence.computedHere += count;
      this.kv.extend(sequence.slot, sequence.tokens.slice(start, start + count));
    }
  }

  /**
   * Records a verified draft: its first `accepted` tokens (now the sequence's own) keep their
   * cells, the cells of the rest are dropped.
   */
  settleDraft(entry: StepEntry, accepted: number): void {
    const { sequence, draft } = entry;
    if (draft.length === 0 || sequence.slot < 0) return;
    if (accepted > 0) {
      sequence.computed += accepted;
      sequence.computedHere += accepted;
      this.kv.extend(sequence.slot, draft.slice(0, accepted));
    }
    this.kv.dropUnrecorded(sequence.slot);
  }

  /** Takes a request out of the engine (finished, cancelled or failed), releasing its slots. */
  retire(state: RequestState, keepCells: boolean): void {
    for (const list of [this.running, this.waiting]) {
      const index = list.indexOf(state);
      if (index >= 0) list.splice(index, 1);
    }
    for (const sequence of state.sequences) this.release(sequence, keepCells);
  }

  /** Gives back a sequence's slot; with `keepCells` its cells stay in the prefix cache. */
  release(sequence: Sequence, keepCells: boolean): void {
    if (sequence.slot < 0) return;
    this.kv.release(sequence.slot, keepCells);
    sequence.slot = -1;
  }

  /** Frees the youngest running request's cells and puts it back at the head of the queue. */
  preemptYoungest(): boolean {
    if (this.running.length < 2) return false;
    const victim = this.running.reduce((a, b) => (b.admittedAt > a.admittedAt ? b : a));
    this.running.splice(this.running.indexOf(victim), 1);
    for (const sequence of victim.sequences) {
      sequence.heldBeforePreemption = Math.max(sequence.heldBeforePreemption, sequence.computed);
      this.release(sequence, false);
      sequence.computed = 0;
      sequence.computedHere = 0;
    }
    this.waiting.unshift(victim);
    this.preemptions++;
    this.reserve = RESERVE_AFTER_PREEMPTION;
    return true;
  }

  /** Moves waiting requests into slots, oldest first, while slots and KV cells allow. */
  private admit(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      const live = next.live;
      if (!this.kv.canAllocate(live.length)) break;
      // The growth walk only after a preemption: without one the reserve is 0 and admission as before.
      const reserved = this.reserve > 0 ? this.reserve * (this.growthLeft() + growthLeft(next)) : 0;
      if (this.running.length > 0 && this.committedCells() + projectedCells(next) + reserved > this.limits.maxTotalSeqLength) break;
      this.waiting.shift();
      const rankSlot = this.rankSlot;
      for (const sequence of live) sequence.slot = this.kv.allocate(rankSlot && ((slot) => rankSlot(sequence, slot)));
      if (next.admittedAt < 0) next.admittedAt = this.admissions++;
      this.running.push(next);
      this.onAdmit(next);
    }
  }

  /** Tokens the running requests' choices may still generate, within max_tokens and their length limits. */
  private growthLeft(): number {
    let tokens = 0;
    for (const state of this.running) tokens += growthLeft(state);
    return tokens;
  }

  /** Cells the running requests will hold once their known tokens are computed. */
  private committedCells(): number {
    let cells = 0;
    for (const state of this.running) cells += projectedCells(state);
    return cells;
  }

  private plan(): StepPlan {
    const ready: Sequence[] = [];
    let decoding = 0;
    for (const state of this.running) {
      for (const sequence of state.sequences) {
        if (sequence.finish !== undefined || sequence.slot < 0 || sequence.pending === 0) continue;
        if (sequence.computedHere === 0) {
          const mayShareWith = this.sharesAcrossRequests(state) ? undefined : (holder: number) => state.sequences.some((s) => s.slot === holder);
          sequence.computed = this.kv.share(sequence.slot, sequence.tokens, sequence.tokens.length - 1, mayShareWith);
          if (this.waitsForSharedPrefix(sequence)) continue;
        }
        if (sequence.pending === 1) decoding++;
        ready.push(sequence);
      }
    }
    const entries = new Map<Sequence, StepEntry>();
    const prompts = ready.length - decoding;
    // The oldest prompt short enough is computed whole beside the streams, on top of the
    // budget (step-budget.ts); with no stream running, every prompt may take the whole chunk.
    // Only one not yet begun: a long prompt's last slices are still at its full depth, where
    // 256 tokens took one step of 1.3 s beside 8 SmolLM2 streams on 2 cores.
    const whole = decoding > 0 ? ready.find((sequence) => sequence.computedHere === 0 && sequence.pending > 1 && sequence.pending <= this.budget.wholePrompt) : undefined;
    let room = Math.min(this.limits.batchCapacity, decoding + this.budget.catchUpTokens(decoding, prompts) + (whole?.pending ?? 0));
    const floor = this.limits.promptStepFloor ?? Infinity;
    let promptTokens = 0;
    let completesPrompt = false;
    let scoringRoom = this.limits.scoredRowsPerStep ?? Infinity;
    const grant = (sequence: Sequence, most: number, pastFloor = false): void => {
      const catchingUp = sequence.pending > 1;
      if (catchingUp && !pastFloor && completesPrompt && promptTokens >= floor) return;
      const entry = entries.get(sequence);
      const already = entry?.count ?? 0;
      const scoring = sequence.request.promptUnscored;
      const count = Math.min(sequence.pending - already, most, room, scoring ? scoringRoom : Infinity);
      if (count <= 0) return;
      room -= count;
      if (scoring) scoringRoom -= count;
      if (catchingUp) {
        promptTokens += count;
        if (already + count === sequence.pending) completesPrompt = true;
      }
      if (entry) entry.count += count;
      else entries.set(sequence, { sequence, start: sequence.computed, count, logits: 0, promptRows: 0, draft: [] });
    };
    // Shortest first: decoding streams keep their pace and a short prompt is not stuck behind a
    // long one. The oldest prompt still catching up is promised half of what is left, past the
    // floor too, so neither short prompts computed whole nor a stream of them can starve it.
    const byPending = [...ready].sort((a, b) => a.pending - b.pending);
    for (const sequence of byPending) if (sequence.pending === 1) grant(sequence, 1);
    if (whole) grant(whole, whole.pending);
    const oldest = ready.find((sequence) => sequence.pending > 1);
    if (oldest) grant(oldest, Math.ceil(room / 2), true);
    for (const sequence of byPending) grant(sequence, room);
    let tokens = 0;
    for (const entry of entries.values()) {
      entry.promptRows = promptRowsOf(entry);
      entry.logits = entry.promptRows + (entry.start + entry.count === entry.sequence.tokens.length ? 1 : 0);
      if (entry.sequence.computedHere === 0 && entry.sequence.choice === 0) entry.sequence.request.cachedTokens ??= entry.start;
      tokens += entry.count;
    }
    return { entries: [...entries.values()], tokens, decoding, drafted: 0 };
  }

  /**
   * Draft tokens after each entry that completes its sequence's known tokens, in the batch
   * room and KV cells the plan leaves, and never past the sequence's length limits.
   */
  private addDrafts(plan: StepPlan): void {
    if (!this.proposeDraft) return;
    let room = Math.min(this.limits.batchCapacity - plan.tokens, this.kv.freeCells - plan.tokens, this.limits.maxDraftTokens ?? Infinity);
    for (const entry of plan.entries) {
      if (room <= 0) break;
      const { sequence } = entry;
      if (entry.logits !== 1) continue;
      const most = Math.min(room, sequence.draftRoom);
      if (most <= 0) continue;
      const draft = this.proposeDraft(sequence, most, Math.max(1, plan.decoding));
      if (draft.length === 0) continue;
      entry.draft = draft;
      entry.logits = 1 + draft.length;
      plan.tokens += draft.length;
      plan.drafted += draft.length;
      room -= draft.length;
    }
  }

  /** Whether a request may take prompt cells from other requests (the prefix cache); not one that scores its prompt (cells keep no logits). */
  private sharesAcrossRequests(state: RequestState): boolean {
    return this.limits.shareAcrossRequests && state.request.cachePrompt !== false && state.promptLogprobs === undefined;
  }

  /**
   * Whether an older running sequence is computing tokens this one also starts with (a
   * shared system prompt, the other choices of the same request): then this one waits and
   * takes them from the cache once they are computed.
   */
  private waitsForSharedPrefix(sequence: Sequence): boolean {
    const limit = sequence.tokens.length - 1;
    for (const state of this.running) {
      if (!this.sharesAcrossRequests(sequence.request) && state !== sequence.request) continue;
      for (const other of state.sequences) {
        if (other === sequence) return false;
        if (other.finish !== undefined || other.slot < 0) continue;
        const common = commonLength(other.tokens, sequence.tokens, 0, limit);
        // The choices of one request always share their prompt; other requests only when it is worth a wait.
        const worth = state === sequence.request ? 1 : WAIT_FOR_SHARED_PREFIX;
        if (other.computed < common && common >= sequence.computed + worth) return true;
      }
    }
    return false;
  }
}

/**
 * The entry's prompt positions not scored yet, for a request that scores its prompt: the rows
 * from the first of them to the entry's end, the last prompt position (which scores nothing) aside.
 */
function promptRowsOf(entry: StepEntry): number {
  const state = entry.sequence.request;
  if (!state.promptUnscored) return 0;
  const from = Math.max(entry.start, state.promptLogprobs!.length - 1);
  const to = Math.min(entry.start + entry.count, state.promptLength - 1);
  return Math.max(0, to - from);
}

/** Tokens a request's live choices may still generate, each counted for at most RESERVED_GROWTH_PER_CHOICE. */
function growthLeft(state: RequestState): number {
  let tokens = 0;
  for (const sequence of state.live) tokens += Math.max(0, Math.min(RESERVED_GROWTH_PER_CHOICE, (state.request.maxTokens ?? Infinity) - sequence.generated, state.lengthLimit - sequence.tokens.length));
  return tokens;
}

/** Cells a request will hold once its known tokens are computed (its choices share the prompt). */
function projectedCells(state: RequestState): number {
  let cells = 0;
  for (const sequence of state.sequences) {
    if (sequence.finish !== undefined) continue;
    cells += sequence.tokens.length + 1 - (sequence.choice > 0 ? state.promptLength : 0);
  }
  return cells;
}
