// small_draft: a second, smaller model with its own llama.cpp context proposes the draft
// tokens, greedily and under the request's grammar, a few sequential decodes per engine step
// (all drafting sequences batched together). Its KV cache follows the target's by catching
// up: each slot remembers the tokens the draft computed for it, and before drafting, the
// draft drops what no longer matches the sequence (rejected drafts, a slot reused by another
// request) and computes what is missing. A prompt the target took from its prefix cache is
// computed here once, when its sequence first drafts.
import { Batch } from '../../../../backend/batch.js';
import { DecodeError, type LlamaContext } from '../../../../backend/context.js';
import { commonLength } from '../../kv-tree.js';
import type { Sequence } from '../../sequence.js';
import { chooseDraftToken, extendDrafts, rollbackDraftGrammar, startModelDraft, type ModelDraft } from './draft-choice.js';
import type { DraftProposer, DraftRequest } from './proposer.js';

export class DraftModelProposer implements DraftProposer {
  private readonly batch: Batch;
  /** The tokens whose cells each slot holds in the draft's cache. */
  private readonly held = new Map<number, number[]>();

  constructor(
    private readonly context: LlamaContext,
    /** Token ids that end generation: a draft stops after one. */
    private readonly isEnd: (token: number) => boolean,
  ) {
    this.batch = new Batch(context.batchSize);
  }

  /**
   * Draft tokens for each request, in order; fewer where the grammar or an end token stops
   * them, none at all when the draft's cache cannot hold this step's work.
   */
  async propose(requests: readonly DraftRequest[]): Promise<number[][]> {
    const drafting = requests.map(({ sequence, count }) => startModelDraft(sequence, count));
    try {
      await this.catchUp(drafting);
      let active = drafting.filter((d) => d.count > 0);
      while (active.length > 0) {
        // Every row is read before the batch is cleared: they belong to the last decode.
        const chosen = active.map((d) => chooseDraftToken(this.context.logits(d.row, this.batch.outputs), d));
        this.batch.clear();
        const next = extendDrafts(active, chosen, this.isEnd, (d) => {
          const token = d.draft.at(-1)!;
          d.row = this.batch.add(token, d.sequence.tokens.length + d.draft.length - 1, d.sequence.slot, true);
          this.held.get(d.sequence.slot)!.push(token);
        });
        if (next.length === 0) break;
        await this.decode();
        active = next;
      }
    } catch (error) {
      if (!(error instanceof DraftCacheFull)) throw error;
      // What the failed decode left is unknown, and the cache is full of slots that may never
      // draft again: start afresh (each drafting slot catches up at its next draft).
      for (const slot of [...this.held.keys()]) this.forget(slot);
      return requests.map(() => []);
    } finally {
      for (const d of drafting) rollbackDraftGrammar(d);
    }
    return drafting.map((d) => d.draft);
  }

  /** Drops a slot's cells from the draft's cache. */
  forget(slot: number): void {
    this.context.remove(slot, -1, -1);
    this.held.delete(slot);
  }

  dispose(): void {
    this.batch.dispose();
  }

  /** Brings each slot's cells to the sequence's tokens and leaves the last one's logits in the batch's rows. */
  private async catchUp(drafting: ModelDraft[]): Promise<void> {
    const queue = drafting.filter((d) => d.count > 0);
    for (const d of queue) {
      const slot = d.sequence.slot;
      const tokens = d.sequence.tokens;
      const held = this.held.get(slot) ?? [];
      // The last token is always computed again: its logits start the draft.
      const keep = commonLength(held, tokens, 0, tokens.length - 1);
      if (keep < held.length) this.context.remove(slot, keep, -1);
      held.length = keep;
      this.held.set(slot, held);
    }
    // What is missing before each last token goes in as many decodes as it takes; the last
    // tokens all go in the final one, whose rows are the ones the drafts start from (a row of
    // an earlier decode is gone once the next one runs).
    const room = this.batch.capacity - queue.length;
    const next = queue.map((d) => this.held.get(d.sequence.slot)!.length);
    for (;;) {
      this.batch.clear();
      queue.forEach((d, i) => {
        const tokens = d.sequence.tokens;
        const held = this.held.get(d.sequence.slot)!;
        for (; next[i]! < tokens.length - 1 && this.batch.length < room; next[i]!++) {
          this.batch.add(tokens[next[i]!]!, next[i]!, d.sequence.slot, false);
          held.push(tokens[next[i]!]!);
        }
      });
      if (queue.every((d, i) => next[i] === d.sequence.tokens.length - 1)) break;
      await this.decode();
    }
    for (const d of queue) {
      const tokens = d.sequence.tokens;
      d.row = this.batch.add(tokens.at(-1)!, tokens.length - 1, d.sequence.slot, true);
      this.held.get(d.sequence.slot)!.push(tokens.at(-1)!);
    }
    await this.decode();
  }

  /** One decode; when the draft's cache is full, the cells of slots not drafting now make room. */
  private async decode(): Promise<void> {
    try {
      await this.context.decode(this.batch);
    } catch (error) {
      if (!(error instanceof DecodeError && error.code === 1)) throw error;
      throw new DraftCacheFull();
    }
  }
}

/** The draft's KV cache could not hold this step's drafting: no drafts this step. */
export class DraftCacheFull extends Error {
  override name = 'DraftCacheFull';
}
