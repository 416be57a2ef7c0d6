// The KV cache's bookkeeping: which sequence ids (slots) exist, which cells each holds, and
// which cells are kept after their request finished so that a later prompt starting with the
// same tokens computes only the rest (the prefix cache). The only caller of KvOps.
import { KvTree, type KvNode } from './kv-tree.js';

/** The few cache operations the manager needs from llama.cpp (LlamaContext implements them). */
export interface KvOps {
  /**
   * Gives `target` `source`'s positions [from, to): shared cells in one pool, a copy where each
   * sequence has a stream of its own (KvManagerOptions.copiesCells).
   */
  copy(source: number, target: number, from: number, to: number): void;
  /** Drops a sequence's positions [from, to) (to = -1: to its end); cells nobody holds are freed. */
  remove(sequence: number, from: number, to: number): void;
  /** Smallest position a sequence still has cells for (sliding-window layers drop old ones); -1 if none. */
  minPosition(sequence: number): number;
}

/** `primary`'s operations, repeated on `mirror` (a draft's cache that follows the target's); `primary` answers queries. */
export function mirroredKvOps(primary: KvOps, mirror: KvOps | undefined): KvOps {
  if (!mirror) return primary;
  return {
    copy(source, target, from, to) {
      primary.copy(source, target, from, to);
      mirror.copy(source, target, from, to);
    },
    remove(sequence, from, to) {
      primary.remove(sequence, from, to);
      mirror.remove(sequence, from, to);
    },
    minPosition: (sequence) => primary.minPosition(sequence),
  };
}

export interface KvManagerOptions {
  /** KV cells in all (max_total_seq_length). */
  cells: number;
  /** Sequences that may run at once (max_num_sequence). */
  runningSlots: number;
  /** Finished sequences kept only for their cells (prefix_cache_max_num_recycling_seqs; 0: no cache). */
  recyclingSlots: number;
  /**
   * How much of a `matched`-token prefix held by `holder` a new sequence may take. Models with
   * sliding-window layers keep only recent positions, so they can reuse less (sliding-window.ts).
   * Default: all of it.
   */
  reusable?: (matched: number, holder: number) => number;
  /**
   * Each sequence id has a stream of cells of its own (the per-sequence layout): a shared
   * prefix is copied into the taker's stream, so every slot's cells count, not each node once.
   */
  copiesCells?: boolean;
}

export class KvManager {
  private readonly tree = new KvTree();
  private readonly free: number[];
  /** The last node of each slot's chain (the root while it holds no cells). */
  private readonly tails = new Map<number, KvNode>();
  /** Slots kept only for the cache, oldest first. */
  private readonly recycled = new Set<number>();
  private tick = 0;

  constructor(
    private readonly ops: KvOps,
    private readonly options: KvManagerOptions,
  ) {
    const slots = options.runningSlots + options.recyclingSlots;
    this.free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
  }

  /** Sequence ids the llama.cpp context must provide. */
  get slotCount(): number {
    return this.options.runningSlots + this.options.recyclingSlots;
  }

  get usedCells(): number {
    if (!this.options.copiesCells) return this.tree.cells;
    let cells = 0;
    for (const tail of this.tails.values()) cells += tail.end;
    return cells;
  }

  get freeCells(): number {
    return this.options.cells - this.tree.cells;
  }

  /** Cells only the cache holds: free for the taking. */
  get cachedOnlyCells(): number {
    let cells = 0;
    if (this.options.copiesCells) {
      for (const slot of this.recycled) cells += this.tails.get(slot)!.end;
      return cells;
    }
    for (const node of this.tree.nodes()) if (this.onlyCached(node)) cells += node.tokens.length;
    return cells;
  }

  get runningSlotsInUse(): number {
    return this.tails.size - this.recycled.size;
  }

  get recycledSlots(): number {
    return this.recycled.size;
  }

  /** Slots a new sequence could take now. */
  get freeRunningSlots(): number {
    return this.options.runningSlots - this.runningSlotsInUse;
  }

  canAllocate(sequences: number): boolean {
    return this.runningSlotsInUse + sequences <= this.options.runningSlots;
  }

  /**
   * A slot for a new sequence, holding no cells yet: of the free slots, one that `rank` ranks
   * highest (default: all alike), the most recently freed among equals. Check canAllocate first.
   */
  allocate(rank?: (slot: number) => number): number {
    // Recycled slots never exceed their own quota, so a running sequence always finds a free one.
    if (this.free.length === 0 || this.runningSlotsInUse >= this.options.runningSlots) throw new Error('no free sequence slot');
    let index = this.free.length - 1;
    if (rank) {
      let best = rank(this.free[index]!);
      for (let i = index - 1; i >= 0; i--) {
        const score = rank(this.free[i]!);
        if (score > best) [best, index] = [score, i];
      }
    }
    const slot = this.free.splice(index, 1)[0]!;
    this.tails.set(slot, this.tree.root);
    return slot;
  }

  /** Positions [0, length) the slot holds cells for. */
  lengthOf(slot: number): number {
    return this.tails.get(slot)!.end;
  }

  /**
   * Extends a slot's cells with the longest cached continuation of `tokens` (at most `limit`
   * tokens in all), shared from sequences that hold them and that `mayShareWith` accepts.
   * Returns the slot's new length.
   */
  share(slot: number, tokens: ArrayLike<number>, limit: number, mayShareWith: (holder: number) => boolean = () => true): number {
    const tail = this.tails.get(slot)!;
    const found = this.tree.match(tokens, limit, tail, (node) => this.holderOf(node, slot, mayShareWith) >= 0);
    // The match stops at the slot's own tail or in a node an allowed holder has.
    let node = found.node;
    const matched = found.length;
    if (matched <= tail.end) return tail.end;
    const holder = this.holderOf(node, slot, mayShareWith);
    const length = Math.max(tail.end, Math.min(matched, this.options.reusable?.(matched, holder) ?? matched));
    if (length === tail.end) return length;
    // The match may end inside a node: split it there, so the slot holds whole nodes.
    while (node.start >= length) node = node.parent!;
    node = this.tree.splitAt(node, length);
    this.ops.copy(holder, slot, tail.end, length);
    this.tree.hold(slot, node, ++this.tick);
    this.tails.set(slot, node);
    return length;
  }

  /** Records that the slot computed `tokens` right after the positions it held. */
  extend(slot: number, tokens: ArrayLike<number>): void {
    this.tails.set(slot, this.tree.extend(slot, this.tails.get(slot)!, tokens, ++this.tick));
  }

  /** Drops the slot's cells past the tokens it recorded: a rejected draft's. */
  dropUnrecorded(slot: number): void {
    this.ops.remove(slot, this.lengthOf(slot), -1);
  }

  /**
   * Gives a slot back. With `keepCells` and a cache, its cells stay for later prompts (the
   * slot is recycled, the oldest recycled one making way when the quota is reached).
   */
  release(slot: number, keepCells: boolean): void {
    const tail = this.tails.get(slot);
    if (!tail) return;
    if (keepCells && this.options.recyclingSlots > 0 && tail !== this.tree.root) {
      if (this.recycled.size >= this.options.recyclingSlots) this.evictSlot(this.recycled.values().next().value!);
      this.recycled.add(slot);
      return;
    }
    this.dropSlot(slot);
  }

  /** Evicts cached cells, least recently used leaves first, until `cells` are free. */
  makeRoom(cells: number): boolean {
    while (this.freeCells < cells) {
      let oldest: KvNode | undefined;
      for (const node of this.tree.nodes()) {
        if (node.isLeaf && this.onlyCached(node) && (!oldest || node.lastUsed < oldest.lastUsed)) oldest = node;
      }
      if (!oldest) return false;
      this.evictLeaf(oldest);
    }
    return true;
  }

  private onlyCached(node: KvNode): boolean {
    for (const holder of node.holders) if (!this.recycled.has(holder)) return false;
    return true;
  }

  /** A holder of a node other than `except` that `allowed` accepts, preferring running sequences; -1 if none. */
  private holderOf(node: KvNode, except: number, allowed: (holder: number) => boolean): number {
    let chosen = -1;
    for (const holder of node.holders) {
      if (holder === except || !allowed(holder)) continue;
      if (!this.recycled.has(holder)) return holder;
      chosen = holder;
    }
    return chosen;
  }

  private evictLeaf(node: KvNode): void {
    for (const holder of [...node.holders]) {
      this.ops.remove(holder, node.start, -1);
      const tail = this.tree.release(holder, node, node.start);
      if (tail === this.tree.root) {
        this.recycled.delete(holder);
        this.tails.delete(holder);
        this.free.push(holder);
      } else {
        this.tails.set(holder, tail);
      }
    }
  }

  private evictSlot(slot: number): void {
    this.recycled.delete(slot);
    this.dropSlot(slot);
  }

  private dropSlot(slot: number): void {
    const tail = this.tails.get(slot)!;
    this.ops.remove(slot, -1, -1);
    this.tree.release(slot, tail, 0);
    this.tails.delete(slot);
    this.free.push(slot);
  }
}
