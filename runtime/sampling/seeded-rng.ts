// A per-sequence random stream: xoshiro128** (Blackman & Vigna) on four 32-bit words.
// Usage: `const rng = new SeededRng(request.seed, choiceIndex); rng.nextFloat();`
// The same (seed, stream) always yields the same numbers, whatever else the process is doing,
// which is what makes a seeded request reproducible beside busy neighbours.
import { randomFillSync } from 'node:crypto';

const MASK64 = (1n << 64n) - 1n;
const GOLDEN64 = 0x9e3779b97f4a7c15n;

/** splitmix64's finaliser: a bijective 64-bit mixer, so distinct inputs stay distinct. */
function mix64(value: bigint): bigint {
  let z = value & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/**
 * Folds an integer of any size and sign into 64 bits. OpenAI's `seed` arrives as a JSON number,
 * so it may be negative or beyond 2^64 (as a double); truncating would make 0 and 2^64 collide.
 */
function hashSeed(seed: bigint, stream: number): bigint {
  let magnitude = seed < 0n ? -seed : seed;
  let h = mix64(seed < 0n ? GOLDEN64 ^ 1n : GOLDEN64);
  do {
    h = mix64((h ^ (magnitude & MASK64)) + GOLDEN64);
    magnitude >>= 64n;
  } while (magnitude > 0n);
  return mix64((h ^ BigInt(stream)) + GOLDEN64);
}

export class SeededRng {
  readonly #s = new Uint32Array(4);

  /**
   * @param seed any integer (negative and unsafe-but-integral doubles included)
   * @param stream separates the `n` choices of one request: choice i uses stream i
   */
  constructor(seed: number, stream = 0) {
    if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
    if (!Number.isSafeInteger(stream) || stream < 0) {
      throw new RangeError(`stream must be a non-negative safe integer, got ${stream}`);
    }
    // Expand the hash into 128 bits of state with splitmix64's counter, as its authors advise.
    let counter = hashSeed(BigInt(seed), stream);
    for (let i = 0; i < 4; i += 2) {
      counter = (counter + GOLDEN64) & MASK64;
      const z = mix64(counter);
      this.#s[i] = Number(z & 0xffffffffn);
      this.#s[i + 1] = Number(z >> 32n);
    }
    this.#avoidZeroState();
  }

  /** A generator for requests without a seed, fed from the OS entropy pool. */
  static fromEntropy(): SeededRng {
    const rng = new SeededRng(0);
    randomFillSync(rng.#s);
    rng.#avoidZeroState();
    return rng;
  }

  /** An independent generator at this one's position: both draw the same numbers from here on. */
  clone(): SeededRng {
    const copy = new SeededRng(0);
    copy.#s.set(this.#s);
    return copy;
  }

  /** The next 32 uniformly distributed bits, as an unsigned integer. */
  nextUint32(): number {
    const s = this.#s;
    const s0 = s[0]!;
    const s1 = s[1]!;
    const s2 = s[2]!;
    const s3 = s[3]!;
    const m = Math.imul(s1, 5);
    const result = Math.imul((m << 7) | (m >>> 25), 9) >>> 0;
    const t = s1 << 9;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    s[1] = s1 ^ n2;
    s[0] = s0 ^ n3;
    s[2] = n2 ^ t;
    s[3] = (n3 << 11) | (n3 >>> 21);
    return result;
  }

  /** A uniform double in [0, 1) with the full 53 bits of precision. */
  nextFloat(): number {
    const high = this.nextUint32() >>> 5; // 27 bits
    const low = this.nextUint32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }

  // xoshiro's one forbidden state; hashing makes it astronomically unlikely, but be exact.
  #avoidZeroState(): void {
    const s = this.#s;
    if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1;
  }
}
