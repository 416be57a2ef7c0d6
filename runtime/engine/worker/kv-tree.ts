// A radix tree over token ids whose nodes stand for runs of KV cells. llama.cpp's unified
// cache lets several sequence ids share a cell, so one run of cells serves every sequence
// whose tokens pass through its node: a node's `holders` are those sequence ids (slots).
//
// Invariants: a slot holds every node from the root down to its tail (its cells are the
// positions [0, tail.end)); a child's holders are a subset of its parent's; a node no slot
// holds is gone from the tree, as its cells are from llama.cpp's cache. Two nodes may begin
// with the same token (two choices that sampled the same token computed it twice); lookups
// take the longer match.

export class KvNode {
  readonly children: KvNode[] = [];
  readonly holders = new Set<number>();
  /** Tick of the last request that used this run (LRU eviction). */
  lastUsed = 0;

  constructor(
    /** The tokens of this run, at positions [start, start + tokens.length). */
    public tokens: number[],
    public start: number,
    public parent: KvNode | undefined,
  ) {}

  get end(): number {
    return this.start + this.tokens.length;
  }

  get isLeaf(): boolean {
    return this.children.length === 0;
  }
}

export interface TreeMatch {
  /** The deepest node the match reaches into (the root when nothing matched). */
  node: KvNode;
  /** Matched tokens: positions [0, length) are cached; node.start < length ≤ node.end unless node is the root. */
  length: number;
}

export class KvTree {
  readonly root = new KvNode([], 0, undefined);
  /** Cells held by some slot: the sum of every node's length. */
  cells = 0;

  /**
   * The longest cached prefix of `tokens`, at most `limit` long, on a path through `from`
   * (a node whose tokens match tokens up to from.end; the root by default), through nodes
   * `usable` accepts (a request that may share only with its own choices must find its first
   * choice's prompt, not a longer twin another request left in the cache).
   */
  match(tokens: ArrayLike<number>, limit: number, from: KvNode = this.root, usable: (node: KvNode) => boolean = () => true): TreeMatch {
    let node = from;
    let length = from.end;
    for (;;) {
      if (length >= limit) return { node, length };
      let best: KvNode | undefined;
      let bestLength = 0;
      for (const child of node.children) {
        if (child.tokens[0] !== tokens[length] || !usable(child)) continue;
        const common = commonLength(child.tokens, tokens, length, limit);
        if (common > bestLength) [best, bestLength] = [child, common];
      }
      if (!best) return { node, length };
      length += bestLength;
      node = best;
      if (bestLength < best.tokens.length) return { node, length };
    }
  }

  /**
   * Makes a node end exactly at position `at` on the path through `node` (which must satisfy
   * node.start < at ≤ node.end) and returns it. Splitting changes no cells and no holders.
   */
  splitAt(node: KvNode, at: number): KvNode {
    if (at === node.end) return node;
    const upper = new KvNode(node.tokens.slice(0, at - node.start), node.start, node.parent);
    for (const holder of node.holders) upper.holders.add(holder);
    upper.lastUsed = node.lastUsed;
    const siblings = node.parent!.children;
    siblings[siblings.indexOf(node)] = upper;
    node.tokens = node.tokens.slice(at - node.start);
    node.start = at;
    node.parent = upper;
    upper.children.push(node);
    return upper;
  }

  /** Adds `slot` as a holder of every node from the root down to `tail`. */
  hold(slot: number, tail: KvNode, tick: number): void {
    for (let node: KvNode | undefined = tail; node && node !== this.root; node = node.parent) {
      node.holders.add(slot);
      node.lastUsed = tick;
    }
  }

  /** Records tokens a slot has just computed after its tail; returns the new tail. */
  extend(slot: number, tail: KvNode, tokens: ArrayLike<number>, tick: number): KvNode {
    if (tokens.length === 0) return tail;
    this.cells += tokens.length;
    // A leaf this slot alone holds grows in place; anywhere else the new cells branch off.
    if (tail !== this.root && tail.isLeaf && tail.holders.size === 1) {
      for (let i = 0; i < tokens.length; i++) tail.tokens.push(tokens[i]!);
      tail.lastUsed = tick;
      return tail;
    }
    const node = new KvNode(Array.from(tokens), tail.end, tail);
    node.holders.add(slot);
    node.lastUsed = tick;
    tail.children.push(node);
    return node;
  }

  /**
   * Lets go of a slot's positions from `keep` on (its chain ends at `tail`); nodes nobody
   * holds any more leave the tree. Returns the slot's new tail.
   */
  release(slot: number, tail: KvNode, keep = 0): KvNode {
    let node = tail;
    while (node !== this.root && node.end > keep) {
      if (node.start < keep) this.splitAt(node, keep); // `node` keeps the part from `keep` on
      const parent = node.parent!;
      node.holders.delete(slot);
      if (node.holders.size === 0) this.detach(node);
      node = parent;
    }
    return node;
  }

  /** Removes a node nobody holds (and, by the invariant, nothing below it is held either). */
  private detach(node: KvNode): void {
    const siblings = node.parent!.children;
    siblings.splice(siblings.indexOf(node), 1);
    this.cells -= node.tokens.length;
    node.parent = undefined;
  }

  /** Every node but the root, depth first. */
  *nodes(): Generator<KvNode> {
    const stack = [...this.root.children];
    while (stack.length > 0) {
      const node = stack.pop()!;
      yield node;
      stack.push(...node.children);
    }
  }
}

/** How many of `run`'s tokens equal tokens[offset...], stopping at `limit` in `tokens`. */
export function commonLength(run: readonly number[], tokens: ArrayLike<number>, offset: number, limit: number): number {
  const most = Math.min(run.length, limit - offset);
  let i = 0;
  while (i < most && run[i] === tokens[offset + i]) i++;
  return i;
}
