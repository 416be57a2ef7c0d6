import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import './helpers.js';
import { complementRanges, intersectRanges, normalizeRanges, utf8Sequences } from '../../compiler/charset.js';

const test = suite('charset');

function inSequences(seqs: number[][], bytes: Uint8Array): boolean {
  return seqs.some((s) => s.length === bytes.length * 2 && [...bytes].every((b, i) => b >= s[2 * i]! && b <= s[2 * i + 1]!));
}

test('UTF-8 split covers exactly the code points of the ranges', () => {
  const cp = fc.integer({ min: 0, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff);
  fc.assert(
    fc.property(cp, cp, cp, (a, b, probe) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a];
      const seqs = utf8Sequences([lo, hi]);
      const bytes = new TextEncoder().encode(String.fromCodePoint(probe));
      return inSequences(seqs, bytes) === (probe >= lo && probe <= hi);
    }),
    { numRuns: 2000 },
  );
});

test('boundaries of the encoding lengths and surrogates', () => {
  const seqs = utf8Sequences([0, 0x10ffff]);
  for (const c of [0, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10ffff]) {
    assert.ok(inSequences(seqs, new TextEncoder().encode(String.fromCodePoint(c))), c.toString(16));
  }
  assert.not.ok(inSequences(seqs, new Uint8Array([0xed, 0xa0, 0x80])), 'an encoded surrogate is not UTF-8');
  assert.not.ok(inSequences(seqs, new Uint8Array([0xc0, 0x80])), 'overlong encodings are rejected');
});

test('range algebra', () => {
  assert.equal(normalizeRanges([5, 9, 1, 3, 4, 4, 20, 10]), [1, 9]);
  assert.equal(complementRanges([0, 9, 20, 0x10ffff]), [10, 19]);
  assert.equal(intersectRanges([0, 10, 20, 30], [5, 25]), [5, 10, 20, 25]);
});

test.run();
