// A model's vocabulary as the mask compiler needs it: each token's bytes, the tokens sorted by
// bytes with prefix data (so masks are computed with a walk that shares prefixes and skips a
// dead token's whole prefix subtree), and the stop and special sets.
//
//   const info = TokenizerInfo.fromTokenizerJSON(parsedTokenizerJson);
//   const info = TokenizerInfo.fromTokenBytes({ tokens, special: [], stop: [eos], logitsWidth });
//   const info = await tokenizerInfoFromGGUF('model.gguf'); // from files: tokenizer-files.ts (Node only)
//   info.vocabSize; // mask width in tokens
//
// A token is normal (matched by its bytes), a stop token (allowed only where the grammar can
// end), or special (never matched by bytes: it decodes to nothing, or the caller said so).
// Ids from the tokenizer's size up to the logits width are padding and never allowed.
import { GrammarError } from '../errors.js';
import { Sha256 } from '../sha256.js';
import { sortByBytes } from './byte-sort.js';
import type { TokenBytesInput } from './token-bytes-input.js';
import { tokenBytesFromTokenizerJson } from './tokenizer-json.js';
import { UTF8_BOUNDARY, UTF8_INVALID, utf8Step } from '../utf8-automaton.js';

export type { TokenBytesInput } from './token-bytes-input.js';

export const TOKEN_NORMAL = 0;
export const TOKEN_STOP = 1;
export const TOKEN_SPECIAL = 2;

const CACHE_MAGIC = 'LMFVOCAB';
const CACHE_VERSION = 2;

/** Token positions in byte order, grouped by how many bytes of a run each token starts with (mask/ladder.ts). */
export type RunTable = Int32Array[];

export class TokenizerInfo {
  /** Mask width in tokens: the logits width, at least the number of tokens. */
  readonly vocabSize: number;
  readonly numTokens: number;
  readonly vocabType: string;
  /** Token i is `bytes[offsets[i]..offsets[i+1])`. */
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
  /** TOKEN_NORMAL, TOKEN_STOP or TOKEN_SPECIAL per token. */
  readonly kind: Uint8Array;
  readonly stopTokens: Int32Array;
  /** Normal tokens by bytes (byte order, not UTF-16 order). */
  readonly sorted: Int32Array;
  /** Position of a token in `sorted`, or -1. */
  readonly sortedIndex: Int32Array;
  /** Common prefix length with the previous sorted token. */
  readonly lcpPrev: Uint16Array;
  /** One past the last sorted index that has sorted[i] as a prefix. */
  readonly subtreeEnd: Int32Array;
  /** The first sorted index after j whose lcpPrev is smaller than j's, or the count (`prefixRangeEnd`'s jumps). */
  readonly shallowerAfter: Int32Array;
  /** First sorted index whose first byte is >= b (257 entries). */
  readonly firstByteStart: Int32Array;
  /** Bitset of the normal tokens, by id (mask layout). */
  readonly normalMask: Uint32Array;
  /** sha256 over bytes, kinds and logits width: the key of compiled masks. */
  readonly fingerprint: string;

  /** `order`: the normal tokens already in byte order (from a cache file), else they are sorted here. */
  private constructor(bytes: Uint8Array, offsets: Uint32Array, kind: Uint8Array, vocabSize: number, vocabType: string, order?: Int32Array) {
    const n = kind.length;
    this.numTokens = n;
    this.vocabSize = vocabSize;
    this.vocabType = vocabType;
    this.bytes = bytes;
    this.offsets = offsets;
    this.kind = kind;
    const stops: number[] = [];
    const normal: number[] = [];
    for (let i = 0; i < n; i++) {
      if (kind[i] === TOKEN_STOP) stops.push(i);
      else if (kind[i] === TOKEN_NORMAL) normal.push(i);
    }
    this.stopTokens = Int32Array.from(stops);
    if (order && order.length === normal.length) {
      this.sorted = order;
    } else {
      this.sorted = sortByBytes(Int32Array.from(normal), bytes, offsets);
    }
    const m = this.sorted.length;
    this.sortedIndex = new Int32Array(n).fill(-1);
    this.lcpPrev = new Uint16Array(m);
    this.subtreeEnd = new Int32Array(m);
    this.firstByteStart = new Int32Array(257).fill(m);
    this.normalMask = new Uint32Array(Math.ceil(vocabSize / 32));
    const stack: number[] = [];
    for (let j = 0; j < m; j++) {
      const t = this.sorted[j]!;
      this.sortedIndex[t] = j;
      this.normalMask[t >>> 5]! |= 1 << (t & 31);
      const start = offsets[t]!;
      const len = offsets[t + 1]! - start;
      let l = 0;
      if (j > 0) {
        const p = this.sorted[j - 1]!;
        const ps = offsets[p]!;
        const plen = offsets[p + 1]! - ps;
        while (l < len && l < plen && bytes[start + l] === bytes[ps + l]) l++;
      }
      this.lcpPrev[j] = Math.min(l, 0xffff);
      // The stack holds the sorted tokens that are prefixes of the previous one; a token stays
      // a prefix of this one exactly when the common prefix with the previous covers it.
      while (stack.length > 0 && l < this.tokenLength(this.sorted[stack[stack.length - 1]!]!)) this.subtreeEnd[stack.pop()!] = j;
      stack.push(j);
      const first = bytes[start]!;
      if (this.firstByteStart[first]! === m) this.firstByteStart[first] = j;
    }
    for (const j of stack) this.subtreeEnd[j] = m;
    this.shallowerAfter = new Int32Array(m);
    stack.length = 0;
    for (let j = m - 1; j >= 0; j--) {
      while (stack.length > 0 && this.lcpPrev[stack[stack.length - 1]!]! >= this.lcpPrev[j]!) stack.pop();
      this.shallowerAfter[j] = stack.length > 0 ? stack[stack.length - 1]! : m;
      stack.push(j);
    }
    for (let b = 255; b >= 0; b--) if (this.firstByteStart[b]! > this.firstByteStart[b + 1]!) this.firstByteStart[b] = this.firstByteStart[b + 1]!;
    const hash = new Sha256();
    hash.update(`${vocabType}\0${vocabSize}\0`);
    hash.update(new Uint8Array(offsets.buffer, offsets.byteOffset, offsets.byteLength));
    hash.update(bytes);
    hash.update(kind);
    this.fingerprint = hash.digestHex();
  }

  /** Bytes of each token, special and stop sets, and optionally a logits width. */
  static fromTokenBytes(input: TokenBytesInput): TokenizerInfo {
    const n = input.tokens.length;
    const kind = new Uint8Array(n);
    const offsets = new Uint32Array(n + 1);
    let total = 0;
    for (let i = 0; i < n; i++) {
      offsets[i] = total;
      total += input.tokens[i]!.length;
      if (input.tokens[i]!.length === 0) kind[i] = TOKEN_SPECIAL;
    }
    offsets[n] = total;
    const bytes = new Uint8Array(total);
    for (let i = 0; i < n; i++) bytes.set(input.tokens[i]!, offsets[i]!);
    const check = (id: number, what: string): number => {
      if (!Number.isInteger(id) || id < 0 || id >= n) throw new GrammarError(`${what} token id ${id} is outside the vocabulary of ${n} tokens`);
      return id;
    };
    for (const id of input.special ?? []) kind[check(id, 'special')] = TOKEN_SPECIAL;
    for (const id of input.stop ?? []) kind[check(id, 'stop')] = TOKEN_STOP;
    const width = input.logitsWidth ?? n;
    if (!Number.isInteger(width) || width < n) throw new GrammarError(`logits width ${width} is smaller than the vocabulary (${n} tokens)`);
    return new TokenizerInfo(bytes, offsets, kind, width, input.vocabType ?? 'raw');
  }

  /** A parsed Hugging Face tokenizer.json; `eosText` adds its EOS token (from tokenizer_config.json) to the stop set. */
  static fromTokenizerJSON(json: object, options: { logitsWidth?: number; eosText?: string } = {}): TokenizerInfo {
    const { eosText, ...rest } = options;
    return TokenizerInfo.fromTokenBytes({ ...tokenBytesFromTokenizerJson(json, eosText), ...rest });
  }

  /** The whitespace-run tables of mask/ladder.ts, by run bytes: data of this vocabulary, kept with it. */
  readonly runTables = new Map<string, RunTable>();

  private readonly within = new Map<string, Uint32Array>();
  /** Byte sets are the grammars' (a request's regex classes), so the cache keeps only the latest WITHIN_CACHE_ENTRIES. */
  static readonly WITHIN_CACHE_ENTRIES = 256;

  /** Bytes the `tokensWithin` cache holds (at most WITHIN_CACHE_ENTRIES bitsets of the vocabulary). */
  get withinCacheBytes(): number {
    let total = 0;
    for (const bits of this.within.values()) total += bits.byteLength;
    return total;
  }

  /** Token sets `tokensWithin` walked the vocabulary for (not loaded from cache bytes). */
  tokenSetsBuilt = 0;

  /**
   * One past the last sorted index whose first `depth` bytes are those of sorted token j
   * (`depth` at most its length): a token that dies at byte depth - 1 takes that whole range
   * with it. Every index skipped by a jump shares at least as many bytes with its previous
   * token as the one jumped from, so the jumps are few (at most one per shorter common prefix).
   */
  prefixRangeEnd(j: number, depth: number): number {
    const m = this.sorted.length;
    let i = j + 1;
    while (i < m && this.lcpPrev[i]! >= depth) i = this.shallowerAfter[i]!;
    return i;
  }

  /**
   * Bitset over sorted positions: the normal tokens made only of bytes in `set` (256 flags),
   * or with `wholeChars`, of ASCII bytes in `set` and well-formed multi-byte UTF-8 characters.
   * The mask compiler accepts them at once in a state that loops on those (the inside of a
   * string), instead of parsing each. Cached per byte set.
   */
  tokensWithin(set: Uint8Array, wholeChars = false): Uint32Array {
    const key = `${wholeChars ? 'u' : 'b'}${set.join('')}`;
    let bits = this.within.get(key);
    if (!bits) {
      bits = new Uint32Array(Math.ceil(this.sorted.length / 32));
      // In byte order a token shares its first lcpPrev bytes with the previous one: only the
      // rest needs checking (`okUpTo`: how many leading bytes of the previous token are fine,
      // `utf8[k]`: the UTF-8 state after k of them).
      const utf8 = new Int8Array(this.maxTokenLength() + 1);
      let okUpTo = 0;
      for (let j = 0; j < this.sorted.length; j++) {
        const t = this.sorted[j]!;
        const start = this.offsets[t]!;
        const len = this.offsets[t + 1]! - start;
        let k = Math.min(okUpTo, this.lcpPrev[j]!);
        if (wholeChars) {
          for (; k < len; k++) {
            const b = this.bytes[start + k]!;
            const next = b < 0x80 && utf8[k] === UTF8_BOUNDARY ? (set[b] === 1 ? UTF8_BOUNDARY : UTF8_INVALID) : utf8Step(utf8[k]!, b);
            if (next === UTF8_INVALID) break;
            utf8[k + 1] = next;
          }
        } else {
          while (k < len && set[this.bytes[start + k]!] === 1) k++;
        }
        okUpTo = k;
        if (k === len && (!wholeChars || utf8[k] === UTF8_BOUNDARY)) bits[j >>> 5]! |= 1 << (j & 31);
      }
      this.within.set(key, bits);
      if (this.within.size > TokenizerInfo.WITHIN_CACHE_ENTRIES) this.within.delete(this.within.keys().next().value!);
      this.tokenSetsBuilt++;
    }
    return bits;
  }

  private readonly withinById = new Map<string, { bits: Uint32Array; count: number }>();

  /** `tokensWithin(set, wholeChars)` by token id (the mask layout), and how many there are. */
  tokensWithinById(set: Uint8Array, wholeChars = false): { bits: Uint32Array; count: number } {
    const key = `${wholeChars ? 'u' : 'b'}${set.join('')}`;
    let byId = this.withinById.get(key);
    if (!byId) {
      const within = this.tokensWithin(set, wholeChars);
      const bits = new Uint32Array(this.normalMask.length);
      let count = 0;
      for (let j = 0; j < this.sorted.length; j++) {
        if ((within[j >>> 5]! & (1 << (j & 31))) === 0) continue;
        const t = this.sorted[j]!;
        bits[t >>> 5]! |= 1 << (t & 31);
        count++;
      }
      byId = { bits, count };
      this.withinById.set(key, byId);
    }
    return byId;
  }

  private bySorted: { bytes: Uint8Array; start: Int32Array } | null = null;

  /**
   * The normal tokens' bytes again, laid out in byte-sorted order: sorted position j is
   * `bytes[start[j]..start[j + 1])`. The mask compiler walks the vocabulary in that order, and
   * reading each token through `offsets` by id was a cache miss per token (two thirds of a
   * walk's time on Llama 3); here the next token is the next bytes. Built on first use.
   */
  sortedBytes(): { bytes: Uint8Array; start: Int32Array } {
    if (!this.bySorted) {
      const m = this.sorted.length;
      const start = new Int32Array(m + 1);
      for (let j = 0; j < m; j++) start[j + 1] = start[j]! + this.tokenLength(this.sorted[j]!);
      const bytes = new Uint8Array(start[m]!);
      for (let j = 0; j < m; j++) bytes.set(this.tokenBytes(this.sorted[j]!), start[j]!);
      this.bySorted = { bytes, start };
    }
    return this.bySorted;
  }

  private longest = -1;

  /** The length of the longest token, in bytes. */
  maxTokenLength(): number {
    if (this.longest < 0) {
      let max = 0;
      for (let t = 0; t < this.numTokens; t++) max = Math.max(max, this.offsets[t + 1]! - this.offsets[t]!);
      this.longest = max;
    }
    return this.longest;
  }

  tokenLength(id: number): number {
    return this.offsets[id + 1]! - this.offsets[id]!;
  }

  /** A view of the token's bytes. */
  tokenBytes(id: number): Uint8Array {
    return this.bytes.subarray(this.offsets[id]!, this.offsets[id + 1]!);
  }

  /**
   * Serialised for an on-disk cache or a worker; `fromCacheBytes` skips decoding and sorting.
   * The token sets `tokensWithin` built so far come along (after the tables, named in the
   * header: readers that predate them stop before), so a loaded copy walks none of them again.
   */
  toCacheBytes(): Uint8Array {
    const sets = [...this.within.keys()];
    const header = new TextEncoder().encode(JSON.stringify({ vocabSize: this.vocabSize, vocabType: this.vocabType, n: this.numTokens, m: this.sorted.length, sets }));
    const parts: Uint8Array[] = [new TextEncoder().encode(CACHE_MAGIC), new Uint8Array(Uint32Array.of(CACHE_VERSION, header.length).buffer), header];
    const view = (a: Uint32Array | Int32Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    parts.push(view(this.offsets), view(this.sorted), this.kind, this.bytes);
    for (const key of sets) parts.push(view(this.within.get(key)!));
    const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  static fromCacheBytes(data: Uint8Array): TokenizerInfo {
    if (new TextDecoder().decode(data.subarray(0, 8)) !== CACHE_MAGIC) throw new GrammarError('not a vocabulary cache file');
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (view.getUint32(8, true) !== CACHE_VERSION) throw new GrammarError('vocabulary cache file of another version');
    const headerLength = view.getUint32(12, true);
    const header = JSON.parse(new TextDecoder().decode(data.subarray(16, 16 + headerLength))) as { vocabSize: number; vocabType: string; n: number; m: number; sets?: string[] };
    let at = 16 + headerLength;
    const offsets = new Uint32Array(header.n + 1);
    new Uint8Array(offsets.buffer).set(data.subarray(at, at + offsets.byteLength));
    at += offsets.byteLength;
    const sorted = new Int32Array(header.m);
    new Uint8Array(sorted.buffer).set(data.subarray(at, at + sorted.byteLength));
    at += sorted.byteLength;
    const kind = data.slice(at, at + header.n);
    at += header.n;
    const bytes = data.slice(at, at + offsets[header.n]!);
    at += bytes.length;
    const info = new TokenizerInfo(bytes, offsets, kind, header.vocabSize, header.vocabType, sorted);
    for (const key of header.sets ?? []) {
      const bits = new Uint32Array(Math.ceil(header.m / 32));
      if (at + bits.byteLength > data.length) throw new GrammarError('vocabulary cache file cut short');
      new Uint8Array(bits.buffer).set(data.subarray(at, at + bits.byteLength));
      at += bits.byteLength;
      info.within.set(key, bits);
    }
    return info;
  }
}
