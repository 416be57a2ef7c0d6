// The prediction cursor: where the output follows the predicted text, what it drafts next, and
// where it finds the prediction again after an edit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PredictionCursor } from '../../runtime/engine/worker/speculative/proposers/prediction-cursor.js';

const test = suite('prediction cursor');

/** Token ids for words: one token a word, the same id for the same word. */
function words(text: string): number[] {
  const ids = new Map<string, number>();
  return text.split(' ').map((word) => ids.get(word) ?? (ids.set(word, 100 + ids.size), 100 + ids.size - 1));
}
const PROMPT = [1, 2, 3];

test('drafts the prediction from its start, then after each token that follows it', () => {
  const predicted = [10, 11, 12, 13, 14];
  const cursor = new PredictionCursor(predicted);
  const tokens = [...PROMPT];
  assert.equal(cursor.draft(tokens, PROMPT.length, 3), [10, 11, 12]);
  tokens.push(10, 11);
  assert.equal(cursor.draft(tokens, PROMPT.length, 3), [12, 13, 14]);
  tokens.push(12, 13, 14);
  assert.equal(cursor.draft(tokens, PROMPT.length, 3), [], 'the prediction is used up');
});

test('an edit loses the prediction until the output joins it again, nearest to where it left', () => {
  // "a b c d e f g h" with "c" replaced by "x y": after "x y", "d" is found again at its own place.
  const predicted = [10, 11, 12, 13, 14, 15, 16, 17];
  const cursor = new PredictionCursor(predicted);
  const tokens = [...PROMPT, 10, 11];
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), [12, 13]);
  tokens.push(90, 91);
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), [], 'x y are in no prediction');
  tokens.push(13);
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), [14, 15], 'one token found close after where it left');
});

test('a repeated phrase is found again after the edit, not at an earlier copy', () => {
  const predicted = words('the cat sat . the cat ran . the cat sat . the end');
  const cursor = new PredictionCursor(predicted);
  const tokens = [...PROMPT, ...predicted.slice(0, 8)]; // "the cat sat . the cat ran ."
  assert.equal(cursor.draft(tokens, PROMPT.length, 1), [predicted[8]!]);
  // The output writes "a dog sat ." where the prediction has "the cat sat .", then "the".
  const [a, dog] = [900, 901];
  tokens.push(a, dog, predicted[2]!, predicted[3]!);
  // "sat ." is at 2-3 and at 10-11: the copy ahead is the one the edit replaced.
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), predicted.slice(12, 14));
});

test('a single common token does not realign far from where the output left', () => {
  const predicted = [10, 11, 12, ...Array.from({ length: 40 }, (_, i) => 200 + i), 77, 78];
  const cursor = new PredictionCursor(predicted);
  const tokens = [...PROMPT, 10, 90];
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), []);
  tokens.push(77);
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), [], '77 is 40 tokens on: one token is not enough there');
  tokens.push(78);
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), [], 'two tokens found at the very end: aligned, nothing left to draft');
});

test('two tokens realign anywhere', () => {
  const predicted = [10, 11, 12, ...Array.from({ length: 40 }, (_, i) => 200 + i), 77, 78, 79];
  const cursor = new PredictionCursor(predicted);
  const tokens = [...PROMPT, 90, 77, 78];
  assert.equal(cursor.draft(tokens, PROMPT.length, 2), [79]);
});

test.run();
