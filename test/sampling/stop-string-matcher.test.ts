import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { StopStringMatcher } from '../../runtime/sampling/index.js';

/** Feeds pieces; returns everything emitted (plus the flush if no stop) and whether it stopped. */
function run(stops: string[], pieces: string[], quiet = 0): { out: string; stopped: boolean; emits: string[] } {
  const m = new StopStringMatcher(stops);
  const emits: string[] = [];
  for (const [i, piece] of pieces.entries()) {
    // The first `quiet` pieces may not stop (min_tokens).
    const r = m.push(piece, i >= quiet);
    emits.push(r.emit);
    if (r.stopped) return { out: emits.join(''), stopped: true, emits };
  }
  emits.push(m.flush());
  return { out: emits.join(''), stopped: false, emits };
}

const chars = (s: string) => Array.from(s);

/** Reference: scan the whole text for the first position where any stop ends (past its first `free` characters, which stop nothing). */
function oracle(stops: string[], text: string, free = 0): { out: string; stopped: boolean } {
  for (let end = free + 1; end <= text.length; end++) {
    let start = -1;
    for (const stop of stops) {
      if (stop.length > 0 && end >= stop.length && text.slice(end - stop.length, end) === stop) {
        if (start < 0 || end - stop.length < start) start = end - stop.length;
      }
    }
    if (start >= 0) return { out: text.slice(0, start), stopped: true };
  }
  return { out: text, stopped: false };
}

test('a stop split over one-character pieces is withheld and never emitted', () => {
  const r = run(['</answer>'], chars('The result is 42</answer> and more'));
  assert.is(r.out, 'The result is 42');
  assert.ok(r.stopped);
  // Nothing that could start the stop was released early.
  assert.ok(!r.emits.join('').includes('<'));
});

test('a stop at the very start emits nothing', () => {
  assert.equal(run(['STOP'], ['ST', 'OP', 'tail']), { out: '', stopped: true, emits: ['', ''] });
  assert.equal(run(['\n'], ['\nabc']), { out: '', stopped: true, emits: [''] });
});

test('a partial match is withheld, then released when it fails', () => {
  const m = new StopStringMatcher(['world']);
  assert.equal(m.push('hello wor'), { emit: 'hello ', stopped: false });
  assert.equal(m.push('m'), { emit: 'worm', stopped: false });
  assert.equal(m.push(' wo'), { emit: ' ', stopped: false });
  assert.is(m.flush(), 'wo');
  assert.is(m.flush(), '');
});

test('text after a stop in the same piece is dropped, and nothing comes after stopping', () => {
  const m = new StopStringMatcher(['END']);
  assert.equal(m.push('abcENDdef'), { emit: 'abc', stopped: true });
  assert.ok(m.stopped);
  assert.equal(m.push('more'), { emit: '', stopped: true });
  assert.is(m.flush(), '');
});

test('a kept stop (include_stop_str_in_output) is sent itself, what follows it in the piece is not; other stops are cut as before', () => {
  const kept = (pieces: string[]) => {
    const m = new StopStringMatcher(['</answer>', '\nUser:'], new Set(['</answer>']));
    let out = '';
    for (const piece of pieces) {
      const r = m.push(piece);
      out += r.emit;
      if (r.stopped) return out;
    }
    return `${out}${m.flush()} (no stop)`;
  };
  assert.is(kept(chars('The result is 42</answer> and more')), 'The result is 42</answer>');
  assert.is(kept(['The result is 42</ans', 'wer> and more']), 'The result is 42</answer>');
  assert.is(kept(['42\nUser: next']), '42', 'a stop not kept (a template\'s) is cut');
  assert.is(kept(['42</answer', ' no']), '42</answer no (no stop)');
});

test('overlapping stops and stops that are prefixes of each other', () => {
  // The stop completing first wins, whatever the pieces.
  assert.is(run(['abcd', 'bc'], ['xabcd']).out, 'xa');
  assert.is(run(['abcd', 'bc'], chars('xabcd')).out, 'xa');
  assert.is(run(['ab', 'abc'], ['xxabc']).out, 'xx');
  assert.is(run(['abc', 'ab'], chars('xxabc')).out, 'xx');
  // Equal ends: the one starting earlier (the longer) cuts more.
  assert.is(run(['bc', 'abc'], ['xabc']).out, 'x');
  // Self-overlapping stop: "aab" inside "aaab".
  assert.is(run(['aab'], chars('aaab!')).out, 'a');
  // Several partial candidates at once.
  assert.equal(run(['aXb', 'aaY'], ['a', 'a', 'X', 'b']), { out: 'a', stopped: true, emits: ['', '', 'a', ''] });
});

test('no stops, empty stops and unicode', () => {
  assert.equal(run([], ['a', 'b']), { out: 'ab', stopped: false, emits: ['a', 'b', ''] });
  assert.equal(run([''], ['a']), { out: 'a', stopped: false, emits: ['a', ''] });
  assert.is(run(['🙂!'], ['héllo ', '🙂', '!', 'x']).out, 'héllo ');
  assert.is(run(['停'], chars('你好停下')).out, '你好');
});

test('pieces that may not stop (min_tokens): a stop they complete is text; one they begin and a later piece completes ends the output before it', () => {
  assert.equal(run(['\n\n'], ['a\n\nb', 'c'], 1), { out: 'a\n\nbc', stopped: false, emits: ['a\n\nb', 'c', ''] });
  // Begun in the quiet pieces, completed after them: the output ends before it, none of it sent.
  assert.equal(run(['\n\n'], ['a', '\n', '\n', 'b'], 2), { out: 'a', stopped: true, emits: ['a', '', ''] });
  // "bc" ended in the quiet piece and stops nothing; "abcd", completed after it, does.
  assert.is(run(['abcd', 'bc'], ['xabc', 'd'], 1).out, 'x');
  assert.is(run(['abcd', 'bc'], ['xabc', 'e'], 1).out, 'xabce');
});

test('property: equals the whole-text oracle for every split of the text', () => {
  const alphabet = fc.constantFrom('a', 'b', 'c', '<', '/');
  const str = (min: number, max: number) =>
    fc.array(alphabet, { minLength: min, maxLength: max }).map((a) => a.join(''));
  fc.assert(
    fc.property(
      fc.array(str(1, 4), { minLength: 1, maxLength: 3 }),
      str(0, 30),
      fc.array(fc.nat(30), { maxLength: 10 }),
      (stops, text, cuts) => {
        const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
        const pieces: string[] = [];
        let last = 0;
        for (const p of points) {
          pieces.push(text.slice(last, p));
          last = p;
        }
        pieces.push(text.slice(last));
        const got = run(stops, pieces);
        const want = oracle(stops, text);
        assert.is(got.out, want.out);
        assert.is(got.stopped, want.stopped);
      },
    ),
    { numRuns: 2000, seed: 20240601 },
  );
});

test('property: with quiet first pieces, equals the oracle that looks for stops ending past them', () => {
  const alphabet = fc.constantFrom('a', 'b', 'c', '<', '/');
  const str = (min: number, max: number) => fc.array(alphabet, { minLength: min, maxLength: max }).map((a) => a.join(''));
  fc.assert(
    fc.property(fc.array(str(1, 4), { minLength: 1, maxLength: 3 }), fc.array(str(0, 5), { minLength: 1, maxLength: 8 }), fc.nat(8), (stops, pieces, quiet) => {
      const free = pieces.slice(0, quiet).join('').length;
      const got = run(stops, pieces, quiet);
      const want = oracle(stops, pieces.join(''), free);
      assert.is(got.out, want.out);
      assert.is(got.stopped, want.stopped);
    }),
    { numRuns: 2000, seed: 20261201 },
  );
});

test.run();
