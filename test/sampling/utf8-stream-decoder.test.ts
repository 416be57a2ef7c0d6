import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Utf8StreamDecoder } from '../../runtime/sampling/index.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Pushes the byte ranges split at `cuts`, then ends the stream; returns each push's output. */
function feed(bytes: Uint8Array, cuts: number[]): string[] {
  const d = new Utf8StreamDecoder();
  const outputs: string[] = [];
  let last = 0;
  for (const cut of [...cuts, bytes.length]) {
    outputs.push(d.push(bytes.subarray(last, cut)));
    last = cut;
  }
  d.end();
  return outputs;
}

test('a 4-byte emoji split 1/3, 2/2 and 3/1 comes out whole, once', () => {
  const bytes = utf8('🙂'); // F0 9F 99 82
  assert.is(bytes.length, 4);
  for (const cut of [1, 2, 3]) {
    assert.equal(feed(bytes, [cut]), ['', '🙂'], `split at ${cut}`);
  }
});

test('a CJK character split across three pushes', () => {
  const bytes = utf8('語'); // 3 bytes
  assert.equal(feed(bytes, [1, 2]), ['', '', '語']);
  // With text around it: complete characters before the split are released at once.
  const text = utf8('a語b');
  assert.equal(feed(text, [2, 3]), ['a', '', '語b']);
});

test('an incomplete tail at the end is dropped, not turned into U+FFFD', () => {
  const bytes = utf8('ok🙂').subarray(0, 4); // "ok" + first 2 bytes of the emoji
  const d = new Utf8StreamDecoder();
  assert.is(d.push(bytes), 'ok');
  d.end();
  // The decoder is reusable after the end, with nothing of the dropped bytes left in it.
  assert.is(d.push(utf8('é')), 'é');
  assert.is(d.push(utf8('🙂').subarray(2)), '\uFFFD\uFFFD', 'the rest of the emoji alone is invalid');
});

test('bytes that can never be valid are replaced at once, not held', () => {
  assert.equal(feed(Uint8Array.of(0x61, 0xff, 0x62), []), ['a\uFFFDb']);
});

test('property: any split of any bytes decodes like one decode that holds back an incomplete tail', () => {
  const whole = () => new TextDecoder('utf-8', { ignoreBOM: true });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 20 }).map(utf8),
        fc.uint8Array({ maxLength: 24 }),
      ),
      fc.array(fc.nat(24), { maxLength: 8 }),
      (bytes, rawCuts) => {
        const cuts = [...new Set(rawCuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
        const outputs = feed(bytes, cuts);
        assert.is(outputs.join(''), whole().decode(bytes, { stream: true }));
        // What the end drops is only ever one incomplete character: the rest is as a whole decode.
        const dropped = whole().decode(bytes);
        assert.ok(dropped === outputs.join('') || dropped === `${outputs.join('')}\uFFFD`);
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
