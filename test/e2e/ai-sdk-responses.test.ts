// The default model through the Vercel AI SDK's OpenAI provider (`@ai-sdk/openai`), whose
// `openai(model)` speaks the Responses API (POST /v1/responses): text, a stream with usage, a
// forced tool call sent back with its result, structured output. The server keeps its default
// `--tool-call-arguments object`: on this API a call's arguments are always JSON text, so this
// path needs no flag, where the chat path does (ai-sdk.test.ts).
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, Output, streamText, tool } from 'ai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { recordingFetch, wire, type Exchange } from '../helpers/recording-fetch.js';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; openai: ReturnType<typeof createOpenAI>; exchanges: Exchange[] }>('ai sdk, responses api');

test.before(async (context) => {
  context.s = await startDefaultModelServer();
  context.exchanges = [];
  context.openai = createOpenAI({ baseURL: `${context.s.url}/v1`, apiKey: 'unused', fetch: recordingFetch(context.exchanges) });
});
test.before.each((context) => {
  context.exchanges.length = 0;
});
test.after(async (context) => {
  await context.s.close();
});

const settings = { temperature: 0, maxRetries: 0 } as const;

test('generateText goes to /v1/responses and comes back with text, a finish reason and usage', async ({ openai, exchanges }) => {
  const result = await generateText({ model: openai('smollm2'), prompt: 'What is the capital of France?', maxOutputTokens: 32, ...settings });
  assert.ok(result.text.length > 0, wire(exchanges));
  assert.ok(['stop', 'length'].includes(result.finishReason), result.finishReason);
  assert.ok(result.usage.inputTokens! > 0 && result.usage.outputTokens! > 0 && result.usage.outputTokens! <= 32, JSON.stringify(result.usage));
  assert.is(result.usage.totalTokens, result.usage.inputTokens! + result.usage.outputTokens!);
  assert.is(exchanges.length, 1);
  assert.match(exchanges[0]!.body, /"object":"response"/);
});

test('streamText: the deltas join to the text; the finish and usage arrive', async ({ openai, exchanges }) => {
  const result = streamText({ model: openai('smollm2'), prompt: 'Say hello.', maxOutputTokens: 24, ...settings });
  let deltas = '';
  const errors: unknown[] = [];
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') deltas += part.text;
    else if (part.type === 'error') errors.push(part.error);
  }
  assert.equal(errors, [], wire(exchanges));
  assert.ok(deltas.length > 0);
  assert.is(deltas, await result.text);
  assert.ok(['stop', 'length'].includes(await result.finishReason));
  const usage = await result.usage;
  assert.ok(usage.outputTokens! > 0 && usage.outputTokens! <= 24, JSON.stringify(usage));
  assert.match(exchanges[0]!.body, /event: response\.completed|event: response\.incomplete/);
});

test('a forced tool call: its input valid for the schema, and its result sent back as a function_call_output', async ({ openai, exchanges }) => {
  const input = z.object({ city: z.string().max(30) });
  const result = await generateText({
    model: openai('smollm2'),
    prompt: 'What is the weather in Paris?',
    tools: { weather: tool({ description: 'Get the current weather in a city', inputSchema: input, execute: async () => ({ celsius: 20 }) }) },
    toolChoice: { type: 'tool', toolName: 'weather' },
    stopWhen: isStepCount(2),
    maxOutputTokens: 48,
    ...settings,
  });
  const [first] = result.steps;
  assert.is(first!.toolCalls.length, 1, wire(exchanges));
  assert.ok(input.safeParse(first!.toolCalls[0]!.input).success, JSON.stringify(first!.toolCalls[0]!.input));
  assert.is(first!.toolResults.length, 1);
  assert.is(exchanges.length, 2, 'a second step');
  const sent = exchanges[1]!.request.input as { type?: string; call_id?: string }[];
  const call = sent.find((item) => item.type === 'function_call');
  const output = sent.find((item) => item.type === 'function_call_output');
  assert.ok(call && output && output.call_id === call.call_id, JSON.stringify(sent));
  assert.is(exchanges[1]!.status, 200, exchanges[1]!.body.slice(0, 400));
});

test('Output.object: an object the schema accepts (text.format json_schema, enforced while decoding)', async ({ openai, exchanges }) => {
  const schema = z.object({ name: z.string().max(20), age: z.number().int().min(0).max(120) });
  const result = await generateText({ model: openai('smollm2'), prompt: 'Invent a person.', output: Output.object({ schema }), maxOutputTokens: 64, ...settings });
  assert.ok(schema.safeParse(result.output).success, `${JSON.stringify(result.output)} ${wire(exchanges)}`);
  assert.is(exchanges[0]!.request.text.format.type, 'json_schema');
});

test.run();
