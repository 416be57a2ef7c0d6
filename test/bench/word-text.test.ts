// The prefix benchmark's seeded text: the same seed and stream give the same text, other
// streams other text, and the word count is exact.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WordText } from '../../bench/prefix/word-text.js';

test('same seed and stream, same text; another stream, other text', () => {
  const a = new WordText(7, 1).words(300);
  assert.is(new WordText(7, 1).words(300), a);
  assert.is.not(new WordText(7, 2).words(300), a);
  assert.is.not(new WordText(8, 1).words(300), a);
});

test('exactly the words asked for, in capitalised sentences ending with a full stop', () => {
  const text = new WordText(0, 0).words(150);
  assert.is(text.split(' ').length, 150);
  assert.ok(/^[A-Z]/.test(text));
  assert.ok(text.endsWith('.'));
  for (const sentence of text.split('. ').slice(1)) assert.ok(/^[A-Z]/.test(sentence), sentence);
});

test('successive calls continue the stream, so turns differ', () => {
  const text = new WordText(3, 0);
  assert.is.not(text.words(50), text.words(50));
  assert.ok(text.question(20).endsWith('?'));
});

test.run();
