// What a draft token costs, learnt from the steps themselves. On a GPU a decode step is bound
// by reading the weights, and a few more positions are nearly free; on a CPU each position is
// real work (SmolLM2-135M on 2 cores: 1 position ~11 ms, 2 ~20 ms, 9 ~35-45 ms), so drafting
// pays only where drafts are likely to be accepted. The cost is kept as a fraction of a
// sequence's share of a plain decode step: what its one guaranteed token costs.

/** Weight of the newest observation in the running averages. */
const SMOOTHING = 0.1;
/** Before any drafted step is seen: a draft position costs a third of a decode step. */
const FIRST_GUESS = 1 / 3;

export class DraftCost {
  /** Running average of a step without drafts or prompt tokens, in microseconds, and its width. */
  private stepMicros: number | undefined;
  private width: number | undefined;
  /** Running average of what one draft token adds to a step, in microseconds. */
  private draftMicros: number | undefined;

  /** Learns from a finished step: `decoding` one-token entries, prompt tokens, draft tokens, duration. */
  observe(decoding: number, promptTokens: number, drafted: number, micros: number): void {
    if (decoding === 0 || promptTokens > 0) return;
    if (drafted === 0) {
      this.stepMicros = average(this.stepMicros, micros);
      this.width = average(this.width, decoding);
    } else if (this.stepMicros !== undefined) {
      this.draftMicros = average(this.draftMicros, Math.max(0, micros - this.stepMicros) / drafted);
    }
  }

  /** One draft token's cost as a fraction of what one sequence's token costs in a plain step. */
  get relative(): number {
    if (this.stepMicros === undefined || this.draftMicros === undefined) return FIRST_GUESS;
    return (this.draftMicros * (this.width ?? 1)) / this.stepMicros;
  }
}

function average(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + SMOOTHING * (sample - previous);
}
