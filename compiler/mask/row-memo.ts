// A small memo keyed by int arrays, for the per-token step: the masks of recent rows (a JSON
// value alternates among a few row shapes), and which rests of uncertain tokens a row of
// parents accepts. Round-robin eviction; slots are allocated when first used, and nothing
// after that.

const EMPTY = new Int32Array(0);

export class RowMemo<V> {
  private readonly keys: Int32Array[];
  private readonly lengths: Int32Array;
  private readonly hashes: Int32Array;
  private readonly slotValues: (V | undefined)[];
  private next = 0;

  constructor(slots: number, private readonly makeValue: () => V) {
    this.keys = Array.from({ length: slots }, () => EMPTY);
    this.lengths = new Int32Array(slots).fill(-1);
    this.hashes = new Int32Array(slots);
    this.slotValues = new Array<V | undefined>(slots);
  }

  /** The value of a slot returned by `find` or `store`. */
  value(slot: number): V {
    return (this.slotValues[slot] ??= this.makeValue());
  }

  /** The slot holding `key[0..length)`, or -1. */
  find(key: Int32Array, length: number): number {
    const h = hash(key, length);
    for (let s = 0; s < this.keys.length; s++) {
      if (this.lengths[s] !== length || this.hashes[s] !== h) continue;
      const k = this.keys[s]!;
      let same = true;
      for (let i = 0; i < length && same; i++) same = k[i] === key[i];
      if (same) return s;
    }
    return -1;
  }

  /** A slot for `key[0..length)` (evicting the oldest); fill its value. */
  store(key: Int32Array, length: number): number {
    const s = this.next;
    this.next = (s + 1) % this.keys.length;
    if (this.keys[s]!.length < length) this.keys[s] = new Int32Array(length * 2);
    this.keys[s]!.set(key.subarray(0, length));
    this.lengths[s] = length;
    this.hashes[s] = hash(key, length);
    return s;
  }

  clear(): void {
    this.lengths.fill(-1);
  }
}

function hash(key: Int32Array, length: number): number {
  let h = length | 0;
  for (let i = 0; i < length; i++) h = Math.imul(h ^ key[i]!, 0x9e3779b1) ^ (h >>> 15);
  return h;
}
