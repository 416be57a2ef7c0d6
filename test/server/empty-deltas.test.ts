// No chunk mid-stream says nothing: a token that shows no text yet (here the first bytes of a
// 3-byte character) streams no `content: ""` delta in chat, and no `text: ""` chunk in text
// completions; with logprobs asked for, its logprobs go out at once on a delta without text.
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('no empty deltas');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

/** GPT-2's byte tokens for 語 (E8 AA 9E): biased up, the model spells 語 a byte at a time. */
const GO_BYTES = { 164: 50, 103: 50, 252: 50 };
const forced = { type: 'regex', pattern: 'a語b語c' } as unknown as OpenAI.ResponseFormatText;

test('streamed chat: no content "" delta before the finish, with and without logprobs', async ({ s }) => {
  for (const logprobs of [false, true]) {
    const stream = await s.client.chat.completions.create({
      model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'Say it.' }], temperature: 0, max_tokens: 20,
      logit_bias: GO_BYTES, response_format: forced, logprobs, stream: true,
    });
    let content = '';
    let tokens = 0;
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    for (const [i, chunk] of chunks.entries()) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta as { role?: string; content?: string | null };
      content += delta.content ?? '';
      tokens += choice.logprobs?.content?.length ?? 0;
      if (i === 0 && delta.role === 'assistant') continue; // the role chunk, as OpenAI sends it
      if (choice.finish_reason === null) {
        assert.is.not(delta.content, '', `chunk ${i} (logprobs ${logprobs}): ${JSON.stringify(chunk.choices)}`);
        assert.ok(delta.content !== undefined || choice.logprobs?.content?.length, `chunk ${i} carries text or logprobs`);
      }
    }
    assert.is(content, 'a語b語c');
    if (logprobs) assert.ok(tokens >= 9, `every token's logprobs went out (${tokens})`);
  }
});

test('streamed text completion: no text "" chunk before the finish', async ({ s }) => {
  const stream = await s.client.completions.create({
    model: TINY_MODEL_ID, prompt: 'Say it.', temperature: 0, max_tokens: 20, logit_bias: GO_BYTES, stream: true,
    response_format: forced,
  } as OpenAI.CompletionCreateParamsStreaming);
  let text = '';
  for await (const chunk of stream) {
    const choice = chunk.choices[0]!;
    text += choice.text;
    if (choice.finish_reason === null) assert.is.not(choice.text, '');
  }
  assert.is(text, 'a語b語c');
});

test.run();
