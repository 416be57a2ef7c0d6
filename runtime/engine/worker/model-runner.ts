// Runs one planned step on the model: the batch in, the requested logit rows out (or, for
// entries whose sequence samples in the graph, the tokens chosen there: device-sampling.ts).
import { Batch } from '../../backend/batch.js';
import type { LlamaContext } from '../../backend/context.js';
import type { StepEntry } from './scheduler.js';
import type { StepProfile } from '../step-profile.js';
import type { SampledToken } from '../../sampling/token-sampler.js';
import { graphSample } from './device-sampling.js';

/**
 * Batches of at least this many tokens take ggml's tiled CPU attention, which skips a block of
 * 64 cached cells only when it is masked out for all 64 queries of a tile.
 */
export const TILED_ATTENTION_TOKENS = 64;

export interface ModelRunnerOptions {
  /**
   * Ask for the last hidden state at every logit row (Medusa heads read them). Only steps
   * whose tokens all want logits get them (plain decode and verification steps): llama.cpp
   * would compute logits for every prompt token of a step that prefills.
   */
  wantHiddenStates?: boolean;
  /**
   * Split steps as ggml's CPU attention prefers (batchesOf). The streams of a step that also
   * computes prompt tokens go in a batch of their own: in one batch, a tile of queries holding
   * streams and prompt tokens attends to every sequence's cells (bench/kv-layout.ts, SmolLM2,
   * 2 cores): 48 prompt tokens beside 16 streams of 250 took 469 ms in one batch, 216 split; a
   * 178-token prompt beside 3 streams of 1,265, 801 ms and 672 (the prompt alone: 622). In one
   * pool, streams of TILED_ATTENTION_TOKENS tokens or more go in smaller batches: 64 SmolLM2
   * streams of 1-96 tokens (~3,000 cells in use) took 280 ms a step in two batches against 547
   * in one, and at 128 + 128 tokens a step of 63 took 1.1 s where one of 64 took 2.2
   * (bench/host.ts, 2 cores); on the tiny model at 64 and 256 streams, 0.98 and 1.09× one batch.
   */
  splitSteps?: boolean;
}

/**
 * `entries` in order, in about equal batches of fewer than TILED_ATTENTION_TOKENS tokens each
 * (an entry is never split; one of that many tokens or more is a batch of its own).
 */
function untiledBatches(entries: number[], tokensOf: (index: number) => number): number[][] {
  const total = entries.reduce((sum, index) => sum + tokensOf(index), 0);
  const target = Math.ceil(total / Math.ceil(total / (TILED_ATTENTION_TOKENS - 1)));
  const batches: number[][] = [[]];
  let tokens = 0;
  for (const index of entries) {
    if (tokens > 0 && tokens + tokensOf(index) > target) {
      batches.push([]);
      tokens = 0;
    }
    batches.at(-1)!.push(index);
    tokens += tokensOf(index);
  }
  return batches;
}

export class ModelRunner {
  private readonly batch: Batch;
  /**
   * Per entry of the last step: its first logit row (-1: none) and that token's index in the
   * batch, and whether its output was kept here (the prompts of a split step: logit rows in
   * keptLogits, a token sampled in the graph in `sampled`) rather than left in llama.cpp's buffers.
   */
  private rows: { kept: boolean; first: number; promptRows: number; index: number; sampled?: SampledToken; failure?: unknown }[] = [];
  /** The logit rows of a split step's earlier batches (a later decode replaced llama.cpp's buffer); grown, never shrunk. */
  private keptLogits = new Float32Array(0);
  /** Rows in keptLogits for the last step. */
  private keptRows = 0;
  /** Whether the last step returned hidden states. */
  private hiddenStates = false;
  private lastTokens = 0;

  constructor(
    private readonly context: LlamaContext,
    private readonly options: ModelRunnerOptions = {},
  ) {
    this.batch = new Batch(context.batchSize);
  }

  get capacity(): number {
    return this.batch.capacity;
  }

  /** Tokens in the last step (both batches of a split step). */
  get batchTokens(): number {
    return this.lastTokens;
  }

  /**
   * Decodes the entries; `whileDecoding` runs on this thread while llama.cpp works. `onDevice`
   * marks the entries whose sequence has a chain attached (their token, not their logits);
   * `profile` times the phases of pure decode steps.
   */
  async run(entries: readonly StepEntry[], whileDecoding?: () => void, onDevice?: readonly boolean[], profile?: StepProfile): Promise<void> {
    this.rows = entries.map(() => ({ kept: false, first: -1, promptRows: 0, index: -1 }));
    this.lastTokens = 0;
    this.keptRows = 0;
    const batches = this.batchesOf(entries);
    if (!batches) {
      this.fill(entries, () => true, false);
      profile?.lap('batch');
      await this.decode(whileDecoding, profile);
      return;
    }
    // Each batch but the last keeps its outputs here before the next decode replaces
    // llama.cpp's buffer; the last batch's rows stay there. The prompt tokens come first, so
    // that only their few rows (one per prompt it completes) are copied: copying every stream's
    // row was the largest JavaScript cost outside sampling of a run where prompts join
    // (bench:host's CPU profile, 64 streams of the tiny model). The later batches run once the
    // first is decoded, in `rest`.
    const inBatch = (b: number) => {
      const chosen = new Set(batches[b]);
      return (index: number) => chosen.has(index);
    };
    this.fill(entries, inBatch(0), true);
    profile?.lap('batch');
    await this.decode(whileDecoding, profile, () => {
      for (let b = 1; b < batches.length; b++) {
        this.keepOutputs(entries, inBatch(b - 1), onDevice);
        profile?.lap('sample');
        this.fill(entries, inBatch(b), b < batches.length - 1);
        profile?.lap('batch');
        try {
          this.context.decodeNow(this.batch);
        } catch (error) {
          // The step failed as a whole: the earlier batches' cells go too, as llama.cpp undoes a failed batch.
          for (const index of batches.slice(0, b).flat()) this.context.remove(entries[index]!.sequence.slot, entries[index]!.start, -1);
          throw error;
        }
        profile?.lap('decode');
      }
    });
  }

  /** Decodes the batch; `rest` (a split step's later batches) runs once llama.cpp is done with it. */
  private async decode(whileDecoding: (() => void) | undefined, profile?: StepProfile, rest?: () => void): Promise<void> {
    const batch = this.batch;
    this.hiddenStates = this.options.wantHiddenStates === true && batch.outputs === batch.length;
    if (this.options.wantHiddenStates) this.context.setHiddenStates(this.hiddenStates);
    if (!whileDecoding) {
      // Nothing to overlap: decode on this thread (no hop to a libuv thread and back), then
      // yield one turn of the event loop so the worker still takes its messages (submit,
      // cancel, stats) between steps.
      this.context.decodeNow(batch);
      profile?.lap('decode');
      rest?.();
      await new Promise((resolve) => setImmediate(resolve));
      profile?.lap('yield');
      this.waitForDevice(profile);
      return;
    }
    // Overlapped: the grammar work runs inside the decode's span (only llama_decode's own time is apart on the CPU path).
    const decoding = this.context.decode(batch);
    whileDecoding();
    await decoding;
    profile?.lap('decode');
    rest?.();
    this.waitForDevice(profile);
  }

  /**
   * While profiling, waits for the device here so that its time is a phase of its own; otherwise
   * the first logits read waits for it, inside `sample`.
   */
  private waitForDevice(profile: StepProfile | undefined): void {
    if (!profile) return;
    this.context.synchronize();
    profile.lap('device');
  }

  /** The token the graph chose for entry `entry` of the last step, with its logprobs when `logprobs` (its sequence samples on the device). */
  sampled(entry: number, logprobs: boolean): SampledToken {
    const { kept, first, index, sampled, failure } = this.rows[entry]!;
    if (first < 0) throw new Error(`step entry ${entry} asked for no logits`);
    if (!kept) return graphSample(this.context, index, logprobs);
    if (failure !== undefined) throw failure;
    return sampled!;
  }

  /** Logits for the `k`-th row to sample from of entry `entry` of the last step, after its prompt rows (a view, valid until the next step). */
  logits(entry: number, k = 0): Float32Array {
    return this.row(entry, this.rows[entry]!.promptRows + k);
  }

  /** Logits for the `k`-th of entry `entry`'s prompt rows (StepEntry.promptRows) of the last step. */
  promptLogits(entry: number, k: number): Float32Array {
    return this.row(entry, k);
  }

  /** The hidden state at the `k`-th row to sample from of entry `entry`, or undefined when the last step computed none. */
  hiddenState(entry: number, k = 0): Float32Array | undefined {
    const { first, promptRows } = this.rows[entry]!;
    if (!this.hiddenStates || first < 0) return undefined;
    return this.context.hiddenState(first + promptRows + k, this.batch.outputs);
  }

  dispose(): void {
    this.batch.dispose();
  }

  /** The entry's `k`-th logit row of the last step, counted from its first. */
  private row(entry: number, k: number): Float32Array {
    const { kept, first } = this.rows[entry]!;
    if (first < 0) throw new Error(`step entry ${entry} asked for no logits`);
    if (kept) {
      const size = this.context.vocabSize;
      return this.keptLogits.subarray((first + k) * size, (first + k + 1) * size);
    }
    return this.context.logits(first + k, this.batch.outputs);
  }

  /**
   * The step's entries as batches decoded one after the other (indices into `entries`), or
   * undefined for one batch. Both splits keep batches out of ggml's tiled CPU attention where
   * it would attend to every sequence's cells: the prompt tokens apart from the streams (every
   * token wants logits: a decode, or a decode with drafts to verify) when a step has both and
   * would take tiled attention; and, in one pool of cells, the streams in batches of fewer
   * than TILED_ATTENTION_TOKENS. Steps with hidden states stay whole.
   */
  private batchesOf(entries: readonly StepEntry[]): number[][] | undefined {
    if (!this.options.splitSteps || this.options.wantHiddenStates) return undefined;
    const tokensOf = (index: number) => entries[index]!.count + entries[index]!.draft.length;
    const prompts: number[] = [];
    const streams: number[] = [];
    entries.forEach((entry, index) => (entry.logits === tokensOf(index) && entry.promptRows === 0 ? streams : prompts).push(index));
    const promptTokens = prompts.reduce((sum, index) => sum + tokensOf(index), 0);
    const streamTokens = streams.reduce((sum, index) => sum + tokensOf(index), 0);
    // A stream batch of TILED_ATTENTION_TOKENS queries from as many sequences attends to every
    // cell of the pool: every tile of cells holds some query's own. Smaller batches take the
    // untiled kernel, which skips other sequences' cells one by one.
    const streamBatches = this.context.unifiedKv && streamTokens >= TILED_ATTENTION_TOKENS ? untiledBatches(streams, tokensOf) : [streams];
    if (prompts.length === 0) return streamBatches.length > 1 ? streamBatches : undefined;
    if (streams.length === 0 || promptTokens + streamTokens < TILED_ATTENTION_TOKENS) return undefined;
    return [prompts, ...streamBatches];
  }

  /** Puts the chosen entries in the batch, recording their first logit rows (`kept`: to be copied out by keepOutputs). */
  private fill(entries: readonly StepEntry[], chosen: (index: number) => boolean, kept: boolean): void {
    const batch = this.batch;
    batch.clear();
    entries.forEach(({ sequence, start, count, logits, promptRows, draft }, index) => {
      if (!chosen(index)) return;
      let first = -1;
      let firstIndex = -1;
      const total = count + draft.length;
      for (let i = 0; i < total; i++) {
        const token = i < count ? sequence.tokens[start + i]! : draft[i - count]!;
        const row = batch.add(token, start + i, sequence.slot, i >= total - logits);
        if (first < 0 && row >= 0) {
          first = row;
          firstIndex = batch.length - 1;
        }
      }
      this.rows[index] = { kept, first: kept && first >= 0 ? this.keptRows + first : first, promptRows, index: firstIndex };
    });
    this.lastTokens += batch.length;
  }

  /**
   * Copies the chosen entries' outputs (tokens chosen in the graph, logit rows) out of
   * llama.cpp's buffers before the next decode replaces them.
   */
  private keepOutputs(entries: readonly StepEntry[], chosen: (index: number) => boolean, onDevice: readonly boolean[] | undefined): void {
    let hostRows = false;
    entries.forEach(({ sequence }, index) => {
      if (!chosen(index)) return;
      const row = this.rows[index]!;
      if (row.first < 0) return;
      if (!onDevice?.[index]) {
        hostRows = true;
        return;
      }
      // A row that cannot be read fails its own request when it is committed, not the step.
      try {
        row.sampled = graphSample(this.context, row.index, sequence.sampler.params.logprobs);
      } catch (error) {
        row.failure = error;
      }
    });
    if (!hostRows) return;
    const outputs = this.batch.outputs;
    const size = this.context.vocabSize;
    const needed = (this.keptRows + outputs) * size;
    if (this.keptLogits.length < needed) {
      const grown = new Float32Array(needed);
      grown.set(this.keptLogits.subarray(0, this.keptRows * size));
      this.keptLogits = grown;
    }
    for (let row = 0; row < outputs; row++) this.keptLogits.set(this.context.logits(row, outputs), (this.keptRows + row) * size);
    this.keptRows += outputs;
  }
}
