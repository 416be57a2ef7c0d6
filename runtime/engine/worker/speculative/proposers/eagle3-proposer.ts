// eagle: an EAGLE-3 draft (llama.cpp's `eagle3` GGUF) proposes the drafts. Its one decoder
// layer reads, at draft-cache position P, the pair (token[P + 1], g[P]), where g[P] fuses the
// target's hidden states at P (eagle3-features.ts), and predicts token[P + 2]; its pre-norm
// output at P stands in for g[P + 1] when it drafts further.
//
// Following the target: after every target step (prefill chunks included), once the step's
// tokens are sampled and verified, observe() copies the target's features at the positions it
// kept (rejected drafts' rows are skipped) into the slot's pending pairs; every kept
// position's next token is known by then (the prompt's, or the one just sampled). Pairs are
// written into the draft's cache lazily: when a sequence drafts (its pending pairs, then the
// last one, whose logits give the first draft token), when a slot holds more than FLUSH_AT of
// them (all but the last), and when the engine shares a slot's cells (copy, below). So a step
// that drafts nothing costs a copy of the features, not a llama.cpp call. llama.cpp's drafter
// instead encodes and decodes every target batch at once, before sampling, deferring each
// sequence's last pair to its next call.
//
// Prefix cache: the engine's KV operations (copy and remove, kv-manager.ts) are repeated on the
// draft's cache (mirror), pending pairs included: a copy first writes the source's pending
// pairs in the copied range, a remove drops pending pairs in its range. So a sequence that
// shares a cached prefix shares its draft cells too. The pair at a shared prefix's last
// position holds the token that followed it in the sequence it was computed for, which may not
// be this one's: that cell is then slightly off. Only acceptance can suffer from that (or from
// any other mismatch): every draft is verified.
import { Batch } from '../../../../backend/batch.js';
import { DecodeError, type LlamaContext } from '../../../../backend/context.js';
import type { Eagle3Features } from '../../../../backend/eagle3-features.js';
import type { KvOps } from '../../kv-manager.js';
import type { StepEntry } from '../../scheduler.js';
import type { Sequence } from '../../sequence.js';
import { chooseDraftToken, extendDrafts, rollbackDraftGrammar, startModelDraft, type ModelDraft } from './draft-choice.js';
import type { DraftProposer, DraftRequest } from './proposer.js';

/** A slot's pairs not yet in the draft's cache, in position order. */
interface Pending {
  positions: number[];
  tokens: number[];
  /** Target features, one row per pair. */
  features: Float32Array;
}

/** One pair to write: the slot's pending pair at `index`. */
interface PairRef {
  slot: number;
  pending: Pending;
  index: number;
}

/** Pending pairs a slot may hold before all but its last are written anyway. */
const FLUSH_AT = 16;
/** Feature rows a slot's buffer keeps once a large step's pairs are written. */
const SHRINK_ROWS = 2 * FLUSH_AT;

export class Eagle3Proposer implements DraftProposer {
  private readonly batch: Batch;
  private readonly pending = new Map<number, Pending>();
  /** Scratch: features of the pairs being written. */
  private scratch = new Float32Array(0);

  constructor(
    private readonly context: LlamaContext,
    private readonly features: Eagle3Features,
    /** Token ids that end generation: a draft stops after one. */
    private readonly isEnd: (token: number) => boolean,
  ) {
    this.batch = new Batch(context.batchSize, features.width);
  }

  /** The draft's KV cache (and pending pairs) follow the target's through the engine's own cache operations. */
  get mirror(): KvOps {
    return {
      copy: (source, target, from, to) => {
        const pending = this.pending.get(source);
        if (pending) {
          const inRange = (position: number) => position >= from && (to < 0 || position < to);
          const pairs = pending.positions.flatMap((position, index) => (inRange(position) ? [{ slot: source, pending, index }] : []));
          if (pairs.length > 0) {
            this.writeNow(pairs);
            this.forget(pending, (_, index) => pairs.some((pair) => pair.index === index));
          }
        }
        this.context.copy(source, target, from, to);
      },
      remove: (sequence, from, to) => {
        this.context.remove(sequence, from, to);
        if (from < 0 && to < 0) this.pending.delete(sequence);
        const pending = this.pending.get(sequence);
        if (pending) this.forget(pending, (position) => (from < 0 || position >= from) && (to < 0 || position < to));
      },
      minPosition: (sequence) => this.context.minPosition(sequence),
    };
  }

  /**
   * Takes the target's features at the positions it kept in its last step. `accepted[i]`: draft
   * tokens of entry i the target accepted.
   */
  async observe(entries: readonly StepEntry[], accepted: readonly number[]): Promise<void> {
    const width = this.features.featureWidth;
    const full: PairRef[] = [];
    let offset = 0;
    entries.forEach((entry, i) => {
      const total = entry.count + entry.draft.length;
      const { sequence, start } = entry;
      if (sequence.slot >= 0 && !sequence.request.failed && !sequence.request.cancelled) {
        // A pair needs the token after its position: known for every kept one, except after a
        // sequence's very last token.
        const count = Math.min(entry.count + (accepted[i] ?? 0), sequence.tokens.length - 1 - start);
        if (count > 0) {
          const slot = sequence.slot;
          // What drafting (or an older sequence in this slot) left from here on goes.
          this.context.remove(slot, start, -1);
          let pending = this.pending.get(slot);
          if (!pending) this.pending.set(slot, (pending = { positions: [], tokens: [], features: new Float32Array(0) }));
          this.forget(pending, (position) => position >= start);
          const at = pending.positions.length;
          if (pending.features.length < (at + count) * width) {
            const grown = new Float32Array(Math.max(2 * pending.features.length, (at + count) * width));
            grown.set(pending.features.subarray(0, at * width));
            pending.features = grown;
          }
          const rows = Array.from({ length: count }, (_, k) => offset + k);
          this.features.gather(rows, pending.features, at);
          for (let k = 0; k < count; k++) {
            pending.positions.push(start + k);
            pending.tokens.push(sequence.tokens[start + k + 1]!);
          }
          if (pending.positions.length > FLUSH_AT) {
            for (let index = 0; index < pending.positions.length - 1; index++) full.push({ slot, pending, index });
          }
        }
      }
      offset += total;
    });
    if (full.length === 0) return;
    // All but each slot's last pair: the last one's logits are wanted when it drafts.
    if (await this.write(full, false)) for (const pending of new Set(full.map((pair) => pair.pending))) this.forget(pending, (_, index) => index < pending.positions.length - 1);
  }

  async propose(requests: readonly DraftRequest[]): Promise<number[][]> {
    const drafts = requests.map((): number[] => []);
    const starting: ModelDraft[] = [];
    const early: PairRef[] = [];
    const lasts: PairRef[] = [];
    for (const { sequence, count } of requests) {
      const pending = sequence.slot >= 0 ? this.pending.get(sequence.slot) : undefined;
      const last = pending ? pending.positions.length - 1 : -1;
      // The pair at n − 2, (token[n − 1], g[n − 2]), is the one whose logits give the first draft.
      if (count <= 0 || !pending || last < 0 || pending.positions[last] !== sequence.tokens.length - 2 || pending.tokens[last] !== sequence.tokens.at(-1)) continue;
      for (let index = 0; index < last; index++) early.push({ slot: sequence.slot, pending, index });
      lasts.push({ slot: sequence.slot, pending, index: last });
      starting.push(startModelDraft(sequence, count));
    }
    if (starting.length === 0) return drafts;
    if (early.length > 0 && !(await this.write(early, false))) return drafts;
    const rows = await this.write(lasts, true);
    for (const { pending } of lasts) this.forget(pending, () => true);
    if (!rows) return drafts;
    starting.forEach((d, i) => (d.row = rows[i]!));
    const width = this.features.width;
    let active = starting;
    try {
      for (;;) {
        // Every row is read before the batch is cleared: they belong to the last decode.
        const chosen = active.map((d) => chooseDraftToken(this.context.logits(d.row, this.batch.outputs), d));
        const states = active.map((d) => Float32Array.from(this.features.draftState(d.row)));
        this.batch.clear();
        const next = extendDrafts(active, chosen, this.isEnd, (d, i) => {
          // Draft token k (from 1) is read at position n − 2 + k, with the state that predicted it.
          d.row = this.batch.add(d.draft.at(-1)!, d.sequence.tokens.length - 2 + d.draft.length, d.sequence.slot, true);
          this.batch.embeddings.set(states[i]!, (this.batch.length - 1) * width);
        });
        if (next.length === 0 || !(await this.decode())) break;
        active = next;
      }
    } finally {
      for (const d of starting) rollbackDraftGrammar(d);
    }
    const bySequence = new Map(starting.map((d) => [d.sequence, d.draft]));
    return requests.map(({ sequence }) => bySequence.get(sequence) ?? []);
  }

  dispose(): void {
    this.batch.dispose();
    this.features.dispose();
  }

  /**
   * Encodes the pairs' features and decodes the pairs. With `outputs`, every pair asks for
   * logits (llama.cpp's eagle3 decoder graph selects no output rows: it returns a batch's first
   * tokens' logits, so a decode is safe to read only when all its tokens ask) and the output
   * rows come back; without, the pairs only fill the cache. Undefined when the draft's cache
   * is full (then emptied: slots go on from what they compute next).
   */
  private async write(pairs: readonly PairRef[], outputs: boolean, now = false): Promise<number[] | undefined> {
    const featureWidth = this.features.featureWidth;
    const width = this.features.width;
    const rows: number[] = [];
    for (let from = 0; from < pairs.length; from += this.batch.capacity) {
      const chunk = pairs.slice(from, from + this.batch.capacity);
      if (this.scratch.length < chunk.length * featureWidth) this.scratch = new Float32Array(chunk.length * featureWidth);
      chunk.forEach(({ pending, index }, i) => this.scratch.set(pending.features.subarray(index * featureWidth, (index + 1) * featureWidth), i * featureWidth));
      this.features.encode(this.scratch, chunk.length);
      this.batch.clear();
      chunk.forEach(({ slot, pending, index }, i) => {
        rows.push(this.batch.add(pending.tokens[index]!, pending.positions[index]!, slot, outputs));
        this.batch.embeddings.set(this.features.fused.subarray(i * width, (i + 1) * width), i * width);
      });
      if (!(now ? this.decodeNow() : await this.decode())) return undefined;
    }
    return rows;
  }

  /** write() without outputs, on this thread: for the engine's cache operations, which cannot wait. */
  private writeNow(pairs: readonly PairRef[]): void {
    // With `now`, write() never awaits: it has finished when it returns. A failure here would
    // only cost the draft its context, so the draft's cache is emptied rather than the step failed.
    this.write(pairs, false, true).catch(() => this.context.clear());
  }

  /** Drops a slot's pending pairs that `which` (position, index) picks. */
  private forget(pending: Pending, which: (position: number, index: number) => boolean): void {
    const width = this.features.featureWidth;
    let kept = 0;
    for (let index = 0; index < pending.positions.length; index++) {
      if (which(pending.positions[index]!, index)) continue;
      if (kept !== index) {
        pending.positions[kept] = pending.positions[index]!;
        pending.tokens[kept] = pending.tokens[index]!;
        pending.features.copyWithin(kept * width, index * width, (index + 1) * width);
      }
      kept++;
    }
    pending.positions.length = kept;
    pending.tokens.length = kept;
    // A prefill chunk grows the buffer to its length; what stays pending afterwards is short.
    if (pending.features.length > 4 * SHRINK_ROWS * width && kept < SHRINK_ROWS) pending.features = pending.features.slice(0, SHRINK_ROWS * width);
  }

  /** One draft decode; false when the draft's cache is full (its cells are then all dropped). */
  private async decode(): Promise<boolean> {
    try {
      await this.context.decode(this.batch);
      return true;
    } catch (error) {
      return this.cacheFull(error);
    }
  }

  private decodeNow(): boolean {
    try {
      this.context.decodeNow(this.batch);
      return true;
    } catch (error) {
      return this.cacheFull(error);
    }
  }

  private cacheFull(error: unknown): false {
    if (!(error instanceof DecodeError && error.code === 1)) throw error;
    this.context.clear();
    return false;
  }
}
