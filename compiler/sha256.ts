// SHA-256 (FIPS 180-4) in plain TypeScript, so lmforge/grammar needs no node:crypto and runs in
// browsers and bundlers as it is. Grammar hashes and vocabulary fingerprints name artifacts on
// disk, so they must stay the exact SHA-256 digests node:crypto gave before.
//
//   new Sha256().update('text').update(bytes).digestHex();

const ROUND_CONSTANTS = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

const INITIAL_STATE = Int32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);

const utf8 = new TextEncoder();
/** The message schedule, shared: compress() runs to its end before any other hash uses it. */
const schedule = new Int32Array(64);

export class Sha256 {
  private readonly state = Int32Array.from(INITIAL_STATE);
  private readonly block = new Uint8Array(64);
  private readonly blockView = new DataView(this.block.buffer);
  private blockLength = 0;
  private totalBytes = 0;
  private finished = false;

  /** Adds bytes; a string is hashed as its UTF-8 bytes (as node:crypto's `update(string)`). */
  update(data: string | Uint8Array): this {
    if (this.finished) throw new Error('Sha256: update after digest');
    if (typeof data === 'string') return this.updateString(data);
    return this.updateBytes(data);
  }

  /** ASCII goes straight into the block (rule texts are short and ASCII); the rest through UTF-8. */
  private updateString(text: string): this {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x80) return this.updateBytes(utf8.encode(text.slice(i)));
      this.block[this.blockLength++] = code;
      this.totalBytes++;
      if (this.blockLength === 64) {
        this.compress(this.blockView, 0);
        this.blockLength = 0;
      }
    }
    return this;
  }

  private updateBytes(bytes: Uint8Array): this {
    this.totalBytes += bytes.length;
    let at = 0;
    if (this.blockLength > 0) {
      const take = Math.min(64 - this.blockLength, bytes.length);
      this.block.set(bytes.subarray(0, take), this.blockLength);
      this.blockLength += take;
      at = take;
      if (this.blockLength < 64) return this;
      this.compress(this.blockView, 0);
      this.blockLength = 0;
    }
    // Whole blocks straight from the input, without copying them.
    if (bytes.length - at >= 64) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (; at + 64 <= bytes.length; at += 64) this.compress(view, at);
    }
    this.block.set(bytes.subarray(at), 0);
    this.blockLength = bytes.length - at;
    return this;
  }

  /** The digest as 64 lowercase hex digits; the hash takes no more input after it. */
  digestHex(): string {
    this.finished = true;
    const bitLength = this.totalBytes * 8;
    this.block[this.blockLength++] = 0x80;
    if (this.blockLength > 56) {
      this.block.fill(0, this.blockLength);
      this.compress(this.blockView, 0);
      this.blockLength = 0;
    }
    this.block.fill(0, this.blockLength);
    this.blockView.setUint32(56, Math.floor(bitLength / 0x1_0000_0000));
    this.blockView.setUint32(60, bitLength >>> 0);
    this.compress(this.blockView, 0);
    let hex = '';
    for (const word of this.state) hex += (word >>> 0).toString(16).padStart(8, '0');
    return hex;
  }

  private compress(view: DataView, offset: number): void {
    const w = schedule;
    for (let i = 0; i < 16; i++) w[i] = view.getInt32(offset + 4 * i);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    const s = this.state;
    let a = s[0]!, b = s[1]!, c = s[2]!, d = s[3]!, e = s[4]!, f = s[5]!, g = s[6]!, h = s[7]!;
    for (let i = 0; i < 64; i++) {
      const sum1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const choose = (e & f) ^ (~e & g);
      const t1 = (h + sum1 + choose + ROUND_CONSTANTS[i]! + w[i]!) | 0;
      const sum0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (sum0 + majority) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    s[0] = (s[0]! + a) | 0;
    s[1] = (s[1]! + b) | 0;
    s[2] = (s[2]! + c) | 0;
    s[3] = (s[3]! + d) | 0;
    s[4] = (s[4]! + e) | 0;
    s[5] = (s[5]! + f) | 0;
    s[6] = (s[6]! + g) | 0;
    s[7] = (s[7]! + h) | 0;
  }
}

/** SHA-256 of one input, as hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return new Sha256().update(data).digestHex();
}
