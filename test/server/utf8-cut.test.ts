// Output that ends inside a multi-byte UTF-8 character (max_tokens cuts it there): the text ends
// with the last whole character, no U+FFFD is made up for the cut bytes, and logprobs still
// carry every token's bytes. Through HTTP on the tiny model, streamed and whole.
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('UTF-8 cut by max_tokens');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

/** GPT-2's byte token for 0xE8, the first of 語's three bytes (E8 AA 9E). */
const FIRST_BYTE_OF_GO = 164;

/** 語 twice, forced; the bias makes the model spell 語 byte by byte, so some max_tokens cut inside it. */
const request = (maxTokens: number) => ({
  model: TINY_MODEL_ID,
  messages: [{ role: 'user' as const, content: 'Say it.' }],
  max_tokens: maxTokens,
  temperature: 0,
  logprobs: true,
  logit_bias: { [FIRST_BYTE_OF_GO]: 50 },
  response_format: { type: 'regex', pattern: '語語' } as unknown as OpenAI.ResponseFormatText,
});

/** The whole characters the bytes hold, without an incomplete last one. */
const wholeCharacters = (bytes: number[]) => new TextDecoder().decode(Uint8Array.from(bytes), { stream: true });

test('cut inside a character: the text keeps whole characters only, logprobs keep the bytes, whole and streamed', async ({ s }) => {
  let cutsInside = 0;
  for (let maxTokens = 1; maxTokens <= 6; maxTokens++) {
    const whole = await s.client.chat.completions.create(request(maxTokens));
    const choice = whole.choices[0]!;
    const bytes = choice.logprobs!.content!.flatMap((entry) => entry.bytes!);
    const content = choice.message.content ?? '';
    assert.not.ok(content.includes('\uFFFD'), `max_tokens ${maxTokens}: ${JSON.stringify(content)}`);
    assert.is(content, wholeCharacters(bytes), `max_tokens ${maxTokens}`);
    assert.ok('語語'.startsWith(content));
    if (Buffer.byteLength(content) < bytes.length) {
      cutsInside++;
      assert.is(choice.finish_reason, 'length');
    }

    const stream = await s.client.chat.completions.create({ ...request(maxTokens), stream: true });
    let streamed = '';
    const streamedBytes: number[] = [];
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta.content ?? '';
      for (const entry of chunk.choices[0]?.logprobs?.content ?? []) streamedBytes.push(...entry.bytes!);
    }
    assert.is(streamed, content, `streamed, max_tokens ${maxTokens}`);
    assert.equal(streamedBytes, bytes, `streamed logprobs, max_tokens ${maxTokens}`);
  }
  assert.ok(cutsInside >= 2, `some max_tokens cut inside a character (${cutsInside} did)`);
});

test("a token that holds a piece of a character is named by its bytes, as OpenAI names it (U+FFFD lost them)", async ({ s }) => {
  const choice = (await s.client.chat.completions.create({ ...request(6), top_logprobs: 2 })).choices[0]!;
  const hex = (bytes: number[]) => bytes.map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
  const entries = choice.logprobs!.content!;
  assert.ok(entries.some((entry) => entry.bytes!.length > 0 && entry.bytes![0]! >= 0x80), 'the model spelt 語 in pieces');
  for (const entry of [...entries, ...entries.flatMap((e) => e.top_logprobs)]) {
    const whole = (() => {
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(entry.bytes!));
      } catch {
        return undefined;
      }
    })();
    assert.is(entry.token, whole ?? `bytes:${hex(entry.bytes!)}`, JSON.stringify(entry));
  }
  assert.ok(entries.some((entry) => entry.token === 'bytes:\\xe8'), entries.map((e) => e.token).join(' | '));
});

test.run();
