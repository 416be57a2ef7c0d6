// The legacy text_offset of each token, built from the engine's events as a stream sends them:
// text held back while it may begin a stop string comes in a later delta than its token, a stop
// string's own tokens never reach the text, and a character outside the BMP is one (Python's
// len, which OpenAI's and vLLM's offsets count in), not two UTF-16 units.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EngineEvent, TokenLogprob } from '../../runtime/engine/protocol.js';
import { TextCompletionChunks } from '../../runtime/api/text-completions/text-completion-chunks.js';
import { TextCompletionResponse } from '../../runtime/api/text-completions/text-completion-response.js';
import { usageOf } from '../../runtime/api/usage.js';

const test = suite('text offsets');
const frame = { id: 'cmpl-1', created: 0, model: 'm', system_fingerprint: 'f' };

const token = (text: string, bytes = [...Buffer.from(text)]): TokenLogprob => ({ token: 0, logprob: -0.5, bytes, top: [] });
const delta = (text: string, ...logprobs: TokenLogprob[]): EngineEvent => ({ type: 'delta', id: 1, choice: 0, text, tokens: logprobs.map(() => 0), logprobs });
const finished: EngineEvent = { type: 'finished', id: 1, choice: 0, reason: 'stop', completionTokens: 0, cachedTokens: 0 };

/** The whole response's text and lists, folded from the chunks as the server folds them; and the chunks. */
function run(events: EngineEvent[], echo?: string) {
  const chunks = new TextCompletionChunks(frame, { n: 1, echoes: echo === undefined ? undefined : [echo], logprobs: true, topLogprobs: 5, promptLogprobs: undefined, prompts: 1 });
  const whole = new TextCompletionResponse(frame, { choices: 1, logprobs: true });
  const streamed = events.flatMap((event) => [...chunks.chunksFor(event)]);
  for (const chunk of streamed) whole.add(chunk);
  const response = whole.response(usageOf(1, 1, 0)) as { choices: { text: string; logprobs: { tokens: string[]; text_offset: number[] } }[] };
  return { ...response.choices[0]!, streamed };
}

/** Each token that reached the text sits where its text does; the rest at the text's end. */
function sliceAgrees(text: string, tokens: string[], offsets: number[]): void {
  const chars = [...text];
  tokens.forEach((t, i) => {
    const at = offsets[i]!;
    const here = chars.slice(at, at + [...t].length).join('');
    assert.ok(here === t || (at === chars.length && here === ''), `${JSON.stringify(t)} at ${at} in ${JSON.stringify(text)}`);
  });
}

test("a stop string's held-back text: each token at its own text, the stop string's tokens at the text's end (they pointed into earlier text)", () => {
  // The audit's case: stop " 7" after " 5, 6,"; the engine holds " " back until "5" shows it is no stop.
  const { text, logprobs, streamed } = run([
    delta('', token(' ')), delta(' 5', token('5')), delta(',', token(',')), delta('', token(' ')), delta(' 6', token('6')), delta(',', token(',')), delta('', token(' ')), delta('', token('7')), finished,
  ]);
  assert.is(text, ' 5, 6,');
  assert.equal(logprobs.text_offset, [0, 1, 2, 3, 4, 5, 6, 6]);
  sliceAgrees(text, logprobs.tokens, logprobs.text_offset);
  // Streamed, a token goes out in the chunk whose text reaches it: never ahead of its text.
  let sent = 0;
  for (const chunk of streamed) {
    sent += [...chunk.choices[0]!.text].length;
    for (const offset of chunk.choices[0]!.logprobs?.text_offset ?? []) assert.ok(offset < sent || chunk.choices[0]!.finish_reason !== null, `${offset} before ${sent}`);
  }
});

test('offsets count code points: an emoji is one character, and a token that ends inside one starts where it does', () => {
  const emoji = [...Buffer.from('😆')];
  const { text, logprobs } = run([delta(' 😅', token(' '), token('😅')), delta('', token('', emoji.slice(0, 2))), delta('😆 x', token('', emoji.slice(2)), token(' x')), finished]);
  assert.is(text, ' 😅😆 x');
  assert.equal(logprobs.text_offset, [0, 1, 2, 2, 3]);
  assert.equal(logprobs.tokens.slice(2, 4), ['bytes:\\xf0\\x9f', 'bytes:\\x98\\x86']);
});

test('a special token the text leaves out (skip_special_tokens) takes no room: the tokens after it point at their own text', () => {
  // The audit's case: <|im_start|> tokens hidden from the text shifted every later offset by their 12 characters.
  const { text, logprobs, streamed } = run([
    delta('', token('<|im_start|>')), delta('', token('<|im_start|>')), delta('system', token('system')), delta('', token('<|im_start|>')), delta('system', token('system')), finished,
  ]);
  assert.is(text, 'systemsystem');
  assert.equal(logprobs.text_offset, [0, 0, 0, 6, 6]);
  // The second "system" goes out with its own text, not held to the finish.
  const withText = streamed.filter((chunk) => chunk.choices[0]!.text === 'system');
  assert.equal(withText.map((chunk) => chunk.choices[0]!.logprobs!.tokens.at(-1)), ['system', 'system']);
});

test('with echo the offsets start after the prompt, in code points', () => {
  const { text, logprobs } = run([delta('b', token('b')), delta('c', token('c')), finished], 'a😀');
  assert.is(text, 'a😀bc');
  assert.equal(logprobs.text_offset, [2, 3]);
});

test.run();
