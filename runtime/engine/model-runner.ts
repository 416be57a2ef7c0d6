// Runs one planned step on the model: the batch in, the requested logit rows out.
import { Batch } from '../backend/batch.js';
import type { LlamaContext } from '../backend/context.js';
import type { StepEntry } from './scheduler.js';

export class ModelRunner {
  private readonly batch: Batch;
  /** First logit row of each entry of the last step (-1 for entries that asked for none). */
  private firstRows: number[] = [];
  /** Whether the last step returned hidden states. */
  private hiddenStates = false;

  constructor(
    private readonly context: LlamaContext,
    /**
     * Ask for the last hidden state at every logit row (Medusa heads read them). Only steps
     * whose tokens all want logits get them (plain decode and verification steps): llama.cpp
     * would compute logits for every prompt token of a step that prefills.
     */
    private readonly wantHiddenStates = false,
  ) {
    this.batch = new Batch(context.batchSize);
  }

  get capacity(): number {
    return this.batch.capacity;
  }

  /** Tokens in the last step's batch. */
  get batchTokens(): number {
    return this.batch.length;
  }

  /** Decodes the entries; `whileDecoding` runs on this thread while llama.cpp works. */
  async run(entries: readonly StepEntry[], whileDecoding?: () => void): Promise<void> {
    const batch = this.batch;
    batch.clear();
    this.firstRows = [];
    for (const { sequence, start, count, logits, draft } of entries) {
      let first = -1;
      const total = count + draft.length;
      for (let i = 0; i < total; i++) {
        const token = i < count ? sequence.tokens[start + i]! : draft[i - count]!;
        const row = batch.add(token, start + i, sequence.slot, i >= total - logits);
        if (first < 0 && row >= 0) first = row;
      }
      this.firstRows.push(first);
    }
    this.hiddenStates = this.wantHiddenStates && batch.outputs === batch.length;
    if (this.wantHiddenStates) this.context.setHiddenStates(this.hiddenStates);
    if (!whileDecoding) {
      // Nothing to overlap: decode on this thread (no hop to a libuv thread and back), then
      // yield one turn of the event loop so the worker still takes its messages (submit,
      // cancel, stats) between steps.
      this.context.decodeNow(batch);
      await new Promise((resolve) => setImmediate(resolve));
      return;
    }
    const decoding = this.context.decode(batch);
    whileDecoding();
    await decoding;
  }

  /** Logits for the `k`-th requested row of entry `entry` of the last step (a view, valid until the next step). */
  logits(entry: number, k = 0): Float32Array {
    const first = this.firstRows[entry]!;
    if (first < 0) throw new Error(`step entry ${entry} asked for no logits`);
    return this.context.logits(first + k, this.batch.outputs);
  }

  /** The hidden state at the `k`-th requested row of entry `entry`, or undefined when the last step computed none. */
  hiddenState(entry: number, k = 0): Float32Array | undefined {
    const first = this.firstRows[entry]!;
    if (!this.hiddenStates || first < 0) return undefined;
    return this.context.hiddenState(first + k, this.batch.outputs);
  }

  dispose(): void {
    this.batch.dispose();
  }
}
