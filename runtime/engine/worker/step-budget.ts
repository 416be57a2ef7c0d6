// How many tokens the next step may carry. A lone request prefills at full speed, in steps of
// up to about a second by the learnt cost (up to prefill_chunk_size), so a cancelled prompt
// stops, and a request that arrives starts, within about that long (a 5,000-token prompt was
// one step of 60-150 s on a loaded 2-core machine, which an abort could not cut short); the
// steps are whole micro-batches, cut where llama.cpp cuts one long step, so the arithmetic and
// the output are the same. While streams are decoding, the prompt tokens that join their step are
// bounded so that a step takes about `slowdown` times a plain decode step (Sarathi-Serve's
// stall-free batching): a long prompt arriving no longer freezes every stream for its whole
// prefill. The costs are learnt from the steps themselves, so the budget follows the device,
// the model, the number of streams and the load of the machine. On a 2-core CPU with SmolLM2
// and 8 streams (npm run bench:prefix -- --scenario long-prompt): slowdown 2 with at least 16
// tokens gave stream ITL p99 3.6× its level before a 3,428-token prompt (prefill 36 s);
// 2.5 with at least 8 gave 2.2× (48 s); 2.5 with 4, 2.3× (72 s). The floor matters because
// once the long prompt's cells are in the shared cache, every decode attends over them too.
// A later 2-core machine gives 4.0-4.9× with 8 and 4.0× with 4: there 8 prompt tokens at
// context 3,000 cost ~13-17 ms each, in batches too small for ggml's tiled attention. With a
// stream of cells per sequence (--kv-layout per-sequence) the prompt's cells cost the streams
// nothing, so a lower floor keeps the steps short at depth without slowing every stream.
//
// A short prompt is computed whole instead, in one step, even beside streams: one pause for
// them, but the prompt's cells stay in one run, which keeps attention to them cheap for the
// rest of its conversation (a prompt token costs 2-4× as much over cells left interleaved
// with the streams' by small slices: bench/kv-layout.ts), and its first token comes at once.
// SmolLM2, 2 cores, lmforge / llama-server (bench/compare-llama-server.sh, concurrency 16,
// ~160-token prompts): throughput 1.03× (0.84× with slices), TTFT 0.18× (1.8×), ITL 0.98×
// (0.85×); bench:prefix multi-turn, TTFT at turns 2-6: 0.41-0.49× (1.1-1.7× with slices).

import { MICRO_BATCH_TOKENS } from '../../backend/context.js';
import type { KvLayout } from '../engine-config.js';

export interface StepBudgetOptions {
  /** prefill_chunk_size: the most prompt tokens in any step. */
  chunk: number;
  /** Longest a step with prompt tokens may take, as a multiple of a decode-only step (default 2.5). */
  slowdown?: number;
  /** Prompt tokens granted per step whatever the costs, so prefill always progresses (default 8). */
  minTokens?: number;
  /** Prompt tokens per step before any cost is known (default 64). */
  firstGuess?: number;
  /** A prompt with at most this many tokens left is computed whole, whatever streams run (default 256). */
  wholePrompt?: number;
  /** Longest a step with no stream beside it may take by the learnt costs, in microseconds (default 1 s). */
  loneStepMicros?: number;
  /** What a lone step's prompt tokens are a multiple of (default llama.cpp's micro-batch, MICRO_BATCH_TOKENS). */
  granule?: number;
}

/**
 * StepBudgetOptions.minTokens for each KV layout. In the shared pool a long prefill slows
 * every stream until it ends, so it must progress; with a stream per sequence only its own
 * slices do, and at depth they are dear (8 prompt tokens at position 3,000 take 106 ms alone,
 * 3× a step of 8 streams). SmolLM2, 2 cores, bench:prefix long-prompt, stream ITL p99 during
 * the prefill over before: per-sequence, a floor of 8 gave 3.6-4.7× (prefill 35-42 s), 4 gave
 * 2.75× (58 s, p99 154 ms), 2 gave 2.3-2.9× (67-84 s, p99 107-126 ms); in the shared pool a
 * floor of 2 gave 4.6× (118 s).
 */
export const MIN_PROMPT_TOKENS: Readonly<Record<KvLayout, number>> = { shared: 8, 'per-sequence': 2 };

/** StepBudgetOptions.wholePrompt's default: the prompt of a chat turn, not a document. */
export const WHOLE_PROMPT_TOKENS = 256;

/** Weight of the newest observation in the running averages. */
const SMOOTHING = 0.2;

export class StepBudget {
  private readonly slowdown: number;
  private readonly minTokens: number;
  private readonly firstGuess: number;
  /** Prompts with at most this many tokens left are computed whole in one step. */
  readonly wholePrompt: number;
  /** Running average of a decode-only step, in microseconds. */
  private decodeMicros: number | undefined;
  /** Running average of what one prompt token adds to a step, in microseconds. */
  private tokenMicros: number | undefined;

  constructor(private readonly options: StepBudgetOptions) {
    this.slowdown = options.slowdown ?? 2.5;
    this.minTokens = Math.min(options.minTokens ?? 8, options.chunk);
    this.firstGuess = Math.min(options.firstGuess ?? 64, options.chunk);
    this.wholePrompt = Math.min(options.wholePrompt ?? WHOLE_PROMPT_TOKENS, options.chunk);
  }

  /**
   * Most prompt (catch-up) tokens the next step may carry beside `decoding` one-token entries
   * while `prompts` sequences are catching up. The streams' slowdown is worth more when it
   * serves several waiting prompts per stream: the allowance grows with that ratio.
   */
  catchUpTokens(decoding: number, prompts = 1): number {
    if (decoding === 0) return this.loneTokens();
    if (this.decodeMicros === undefined || this.tokenMicros === undefined) return this.firstGuess;
    const spare = (this.slowdown - 1) * this.decodeMicros * Math.max(1, prompts / decoding);
    const affordable = Math.floor(spare / Math.max(this.tokenMicros, 1e-3));
    return Math.max(this.minTokens, Math.min(this.options.chunk, affordable));
  }

  /** Prompt tokens of a step with no stream beside it: whole micro-batches, about loneStepMicros of them once a cost is known, one before. */
  private loneTokens(): number {
    const granule = Math.min(this.options.granule ?? MICRO_BATCH_TOKENS, this.options.chunk);
    if (this.tokenMicros === undefined) return granule;
    const affordable = Math.floor((this.options.loneStepMicros ?? 1_000_000) / Math.max(this.tokenMicros, 1e-3) / granule) * granule;
    return Math.min(this.options.chunk, Math.max(granule, affordable));
  }

  /** Learns from a finished step: its one-token entries, its prompt tokens and how long it took. */
  observe(decoding: number, catchUp: number, micros: number): void {
    if (catchUp === 0) {
      if (decoding > 0) this.decodeMicros = average(this.decodeMicros, micros);
      return;
    }
    const decodePart = decoding > 0 ? (this.decodeMicros ?? 0) : 0;
    this.tokenMicros = average(this.tokenMicros, Math.max(0, micros - decodePart) / catchUp);
  }
}

function average(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + SMOOTHING * (sample - previous);
}
