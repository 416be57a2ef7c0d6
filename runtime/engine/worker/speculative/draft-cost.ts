// What drafting costs, learnt from the steps themselves (planning, decode and verification:
// under a grammar each verified position needs a mask, which the decode time alone misses). On a GPU a decode step is bound by
// reading the weights, and a few more positions are nearly free; on a CPU each position is
// real work, and the first one beside a lone decode costs most, since llama.cpp leaves its
// one-row kernels for matrix ones (SmolLM2-135M on 2 cores: 1 position ~11 ms, 2 ~20 ms, 5 ~30
// ms, 9 ~35-45 ms). So a step's extra time for K draft tokens is modelled as fixed + perToken
// × K, fitted by decayed least squares over the drafted steps, per batch width (grouped by
// powers of two), and starting from a first guess that the fit outweighs after a few steps.
// Both parts are given relative to what one sequence's token costs in a plain step, plus what
// proposing a token took where a draft model proposes it.

/** Weight kept by the past at each observation. */
const MEMORY = 0.9;
/** The first guess, as fractions of a plain step: the extra time of K draft tokens ≈ 0.4 + 0.3 K. */
const GUESS = { fixed: 0.4, perToken: 0.3 };
/** How many observations the first guess counts as (at K = 1 and K = 4). */
const GUESS_WEIGHT = 0.5;
const BUCKETS = 8;

export interface RelativeCost {
  /** Paid once when a sequence drafts at all. */
  fixed: number;
  /** Paid per draft token. */
  perToken: number;
}

/** Decayed sums for fitting excess ≈ fixed + perToken × K. */
class AffineFit {
  private n = 0;
  private k = 0;
  private kk = 0;
  private e = 0;
  private ke = 0;

  add(k: number, excess: number, weight = 1): void {
    this.n = MEMORY * this.n + weight;
    this.k = MEMORY * this.k + weight * k;
    this.kk = MEMORY * this.kk + weight * k * k;
    this.e = MEMORY * this.e + weight * excess;
    this.ke = MEMORY * this.ke + weight * k * excess;
  }

  /** The fitted line, with both parts kept ≥ 0. */
  solve(): { fixed: number; perToken: number } {
    const det = this.n * this.kk - this.k * this.k;
    let perToken = det > 1e-9 ? (this.n * this.ke - this.k * this.e) / det : this.e / Math.max(this.k, 1e-9);
    perToken = Math.max(0, perToken);
    const fixed = Math.max(0, (this.e - perToken * this.k) / this.n);
    return { fixed, perToken };
  }
}

export class DraftCost {
  /** By width bucket: running average of a step without drafts or prompt tokens (µs), and the fit of drafted steps' extra time. */
  private readonly stepMicros: (number | undefined)[] = new Array(BUCKETS).fill(undefined);
  private readonly fits: (AffineFit | undefined)[] = new Array(BUCKETS).fill(undefined);
  /** Running average of what proposing one draft token takes (a draft model's decodes), in µs. */
  private proposerMicros = 0;

  /** Learns from a finished step: `decoding` one-token entries, prompt tokens, draft tokens, duration. */
  observe(decoding: number, promptTokens: number, drafted: number, micros: number): void {
    if (decoding === 0 || promptTokens > 0) return;
    const b = bucketOf(decoding);
    const step = this.stepMicros[b];
    if (drafted === 0) {
      this.stepMicros[b] = step === undefined ? micros : step + (1 - MEMORY) * (micros - step);
    } else if (step !== undefined) {
      this.fitOf(b, step).add(drafted, micros - step);
    }
  }

  /** Learns what a proposer (a draft model) took to propose `tokens` draft tokens. */
  observeProposer(micros: number, tokens: number): void {
    if (tokens > 0) this.proposerMicros += (1 - MEMORY) * (micros / tokens - this.proposerMicros);
  }

  /** Drafting's cost as fractions of what one sequence's token costs in a plain step of `width` sequences. */
  relative(width: number): RelativeCost {
    const b = bucketOf(width);
    const step = this.stepMicros[b];
    if (step === undefined) return GUESS;
    const share = step / width;
    const { fixed, perToken } = this.fitOf(b, step).solve();
    return { fixed: fixed / share, perToken: (perToken + this.proposerMicros) / share };
  }

  private fitOf(b: number, step: number): AffineFit {
    let fit = this.fits[b];
    if (!fit) {
      fit = new AffineFit();
      // The first guess as two weak observations, so one drafted length alone still gives a line.
      for (const k of [1, 4]) fit.add(k, (GUESS.fixed + GUESS.perToken * k) * step, GUESS_WEIGHT);
      this.fits[b] = fit;
    }
    return fit;
  }
}

function bucketOf(width: number): number {
  return Math.min(BUCKETS - 1, Math.floor(Math.log2(Math.max(1, width))));
}
