// Streamed tool calls, accumulated by the official client's own stream helper, give exactly the
// non-streamed result for the same seed: same content, same calls (names and arguments), same
// finish reason; and the deltas have OpenAI's shape (id, type and name first, then arguments).
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { functionCalls } from './helpers.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('streamed tool calls');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 20 }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'] },
    },
  },
  { type: 'function', function: { name: 'note', parameters: { type: 'object', properties: { text: { type: 'string', maxLength: 30 } }, required: ['text'] } } },
];
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris, and take a note.' }];

const CASES: { label: string; body: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> }[] = [
  { label: 'required', body: { tool_choice: 'required', max_tokens: 90 } },
  { label: 'required, cut by max_tokens', body: { tool_choice: 'required', max_tokens: 14 } },
  { label: 'named', body: { tool_choice: { type: 'function', function: { name: 'note' } }, max_tokens: 90 } },
  { label: 'single', body: { tool_choice: 'required', parallel_tool_calls: false, max_tokens: 90 } },
  { label: 'auto', body: { max_tokens: 40 } },
];

test('the client-accumulated stream equals the whole response, for every choice mode and many seeds', async ({ s }) => {
  for (const { label, body } of CASES) {
    for (let seed = 1; seed <= 4; seed++) {
      const request = { model: TINY_MODEL_ID, messages, tools, seed, temperature: 1, ...body };
      const whole = (await s.client.chat.completions.create(request)).choices[0]!;
      const streamed = (await s.client.chat.completions.stream({ ...request, stream: true }).finalChatCompletion()).choices[0]!;
      const at = `${label}, seed ${seed}`;
      assert.is(streamed.finish_reason, whole.finish_reason, at);
      // A forced call's role chunk says content: null, as OpenAI's does, so the client's message
      // is the whole one; under auto it starts at '' (the answer may be text) and holds only calls.
      if (label === 'auto') assert.is(streamed.message.content || null, whole.message.content || null, at);
      else assert.is(streamed.message.content, whole.message.content, at);
      const wholeCalls = functionCalls(whole.message);
      const streamedCalls = functionCalls(streamed.message).slice(0, wholeCalls.length);
      assert.equal(
        streamedCalls.map((call) => ({ name: call.function.name, arguments: JSON.parse(call.function.arguments) })),
        wholeCalls.map((call) => ({ name: call.function.name, arguments: call.function.arguments as unknown })),
        at,
      );
      if (whole.finish_reason !== 'length') assert.is(streamed.message.tool_calls?.length ?? 0, wholeCalls.length, `${at}: no extra calls`);
    }
  }
});

test('deltas: index, id, type and name in the first entry of a call, arguments in pieces after', async ({ s }) => {
  const stream = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, tools, seed: 3, tool_choice: 'required', max_tokens: 90, stream: true });
  const entries: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
  let finish: string | null = null;
  let first = true;
  for await (const chunk of stream) {
    if (first) assert.equal(chunk.choices[0]?.delta, { role: 'assistant', content: null, refusal: null }, 'the role chunk of a forced call, as OpenAI sends it');
    first = false;
    entries.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.ok(entries.length > 2, 'arguments arrive in several pieces');
  const call = entries[0]!;
  assert.is(call.index, 0);
  assert.match(call.id!, /^call_/);
  assert.is(call.type, 'function');
  assert.type(call.function?.name, 'string');
  for (const entry of entries.slice(1)) {
    if (entry.id === undefined) assert.is(entry.function?.name, undefined, 'the name is sent once');
  }
  assert.ok(finish === 'tool_calls' || finish === 'length');
});

test.run();
