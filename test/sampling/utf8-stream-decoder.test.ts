import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Utf8StreamDecoder } from '../../runtime/sampling/index.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Pushes the byte ranges split at `cuts`; returns each push's output and the flush. */
function feed(bytes: Uint8Array, cuts: number[]): { outputs: string[]; flushed: string } {
  const d = new Utf8StreamDecoder();
  const outputs: string[] = [];
  let last = 0;
  for (const cut of [...cuts, bytes.length]) {
    outputs.push(d.push(bytes.subarray(last, cut)));
    last = cut;
  }
  return { outputs, flushed: d.flush() };
}

test('a 4-byte emoji split 1/3, 2/2 and 3/1 comes out whole, once', () => {
  const bytes = utf8('🙂'); // F0 9F 99 82
  assert.is(bytes.length, 4);
  for (const cut of [1, 2, 3]) {
    const { outputs, flushed } = feed(bytes, [cut]);
    assert.equal(outputs, ['', '🙂'], `split at ${cut}`);
    assert.is(flushed, '');
  }
});

test('a CJK character split across three pushes', () => {
  const bytes = utf8('語'); // 3 bytes
  assert.equal(feed(bytes, [1, 2]), { outputs: ['', '', '語'], flushed: '' });
  // With text around it: complete characters before the split are released at once.
  const text = utf8('a語b');
  assert.equal(feed(text, [2, 3]), { outputs: ['a', '', '語b'], flushed: '' });
});

test('an incomplete tail becomes U+FFFD only at flush', () => {
  const bytes = utf8('ok🙂').subarray(0, 4); // "ok" + first 2 bytes of the emoji
  const d = new Utf8StreamDecoder();
  assert.is(d.push(bytes), 'ok');
  assert.is(d.flush(), '\uFFFD');
  // The decoder is reusable after a flush.
  assert.is(d.push(utf8('é')), 'é');
  assert.is(d.flush(), '');
});

test('bytes that can never be valid are replaced at once, not held', () => {
  const d = new Utf8StreamDecoder();
  assert.is(d.push(Uint8Array.of(0x61, 0xff, 0x62)), 'a\uFFFDb');
  assert.is(d.flush(), '');
});

test('property: any split of any bytes decodes like one non-streaming decode', () => {
  const whole = new TextDecoder('utf-8', { ignoreBOM: true });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 20 }).map(utf8),
        fc.uint8Array({ maxLength: 24 }),
      ),
      fc.array(fc.nat(24), { maxLength: 8 }),
      (bytes, rawCuts) => {
        const cuts = [...new Set(rawCuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
        const { outputs, flushed } = feed(bytes, cuts);
        assert.is(outputs.join('') + flushed, whole.decode(bytes));
        // No output ends inside a surrogate pair.
        for (const out of outputs) {
          const lastUnit = out.charCodeAt(out.length - 1);
          assert.ok(!(lastUnit >= 0xd800 && lastUnit <= 0xdbff), 'split surrogate pair');
        }
      },
    ),
    { numRuns: 3000, seed: 7 },
  );
});

test.run();
