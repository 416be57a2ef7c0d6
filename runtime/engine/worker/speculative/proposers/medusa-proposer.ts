// medusa: K heads on the target's last hidden state propose the K tokens after the one the
// target samples from it (head k: the token k + 2 positions on). The engine hands over, after
// each step, the hidden state from which each sequence's last token was sampled; before the
// next step, the heads run once for every drafting sequence (one ggml graph, on the device)
// and each head's argmax makes one chain of drafts. A chain, not a tree: the verification
// core verifies one draft per position and llama.cpp's batch cannot share a position between
// branches without a sequence id per branch (see README.md). A sequence whose last step
// prefilled a prompt beside it has no hidden state (see model-runner.ts) and does not draft
// for that one step.
import type { MedusaGraph } from '../../../../backend/medusa-graph.js';
import type { Sequence } from '../../sequence.js';
import { admissiblePrefix } from '../grammar-drafts.js';
import type { DraftProposer, DraftRequest } from './proposer.js';

interface Kept {
  /** The sequence's token count when it was kept: it is the current one while that holds. */
  length: number;
  state: Float32Array;
}

export class MedusaProposer implements DraftProposer {
  readonly wantsHiddenStates = true;
  private readonly kept = new WeakMap<Sequence, Kept>();
  private packed = new Float32Array(0);

  constructor(
    private readonly graph: MedusaGraph,
    /** Token ids that end generation: a draft stops after one. */
    private readonly isEnd: (token: number) => boolean,
    /** CPU threads the heads may use now (the target's). */
    private readonly threads: () => number,
  ) {}

  get maxDraft(): number {
    return this.graph.headCount;
  }

  keepHiddenState(sequence: Sequence, hidden: Float32Array): void {
    let kept = this.kept.get(sequence);
    if (!kept) this.kept.set(sequence, (kept = { length: 0, state: new Float32Array(hidden.length) }));
    kept.state.set(hidden);
    kept.length = sequence.tokens.length;
  }

  async propose(requests: readonly DraftRequest[]): Promise<number[][]> {
    const drafts = requests.map((): number[] => []);
    const ready: number[] = [];
    let heads = 0;
    requests.forEach(({ sequence, count }, i) => {
      if (count > 0 && this.kept.get(sequence)?.length === sequence.tokens.length) {
        ready.push(i);
        heads = Math.max(heads, Math.min(count, this.graph.headCount));
      }
    });
    if (ready.length === 0) return drafts;
    const width = this.graph.weights.embedding;
    if (this.packed.length < ready.length * width) this.packed = new Float32Array(ready.length * width);
    ready.forEach((i, column) => this.packed.set(this.kept.get(requests[i]!.sequence)!.state, column * width));
    const ids = await this.graph.argmax(this.packed, ready.length, heads, this.threads());
    ready.forEach((i, column) => {
      const { sequence, count } = requests[i]!;
      const draft: number[] = [];
      for (let k = 0; k < Math.min(count, heads); k++) {
        const token = ids[k * ready.length + column]!;
        draft.push(token);
        if (this.isEnd(token)) break;
      }
      const matcher = sequence.grammar?.matcher;
      drafts[i] = matcher && !matcher.isTerminated() ? admissiblePrefix(matcher, draft) : matcher ? [] : draft;
    });
    return drafts;
  }
}
