// How many tokens to draft for one sequence at its next step. A fixed spec_draft_length is
// used as given. Otherwise each source keeps an estimate of how often its next draft token
// is accepted (a), and the length k chosen is the one that maximises tokens per unit of time:
//   (1 + a + a² + … + a^k) / (1 + ρk)
// with ρ the relative cost of a draft token (draft-cost.ts); k = 0 when nothing beats plain
// decoding. The estimate drifts back to its prior while a source is not used, so a source
// that failed is tried again now and then, and a text that starts to repeat is noticed.

/** The longest draft one sequence proposes from one source. */
export const MAX_DRAFT = 16;
/** Drafting must promise this much more throughput than plain decoding. */
const MARGIN = 0.05;
/** Share of the estimate that drifts back to the prior at each step the source is not used. */
const DRIFT = 0.02;
/** Weight kept by the past at each verification. */
const MEMORY = 0.7;

export class DraftPolicy {
  private accepted: number;
  private failed: number;

  constructor(
    /** spec_draft_length: a positive fixed length, or 0 to choose. */
    private readonly fixed: number,
    /** The prior acceptance rate of a draft token from this source. */
    private readonly prior: number,
  ) {
    this.accepted = prior;
    this.failed = 1 - prior;
  }

  /** Estimated probability that the next draft token is accepted. */
  get rate(): number {
    return this.accepted / (this.accepted + this.failed);
  }

  /** Tokens to propose now, at most `most`, when a draft token costs `relativeCost` (ρ). */
  next(most: number, relativeCost: number): number {
    if (this.fixed > 0) return Math.min(this.fixed, most);
    const k = bestDraftLength(this.rate, relativeCost, Math.min(most, MAX_DRAFT));
    if (k === 0) {
      this.accepted += DRIFT * (this.prior - this.accepted);
      this.failed += DRIFT * (1 - this.prior - this.failed);
    }
    return k;
  }

  /** What the target made of the last draft: tokens are accepted in order until the first rejection. */
  record(proposed: number, accepted: number): void {
    if (proposed === 0) return;
    this.accepted = MEMORY * this.accepted + accepted;
    this.failed = MEMORY * this.failed + (accepted < proposed ? 1 : 0);
  }
}

/** The k in [0, most] maximising (1 + a + … + a^k) / (1 + ρk); 0 unless it beats 1 by the margin. */
export function bestDraftLength(rate: number, relativeCost: number, most: number): number {
  let best = 0;
  let bestValue = 1 + MARGIN;
  let expected = 1;
  let power = 1;
  for (let k = 1; k <= most; k++) {
    power *= rate;
    expected += power;
    const value = expected / (1 + relativeCost * k);
    if (value > bestValue) [best, bestValue] = [k, value];
  }
  return best;
}
