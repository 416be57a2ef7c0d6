// Splitting thinking from the answer: pieces concatenate to the whole result however the text is
// split, a partial `</think>` is never sent as reasoning, and neither part leaks into the other.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ReasoningSplitter, type ThinkStart } from '../../runtime/chat-format/reasoning.js';
import { ReasoningTokens } from '../../runtime/api/chat-completions/reasoning-tokens.js';

const test = suite('reasoning split');

function run(start: Exclude<ThinkStart, 'closed'>, pieces: string[]) {
  const splitter = new ReasoningSplitter(start);
  let reasoning = '';
  let answer = '';
  for (const delta of [...pieces.map((piece) => splitter.push(piece)), splitter.finish()]) {
    reasoning += delta?.reasoning ?? '';
    answer += delta?.answer ?? '';
  }
  return { streamed: { reasoning, answer }, whole: { reasoning: splitter.reasoning, answer: splitter.answer } };
}

function split(text: string, seed: number): string[] {
  let state = seed;
  const pieces: string[] = [];
  for (let i = 0; i < text.length; ) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const n = 1 + (state % 9);
    pieces.push(text.slice(i, i + n));
    i += n;
  }
  return pieces;
}

const CASES: { start: 'open' | 'model'; text: string; reasoning: string; answer: string }[] = [
  { start: 'open', text: 'Let me think. </thi is not it.\n</think>\n\nThe answer.', reasoning: 'Let me think. </thi is not it.', answer: 'The answer.' },
  { start: 'open', text: 'Still thinking when cut off </th', reasoning: 'Still thinking when cut off </th', answer: '' },
  { start: 'open', text: '</think>\n\nNo thinking.', reasoning: '', answer: 'No thinking.' },
  { start: 'model', text: '\n<think>\nHm.\n</think>\nYes.', reasoning: 'Hm.', answer: 'Yes.' },
  { start: 'model', text: 'No block, <think> later is text.', reasoning: '', answer: 'No block, <think> later is text.' },
  { start: 'model', text: '<thinking>is not the marker', reasoning: '', answer: '<thinking>is not the marker' },
];

test('every chunking gives the whole result, and the parts are where they belong', () => {
  for (const { start, text, reasoning, answer } of CASES) {
    for (const pieces of [[text], [...text], split(text, 3), split(text, 11)]) {
      const { streamed, whole } = run(start, pieces);
      assert.equal(whole, { reasoning, answer }, JSON.stringify(pieces));
      assert.equal(streamed, whole, JSON.stringify(pieces));
    }
  }
});

test('a possible </think> is withheld from the reasoning until it is known', () => {
  const splitter = new ReasoningSplitter('open');
  assert.equal(splitter.push('abc </th'), { reasoning: 'abc' });
  assert.equal(splitter.push('ink>\n\nAn'), { answer: 'An' });
});

test('thinking tokens: a delta of several tokens (speculation) that closes the thinking counts up to the closing token', () => {
  // Token ids are indexes into this vocabulary; `</think>` is one token (3) or spelt in two (4, 5).
  const texts = ['Hm', ' ok', '.', '</think>', '</th', 'ink>', '\n\nYes', ' sure'];
  const count = (start: Exclude<ThinkStart, 'closed'>, deltas: number[][]) => {
    const splitter = new ReasoningSplitter(start);
    const tokens = new ReasoningTokens();
    for (const delta of deltas) tokens.observe(splitter, delta, (token) => texts[token]!, () => splitter.push(delta.map((token) => texts[token]).join('')));
    return tokens.count;
  };
  // One token a delta: the thinking is its first four tokens, whatever comes after.
  assert.is(count('open', [[0], [1], [2], [3], [6], [7]]), 4);
  // The same tokens drafted and accepted together: the same count, not the delta's six.
  assert.is(count('open', [[0, 1], [2, 3, 6, 7]]), 4);
  assert.is(count('open', [[0, 1, 2, 3, 6, 7]]), 4);
  // The close marker spelt over two tokens, the second in a delta with the answer.
  assert.is(count('open', [[0, 4], [5, 6, 7]]), 3);
  // A delta that stays inside the thinking counts whole; one after it counts nothing.
  assert.is(count('open', [[0, 1, 2], [7, 7]]), 5);
  assert.is(count('open', [[3], [6, 7, 7]]), 1);
});

test.run();
