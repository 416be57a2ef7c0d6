// Tool calls on a reasoning model, end to end: the tiny model thinks freely (its generation
// prompt opens <think>), then under `required` or a named choice its output after `</think>` is
// a valid call. The split is checked against the raw tokens: reasoning_content is exactly the
// thinking, and the calls come from the text after `</think>`, never from the thinking.
import { Ajv } from 'ajv';
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { functionCalls } from './helpers.js';
import { CLOSE_THINKING_BIAS, rawText, startThinkServer, type ReasoningMessage } from './reasoning-helpers.js';
import { TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';

const test = suite<{ s: TinyServer }>('reasoning model tool calls');

test.before(async (context) => {
  context.s = await startThinkServer();
});
test.after(async (context) => {
  await context.s.close();
});

const weather = { type: 'object', properties: { city: { type: 'string', minLength: 1, maxLength: 12 }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'], additionalProperties: false };
const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: weather } }];
const valid = new Ajv().compile(weather);

function check(choice: OpenAI.ChatCompletion.Choice, at: string): void {
  const message = choice.message as ReasoningMessage;
  const raw = rawText(choice);
  const close = raw.indexOf('</think>');
  assert.ok(close >= 0, `${at}: the thinking ended`);
  assert.is(message.reasoning_content, raw.slice(0, close).trim(), `${at}: reasoning_content is the thinking`);
  const calls = functionCalls(message);
  assert.ok(calls.length >= 1, `${at}: ${JSON.stringify(message)}`);
  for (const call of calls) assert.ok(valid(call.function.arguments as unknown), `${at}: ${JSON.stringify(call.function.arguments)}`);
  // Content and calls are those written after </think>.
  const parser = new ToolCallParser(TOOL_FORMATS.hermes, new Map([['get_weather', weather]]), 'x');
  parser.push(raw.slice(close + '</think>'.length).trimStart()); // whitespace after </think> is not content
  parser.finish();
  assert.equal(calls.map((call) => call.function.arguments as unknown), parser.toolCalls.map((call) => JSON.parse(call.arguments) as unknown), at);
  assert.is(message.content, parser.message.content, `${at}: content`);
}

const ask = (s: TinyServer, body: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) =>
  s.client.chat.completions.create({
    model: TINY_MODEL_ID,
    messages: [{ role: 'user', content: 'Weather in Paris?' }],
    tools,
    max_tokens: 280,
    logprobs: true,
    logit_bias: CLOSE_THINKING_BIAS,
    ...body,
  });

test('required: thinking, then at least one valid call', async ({ s }) => {
  for (let seed = 1; seed <= 5; seed++) {
    const choice = (await ask(s, { seed, tool_choice: 'required' })).choices[0]!;
    // Calls made, then the model ended or (Hermes allows text after calls) max_tokens cut it.
    assert.ok(choice.finish_reason === 'tool_calls' || choice.finish_reason === 'length', `seed ${seed}: ${choice.finish_reason}`);
    check(choice, `seed ${seed}`);
  }
});

test('named, one call: exactly that call after the thinking', async ({ s }) => {
  for (let seed = 1; seed <= 5; seed++) {
    const choice = (await ask(s, { seed, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false })).choices[0]!;
    assert.is(choice.finish_reason, 'tool_calls', `seed ${seed}`);
    assert.is(choice.message.tool_calls?.length, 1);
    assert.is(choice.message.content, null, 'nothing but the call after the thinking');
    check(choice, `seed ${seed}`);
  }
});

test.run();
