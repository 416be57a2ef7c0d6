// Splitting thinking from the answer: pieces concatenate to the whole result however the text is
// split, a partial `</think>` is never sent as reasoning, and neither part leaks into the other.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ReasoningSplitter, type ThinkStart } from '../../runtime/chat-format/reasoning.js';

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

test.run();
