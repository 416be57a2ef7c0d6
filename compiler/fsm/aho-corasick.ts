// Aho-Corasick automaton for TagDispatch: free text until a trigger occurs, then the
// trigger's rule. Unlike the reference engine, matches are found through failure links too
// (the output function), so a pattern ending inside a longer pattern's branch is still seen.
// When several triggers end at the same byte, the longest one dispatches. An exclude that
// ends anywhere deletes the edge, so excluded text can never be produced. Free text is
// well-formed UTF-8.
import { GrammarError } from '../errors.js';
import { EDGE_BYTE, EDGE_RULE } from './edges.js';
import type { RuleFsm } from './rule-fsm.js';
import { UTF8_BOUNDARY, UTF8_INVALID, utf8Step } from '../utf8-automaton.js';

export interface DispatchSpec {
  triggers: { bytes: Uint8Array; rule: number }[];
  excludes: Uint8Array[];
  loop: boolean;
}

interface Trie {
  next: Int32Array[]; // goto function, -1 = none (later the full delta table)
  child: Int32Array[]; // pure trie children (goto only), kept for prefix triggers
  depth: number[];
  trigger: number[]; // trigger index ending exactly here, -1 = none
  exclude: boolean[];
}

function buildTrie(patterns: Uint8Array[]): { trie: Trie; ends: number[] } {
  const trie: Trie = { next: [], child: [], depth: [], trigger: [], exclude: [] };
  const node = (depth: number): number => {
    trie.next.push(new Int32Array(256).fill(-1));
    trie.depth.push(depth);
    trie.trigger.push(-1);
    trie.exclude.push(false);
    return trie.next.length - 1;
  };
  node(0);
  const ends: number[] = [];
  for (const p of patterns) {
    let s = 0;
    for (const b of p) {
      if (trie.next[s]![b]! === -1) trie.next[s]![b] = node(trie.depth[s]! + 1);
      s = trie.next[s]![b]!;
    }
    ends.push(s);
  }
  trie.child = trie.next.map((row) => row.slice());
  return { trie, ends };
}

/** Adds the dispatch automaton to `fsm`, starting at its state 0. */
export function buildDispatch(fsm: RuleFsm, spec: DispatchSpec): void {
  for (const t of spec.triggers) {
    if (t.bytes.length === 0) throw new GrammarError('a dispatch trigger must not be empty');
    for (const ex of spec.excludes) {
      if (ex.length === 0) throw new GrammarError('a dispatch exclude must not be empty');
      if (containsBytes(t.bytes, ex)) {
        throw new GrammarError(`the trigger "${decode(t.bytes)}" contains the excluded string "${decode(ex)}", so it can never fire`);
      }
    }
  }
  const { trie, ends } = buildTrie([...spec.triggers.map((t) => t.bytes), ...spec.excludes]);
  spec.triggers.forEach((_, i) => {
    const end = ends[i]!;
    const prev = trie.trigger[end]!;
    // Duplicate triggers: the first one wins, like the first matching rule of a choice.
    if (prev === -1) trie.trigger[end] = i;
  });
  for (let i = spec.triggers.length; i < ends.length; i++) trie.exclude[ends[i]!] = true;

  // Breadth-first failure links; the output function follows them, so a node "hits" a
  // trigger when it or any proper suffix node ends one (the longest such suffix wins).
  const n = trie.next.length;
  const fail = new Int32Array(n);
  const hit = trie.trigger.slice();
  const excluded = trie.exclude.slice();
  const queue: number[] = [];
  for (let b = 0; b < 256; b++) {
    const c = trie.next[0]![b]!;
    if (c === -1) trie.next[0]![b] = 0;
    else {
      fail[c] = 0;
      queue.push(c);
    }
  }
  for (let qi = 0; qi < queue.length; qi++) {
    const s = queue[qi]!;
    if (hit[s] === -1) hit[s] = hit[fail[s]!]!;
    if (excluded[fail[s]!]) excluded[s] = true;
    for (let b = 0; b < 256; b++) {
      const c = trie.next[s]![b]!;
      if (c === -1) trie.next[s]![b] = trie.next[fail[s]!]![b]!;
      else {
        fail[c] = trie.next[fail[s]!]![b]!;
        queue.push(c);
      }
    }
  }

  // FSM states are pairs of an AC node and a UTF-8 state (utf8-automaton.ts), reached from
  // (root, boundary), which is state 0: free text is whole characters, so a byte that cannot
  // continue well-formed UTF-8 has no edge, and the text ends only between characters.
  // Triggers and excludes are text themselves, so they complete between characters too.
  // Plus one final state after a non-looping dispatch.
  const done = spec.loop ? 0 : fsm.newState();
  fsm.finals[done] = true;
  const ids = new Map<number, number>([[0, 0]]);
  const pairs: number[] = [0];
  const stateOf = (node: number, u: number): number => {
    const key = node * 8 + u;
    let id = ids.get(key);
    if (id === undefined) {
      id = fsm.newState();
      ids.set(key, id);
      pairs.push(key);
    }
    return id;
  };
  for (let i = 0; i < pairs.length; i++) {
    const s = pairs[i]! >> 3;
    const u = pairs[i]! & 7;
    const from = ids.get(pairs[i]!)!;
    const dispatching = hit[s] !== -1;
    // Partial triggers at the end count as free text; a completed trigger must dispatch.
    fsm.finals[from] = !dispatching && u === UTF8_BOUNDARY;
    if (dispatching) fsm.edge(from, EDGE_RULE, done, 0, 0, spec.triggers[hit[s]!]!.rule);
    const row = dispatching ? trie.child[s]! : trie.next[s]!;
    const targets = new Int32Array(256).fill(-1);
    for (let b = 0; b < 256; b++) {
      const t = row[b]!;
      const next = utf8Step(u, b);
      if (t !== -1 && !excluded[t] && next !== UTF8_INVALID) targets[b] = stateOf(t, next);
    }
    let b = 0;
    while (b < 256) {
      const t = targets[b]!;
      let e = b;
      while (e + 1 < 256 && targets[e + 1] === t) e++;
      if (t !== -1) fsm.edge(from, EDGE_BYTE, t, b, e);
      b = e + 1;
    }
  }
}

function containsBytes(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
