// How many tokens to draft for one sequence at its next step. A fixed spec_draft_length is
// used as given. Otherwise each source keeps an estimate of how often its next draft token
// is accepted (a), and the length k chosen is the one that maximises tokens per unit of time:
//   (1 + a + a² + … + a^k) / (1 + fixed + perToken × k)
// with the relative costs of draft-cost.ts; k = 0 when nothing beats plain decoding. A
// sequence starts from what its source achieved across sequences, and one that has not
// drafted for a while tries two tokens, so that a text that starts to repeat is noticed; it
// starts from the wait its source's sequences reached last (ProbeMemory), so a source whose
// probes keep failing (Medusa heads on text they cannot guess) does not probe from 8 steps
// again in every new request: on a 2-core CPU a drafted position in a one-sequence step costs
// about 2.5 plain steps, and those restarts cost 13% on chat.

import type { RelativeCost } from './draft-cost.js';

/** The longest draft one sequence proposes from one source. */
export const MAX_DRAFT = 16;
/** Drafting must promise this much more throughput than plain decoding. */
const MARGIN = 0.05;
/** Weight kept by the past at each verification. */
const MEMORY = 0.7;
/**
 * Steps without drafting before a probe of PROBE tokens; each probe rejected outright doubles
 * the wait (up to MAX_PROBE_INTERVAL), any accepted token resets it. A proposer that always
 * proposes (Medusa heads) would otherwise pay a drafted step every 8 on text it cannot guess.
 */
const PROBE_INTERVAL = 8;
const MAX_PROBE_INTERVAL = 128;
const PROBE = 2;

/** A decayed count of accepted and rejected draft tokens: the rate at which the next one is accepted. */
export class AcceptanceRate {
  private accepted: number;
  private failed: number;

  constructor(prior: number) {
    this.accepted = prior;
    this.failed = 1 - prior;
  }

  get rate(): number {
    return this.accepted / (this.accepted + this.failed);
  }

  /** Draft tokens are accepted in order until the first rejection. */
  record(proposed: number, accepted: number): void {
    if (proposed === 0) return;
    this.accepted = MEMORY * this.accepted + accepted;
    this.failed = MEMORY * this.failed + (accepted < proposed ? 1 : 0);
  }
}

/** The probe wait a source's sequences reached last: where a new sequence's wait starts. */
export class ProbeMemory {
  interval = PROBE_INTERVAL;
}

export class DraftPolicy {
  private readonly acceptance: AcceptanceRate;
  private idle = 0;
  private probeInterval: number;
  /** Whether the last length given was a probe, until its verification is recorded. */
  private probing = false;

  constructor(
    /** spec_draft_length: a positive fixed length, or 0 to choose. */
    private readonly fixed: number,
    /** The acceptance rate to start from. */
    prior: number,
    /** The source's probe wait across sequences (its own when not shared). */
    private readonly memory = new ProbeMemory(),
  ) {
    this.acceptance = new AcceptanceRate(prior);
    this.probeInterval = memory.interval;
  }

  /** Estimated probability that the next draft token is accepted. */
  get rate(): number {
    return this.acceptance.rate;
  }

  /** Tokens to propose now, at most `most`, at the given relative cost. */
  next(most: number, cost: RelativeCost): number {
    if (this.fixed > 0) return Math.min(this.fixed, most);
    let k = bestDraftLength(this.rate, cost, Math.min(most, MAX_DRAFT));
    this.probing = false;
    if (k === 0 && ++this.idle >= this.probeInterval) {
      k = Math.min(PROBE, most);
      this.probing = true;
    }
    if (k > 0) this.idle = 0;
    return k;
  }

  record(proposed: number, accepted: number): void {
    this.acceptance.record(proposed, accepted);
    if (proposed > 0 && this.probing) this.probeInterval = accepted > 0 ? PROBE_INTERVAL : Math.min(2 * this.probeInterval, MAX_PROBE_INTERVAL);
    if (proposed > 0) this.probing = false;
    if (accepted > 0) this.probeInterval = PROBE_INTERVAL;
    this.memory.interval = this.probeInterval;
  }
}

/** The k in [0, most] maximising (1 + a + … + a^k) / (1 + fixed + perToken × k); 0 unless it beats 1 by the margin. */
export function bestDraftLength(rate: number, cost: RelativeCost, most: number): number {
  let best = 0;
  let bestValue = 1 + MARGIN;
  let expected = 1;
  let power = 1;
  for (let k = 1; k <= most; k++) {
    power *= rate;
    expected += power;
    const value = expected / (1 + cost.fixed + cost.perToken * k);
    if (value > bestValue) [best, bestValue] = [k, value];
  }
  return best;
}
