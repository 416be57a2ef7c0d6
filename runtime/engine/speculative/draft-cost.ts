// What a draft token costs, learnt from the steps themselves. On a GPU a decode step is bound
// by reading the weights, and a few more positions are nearly free; on a CPU each position is
// real work (SmolLM2-135M on 2 cores: 1 position ~11 ms, 2 ~20 ms, 9 ~35-45 ms), so drafting
// pays only where drafts are likely to be accepted. The cost is kept as a fraction of what one
// sequence's token costs in a plain decode step, for batch widths grouped by powers of two
// (one more position costs less in a batch that is already wide), plus what proposing the
// token took where a draft model proposes it. While nothing is drafted,
// the estimate drifts back to its first guess, so that a cost measured in a bad moment (a
// neighbour's burst of load) is measured again rather than kept forever.

/** Weight of the newest observation in the running averages. */
const SMOOTHING = 0.1;
/** Before any drafted step is seen: a draft position costs a third of a sequence's decode step. */
const FIRST_GUESS = 1 / 3;
/** Share of the draft estimate that drifts back to the first guess at each step without drafts. */
const DRIFT = 0.01;
const BUCKETS = 8;

export class DraftCost {
  /** Running averages by width bucket: a step without drafts or prompt tokens, and one draft token's addition to it (µs). */
  private readonly stepMicros: (number | undefined)[] = new Array(BUCKETS).fill(undefined);
  private readonly draftMicros: (number | undefined)[] = new Array(BUCKETS).fill(undefined);
  /** Running average of what proposing one draft token takes (a draft model's decodes), in µs. */
  private proposerMicros = 0;

  /** Learns from a finished step: `decoding` one-token entries, prompt tokens, draft tokens, duration. */
  observe(decoding: number, promptTokens: number, drafted: number, micros: number): void {
    if (decoding === 0 || promptTokens > 0) return;
    const b = bucketOf(decoding);
    const step = this.stepMicros[b];
    if (drafted === 0) {
      this.stepMicros[b] = average(step, micros);
      const draft = this.draftMicros[b];
      if (draft !== undefined) this.draftMicros[b] = draft + DRIFT * ((FIRST_GUESS * micros) / decoding - draft);
    } else if (step !== undefined) {
      this.draftMicros[b] = average(this.draftMicros[b], Math.max(0, micros - step) / drafted);
    }
  }

  /** Learns what a proposer (a draft model) took to propose `tokens` draft tokens. */
  observeProposer(micros: number, tokens: number): void {
    if (tokens > 0) this.proposerMicros += SMOOTHING * (micros / tokens - this.proposerMicros);
  }

  /** One draft token's cost as a fraction of what one sequence's token costs in a plain step of `width` sequences. */
  relative(width: number): number {
    const b = bucketOf(width);
    const step = this.stepMicros[b];
    const draft = this.draftMicros[b];
    if (step === undefined) return FIRST_GUESS;
    return ((draft ?? FIRST_GUESS * (step / width)) + this.proposerMicros) * width / step;
  }
}

function bucketOf(width: number): number {
  return Math.min(BUCKETS - 1, Math.floor(Math.log2(Math.max(1, width))));
}

function average(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + SMOOTHING * (sample - previous);
}
