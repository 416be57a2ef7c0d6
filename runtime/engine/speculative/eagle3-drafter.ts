// eagle: an EAGLE-3 draft (llama.cpp's `eagle3` GGUF) proposes the drafts. Its one decoder
// layer reads, at draft-cache position P, the pair (token[P + 1], g[P]), where g[P] fuses the
// target's hidden states at P (eagle3-features.ts), and predicts token[P + 2]; its pre-norm
// output at P stands in for g[P + 1] when it drafts further.
//
// Following the target: after every target step (prefill chunks included), once the step's
// tokens are sampled and verified, observe() encodes the positions the target kept (rejected
// drafts' rows are skipped) and writes their pairs into the draft's cache, first removing the
// slot's cells from the step's first position on (what drafting left there). Every kept
// position's next token is known by then (the prompt's, or the one just sampled), so no pair
// is left pending; llama.cpp's drafter writes before sampling and defers each sequence's last
// pair to the next call instead. The last pair of each sequence asks for logits (in a decode of
// its own, see observe()): they are the first draft's, read by the next propose(), before the
// draft context decodes anything else; its pre-norm state is the g the second draft reads.
//
// Prefix cache: the engine mirrors its KV operations (copy and remove, kv-manager.ts) on the
// draft's cache (mirror()), so a sequence that shares a cached prefix shares its draft cells
// too. The pair at a shared prefix's last position holds the token that followed it in the
// sequence it was computed for, which may not be this one's: that cell is then slightly off.
// Only acceptance can suffer from that (or from any other mismatch): every draft is verified.
import { Batch } from '../../backend/batch.js';
import { DecodeError, type LlamaContext } from '../../backend/context.js';
import type { Eagle3Features } from '../../backend/eagle3-features.js';
import type { KvOps } from '../kv-manager.js';
import type { StepEntry } from '../scheduler.js';
import type { Sequence } from '../sequence.js';
import { advanceDraftGrammar, chooseDraftToken, rollbackDraftGrammar, type GrammarDraft } from './draft-choice.js';
import type { DraftProposer, DraftRequest } from './proposer.js';

interface Seed {
  /** The sequence's token count when its last pair was written: valid while that holds. */
  length: number;
  /** Output row of its last pair in the draft's last decode. */
  row: number;
  /** observe() call that wrote it: valid only until the draft context decodes again. */
  epoch: number;
}

interface Drafting extends GrammarDraft {
  count: number;
  draft: number[];
  row: number;
}

export class Eagle3Drafter implements DraftProposer {
  private readonly batch: Batch;
  private readonly seeds = new WeakMap<Sequence, Seed>();
  private epoch = 0;
  /** Scratch: target batch rows to encode, and where each entry's first one is. */
  private rows: number[] = [];

  constructor(
    private readonly context: LlamaContext,
    private readonly features: Eagle3Features,
    /** Token ids that end generation: a draft stops after one. */
    private readonly isEnd: (token: number) => boolean,
  ) {
    this.batch = new Batch(context.batchSize, features.width);
  }

  /** The draft's KV cache follows the target's through the engine's own cache operations. */
  get mirror(): KvOps {
    return {
      copy: (source, target, from, to) => this.context.copy(source, target, from, to),
      remove: (sequence, from, to) => void this.context.remove(sequence, from, to),
      minPosition: (sequence) => this.context.minPosition(sequence),
    };
  }

  /**
   * Writes the pairs of the positions the target kept in its last step. `accepted[i]`: draft
   * tokens of entry i the target accepted.
   */
  async observe(entries: readonly StepEntry[], accepted: readonly number[]): Promise<void> {
    const rows = this.rows;
    rows.length = 0;
    const kept: { entry: StepEntry; first: number; count: number }[] = [];
    let offset = 0;
    entries.forEach((entry, i) => {
      const total = entry.count + entry.draft.length;
      const { sequence } = entry;
      if (sequence.slot >= 0 && !sequence.request.failed && !sequence.request.cancelled) {
        // A pair needs the token after its position: known for every kept one, except after a
        // sequence's very last token.
        const count = Math.min(entry.count + (accepted[i] ?? 0), sequence.tokens.length - 1 - entry.start);
        if (count > 0) {
          kept.push({ entry, first: rows.length, count });
          for (let k = 0; k < count; k++) rows.push(offset + k);
        }
      }
      offset += total;
    });
    if (rows.length === 0) return;
    this.features.encode(rows);
    const width = this.features.width;
    // llama.cpp's eagle3 decoder graph computes logits for every token of a batch and returns
    // the first ones (it selects no output rows): the last pair of each sequence, whose logits
    // start the next draft, goes in a second decode where every token asks for them.
    const lasts: { sequence: Sequence; position: number; fused: number }[] = [];
    const batch = this.batch;
    batch.clear();
    for (const { entry, first, count } of kept) {
      const { sequence, start } = entry;
      this.context.remove(sequence.slot, start, -1);
      for (let k = 0; k < count; k++) {
        const position = start + k;
        if (k === count - 1 && position === sequence.tokens.length - 2 && sequence.finish === undefined) {
          lasts.push({ sequence, position, fused: first + k });
          continue;
        }
        batch.add(sequence.tokens[position + 1]!, position, sequence.slot, false);
        batch.embeddings.set(this.features.fused.subarray((first + k) * width, (first + k + 1) * width), (batch.length - 1) * width);
      }
    }
    this.epoch++;
    if (batch.length > 0 && !(await this.decode())) return;
    if (lasts.length === 0) return;
    batch.clear();
    const seedRows = lasts.map(({ sequence, position, fused }) => {
      const row = batch.add(sequence.tokens[position + 1]!, position, sequence.slot, true);
      batch.embeddings.set(this.features.fused.subarray(fused * width, (fused + 1) * width), (batch.length - 1) * width);
      return row;
    });
    if (!(await this.decode())) return;
    lasts.forEach(({ sequence }, i) => this.seeds.set(sequence, { length: sequence.tokens.length, row: seedRows[i]!, epoch: this.epoch }));
  }

  async propose(requests: readonly DraftRequest[]): Promise<number[][]> {
    const drafts = requests.map((): number[] => []);
    let active: Drafting[] = [];
    requests.forEach(({ sequence, count }) => {
      const seed = this.seeds.get(sequence);
      if (count > 0 && seed?.epoch === this.epoch && seed.length === sequence.tokens.length) {
        active.push({ sequence, count, draft: [], row: seed.row, accepted: 0, mask: undefined });
      }
    });
    if (active.length === 0) return drafts;
    const all = active;
    const width = this.features.width;
    try {
      for (;;) {
        // Every row is read before the batch is cleared: they belong to the last decode.
        const chosen = active.map((d) => chooseDraftToken(this.context.logits(d.row, this.batch.outputs), d));
        const states = active.map((d) => Float32Array.from(this.features.draftState(d.row)));
        this.batch.clear();
        const next: Drafting[] = [];
        active.forEach((d, i) => {
          const token = chosen[i]!;
          d.draft.push(token);
          if (d.draft.length >= d.count || this.isEnd(token) || !advanceDraftGrammar(d, token)) return;
          // Draft token k (from 1) is read at position n - 2 + k, with the state that predicted it.
          d.row = this.batch.add(token, d.sequence.tokens.length - 2 + d.draft.length, d.sequence.slot, true);
          this.batch.embeddings.set(states[i]!, (this.batch.length - 1) * width);
          next.push(d);
        });
        if (next.length === 0) break;
        this.epoch++;
        if (!(await this.decode())) break;
        active = next;
      }
    } finally {
      for (const d of all) rollbackDraftGrammar(d);
    }
    this.epoch++;
    requests.forEach(({ sequence }, i) => {
      const d = all.find((x) => x.sequence === sequence);
      if (d) drafts[i] = d.draft;
    });
    return drafts;
  }

  dispose(): void {
    this.batch.dispose();
    this.features.dispose();
  }

  /** One draft decode; false when the draft's cache is full (its cells are then all dropped: slots catch up as they are computed again). */
  private async decode(): Promise<boolean> {
    try {
      await this.context.decode(this.batch);
      return true;
    } catch (error) {
      if (!(error instanceof DecodeError && error.code === 1)) throw error;
      this.context.clear();
      return false;
    }
  }
}
