import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SeededRng } from '../../runtime/sampling/index.js';

const take = (rng: SeededRng, n: number) => Array.from({ length: n }, () => rng.nextUint32());

test('same seed and stream give the same sequence; any change gives another', () => {
  const seeds = [0, 1, -1, 42, -42, 2 ** 32, 2 ** 32 + 1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 64, 1e30, -1e30];
  const seen = new Set<string>();
  for (const seed of seeds) {
    for (const stream of [0, 1, 2, 1000]) {
      const a = take(new SeededRng(seed, stream), 8);
      assert.equal(a, take(new SeededRng(seed, stream), 8), `seed ${seed} stream ${stream} does not replay`);
      const key = a.join(',');
      assert.not.ok(seen.has(key), `seed ${seed} stream ${stream} collides with another pair`);
      seen.add(key);
    }
  }
});

test('the stream defaults to 0', () => {
  assert.equal(take(new SeededRng(7), 4), take(new SeededRng(7, 0), 4));
});

test('a clone draws what its original draws from the same position, and each advances alone', () => {
  const original = new SeededRng(11, 3);
  take(original, 5);
  const copy = original.clone();
  assert.equal(take(copy, 6), take(original, 6));
  take(copy, 1);
  assert.not.equal(take(copy, 4), take(original, 4), 'the copy is one draw ahead');
});

test('non-integer seeds and bad streams are refused', () => {
  assert.throws(() => new SeededRng(1.5), /seed must be an integer/);
  assert.throws(() => new SeededRng(NaN), /seed must be an integer/);
  assert.throws(() => new SeededRng(Infinity), /seed must be an integer/);
  assert.throws(() => new SeededRng(1, -1), /stream/);
});

test('nextFloat is in [0, 1) and uniform (chi-square over 64 buckets)', () => {
  for (const seed of [-1, 2 ** 53 - 1, 12345]) {
    const rng = new SeededRng(seed);
    const buckets = new Array<number>(64).fill(0);
    const draws = 200_000;
    let sum = 0;
    for (let i = 0; i < draws; i++) {
      const x = rng.nextFloat();
      assert.ok(x >= 0 && x < 1);
      sum += x;
      buckets[Math.floor(x * 64)]!++;
    }
    const expected = draws / 64;
    const x2 = buckets.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0);
    // 99.9% quantile of chi-square with 63 degrees of freedom ≈ 103.4.
    assert.ok(x2 < 103.4, `seed ${seed}: chi-square ${x2.toFixed(1)}`);
    assert.ok(Math.abs(sum / draws - 0.5) < 0.003);
  }
});

test('every output bit is balanced and consecutive outputs are uncorrelated', () => {
  const rng = new SeededRng(99);
  const n = 100_000;
  const ones = new Array<number>(32).fill(0);
  let prev = rng.nextFloat();
  let cross = 0;
  for (let i = 0; i < n; i++) {
    const u = rng.nextUint32();
    for (let b = 0; b < 32; b++) ones[b]! += (u >>> b) & 1;
    const x = rng.nextFloat();
    cross += (x - 0.5) * (prev - 0.5);
    prev = x;
  }
  // Binomial(n, 1/2) has standard deviation ~158; allow 5 sigma.
  for (let b = 0; b < 32; b++) assert.ok(Math.abs(ones[b]! - n / 2) < 800, `bit ${b} is biased`);
  // Correlation of consecutive floats: variance 1/12 each, so |r| = |cross| * 12 / n.
  assert.ok(Math.abs((cross * 12) / n) < 0.02);
});

test('fromEntropy generators differ from each other', () => {
  assert.not.equal(take(SeededRng.fromEntropy(), 4), take(SeededRng.fromEntropy(), 4));
  const x = SeededRng.fromEntropy().nextFloat();
  assert.ok(x >= 0 && x < 1);
});

test('matches an independent BigInt model of xoshiro128** seeded by splitmix64', () => {
  // Reference state expansion for seed 0, stream 0, recomputed here from the published
  // algorithms so that a change to seeding or the generator is noticed.
  const M = (1n << 64n) - 1n;
  const G = 0x9e3779b97f4a7c15n;
  const mix = (v: bigint) => {
    let z = v & M;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    return z ^ (z >> 31n);
  };
  let h = mix(G);
  h = mix((h ^ 0n) + G);
  let counter = mix((h ^ 0n) + G);
  const s: number[] = [];
  for (let i = 0; i < 2; i++) {
    counter = (counter + G) & M;
    const z = mix(counter);
    s.push(Number(z & 0xffffffffn), Number(z >> 32n));
  }
  const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;
  const expected: number[] = [];
  for (let i = 0; i < 16; i++) {
    expected.push(Number((BigInt(rotl(Number((BigInt(s[1]!) * 5n) & 0xffffffffn), 7)) * 9n) & 0xffffffffn));
    const t = (s[1]! << 9) >>> 0;
    s[2] = (s[2]! ^ s[0]!) >>> 0;
    s[3] = (s[3]! ^ s[1]!) >>> 0;
    s[1] = (s[1]! ^ s[2]!) >>> 0;
    s[0] = (s[0]! ^ s[3]!) >>> 0;
    s[2] = (s[2]! ^ t) >>> 0;
    s[3] = rotl(s[3]!, 11);
  }
  assert.equal(take(new SeededRng(0), 16), expected);
});

test.run();
