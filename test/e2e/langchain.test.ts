// The default model through LangChain.js (`ChatOpenAI` from `@langchain/openai`), called as its
// users call it: invoke and stream with usage, bindTools with a forced tool (whole and streamed),
// a tool result sent back, withStructuredOutput, and the errors it raises. LangChain parses our
// responses its own way (a call whose arguments it cannot parse goes to `invalid_tool_calls`, not
// to an error), so a wire change that breaks it fails here rather than in a user's app. Served
// with `--tool-call-arguments string`, as README.md tells LangChain users.
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, type ChatOpenAIFields } from '@langchain/openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { recordingFetch, wire, type Exchange } from '../helpers/recording-fetch.js';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; exchanges: Exchange[]; chat: (fields?: ChatOpenAIFields) => ChatOpenAI }>('langchain');

test.before(async (context) => {
  context.s = await startDefaultModelServer({}, { toolCallArguments: 'string' });
  context.exchanges = [];
  const fetch = recordingFetch(context.exchanges);
  // Greedy and short: this runs on a CPU, and a greedy answer is the same on every run.
  context.chat = (fields = {}) =>
    new ChatOpenAI({ model: 'smollm2', apiKey: 'unused', temperature: 0, maxTokens: 48, maxRetries: 0, configuration: { baseURL: `${context.s.url}/v1`, fetch }, ...fields });
});
test.before.each((context) => {
  context.exchanges.length = 0;
});
test.after(async (context) => {
  await context.s.close();
});

const messages = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'What is the capital of France?' },
];
const weatherInput = z.object({ city: z.string().max(30), unit: z.enum(['celsius', 'fahrenheit']) });
const weatherPrompt = 'What is the weather like in Paris today, in celsius?';
const weather = tool(async ({ city }) => `sunny in ${city}`, { name: 'weather', description: 'Get the current weather in a city', schema: weatherInput });
const person = z.object({ name: z.string().max(20), age: z.number().int().min(0).max(120) });

function assertUsage(message: AIMessage | AIMessageChunk, maxTokens: number, context: string): void {
  const usage = message.usage_metadata;
  assert.ok(usage, `no usage_metadata ${context}`);
  assert.ok(usage.input_tokens > 0, `input_tokens: ${JSON.stringify(usage)} ${context}`);
  assert.ok(usage.output_tokens > 0 && usage.output_tokens <= maxTokens, `output_tokens: ${JSON.stringify(usage)} ${context}`);
  assert.is(usage.total_tokens, usage.input_tokens + usage.output_tokens, JSON.stringify(usage));
}

test('invoke: an AIMessage with content, a finish reason and usage', async ({ chat, exchanges }) => {
  const message = await chat().invoke(messages);
  assert.instance(message, AIMessage);
  assert.type(message.content, 'string');
  assert.ok((message.content as string).trim().length > 0, wire(exchanges));
  assert.ok(['stop', 'length'].includes(message.response_metadata.finish_reason as string), wire(exchanges));
  assert.is(message.response_metadata.model_name, 'smollm2');
  assertUsage(message, 48, wire(exchanges));
});

test('stream: the chunks join to the content, and the last one carries the usage', async ({ chat, exchanges }) => {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of await chat({ streamUsage: true }).stream(messages)) chunks.push(chunk);
  assert.ok(chunks.length > 3, `${chunks.length} chunks ${wire(exchanges)}`);
  const joined = chunks.map((chunk) => chunk.content as string).join('');
  assert.ok(joined.trim().length > 0, wire(exchanges));
  const whole = chunks.reduce((sum, chunk) => sum.concat(chunk));
  assert.is(whole.content, joined);
  // One usage, at the end (LangChain adds up every chunk's: usage twice would count twice).
  const withUsage = chunks.filter((chunk) => chunk.usage_metadata !== undefined);
  assert.is(withUsage.length, 1, JSON.stringify(withUsage.map((chunk) => chunk.usage_metadata)));
  assert.is(withUsage[0], chunks.at(-1));
  assertUsage(whole, 48, wire(exchanges));
  assert.ok(['stop', 'length'].includes(whole.response_metadata.finish_reason as string), JSON.stringify(whole.response_metadata));
});

test('bindTools with a forced tool, invoked: one valid call, no invalid ones', async ({ chat, exchanges }) => {
  const message = await chat({ maxTokens: 64 }).bindTools([weather], { tool_choice: 'weather' }).invoke(weatherPrompt);
  // A call whose arguments LangChain cannot parse lands here, with no error raised.
  assert.equal(message.invalid_tool_calls, [], wire(exchanges));
  assert.is(message.tool_calls?.length, 1, wire(exchanges));
  const call = message.tool_calls![0]!;
  assert.is(call.name, 'weather');
  assert.ok(call.id && call.id.length > 0);
  assert.ok(weatherInput.safeParse(call.args).success, JSON.stringify(call.args));
  assert.is(message.response_metadata.finish_reason, 'tool_calls');
  assertUsage(message, 64, wire(exchanges));
});

test('bindTools with a forced tool, streamed: the tool_call_chunks join to one valid call', async ({ chat, exchanges }) => {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of await chat({ maxTokens: 64 }).bindTools([weather], { tool_choice: 'weather' }).stream(weatherPrompt)) chunks.push(chunk);
  const whole = chunks.reduce((sum, chunk) => sum.concat(chunk));
  assert.equal(whole.invalid_tool_calls, [], wire(exchanges));
  assert.is(whole.tool_calls?.length, 1, wire(exchanges));
  const call = whole.tool_calls![0]!;
  assert.is(call.name, 'weather');
  assert.ok(weatherInput.safeParse(call.args).success, JSON.stringify(call.args));
  // The call came as chunks of argument text, and they join to the parsed arguments.
  const pieces = chunks.flatMap((chunk) => chunk.tool_call_chunks ?? []);
  assert.ok(pieces.length > 0, wire(exchanges));
  assert.equal(JSON.parse(pieces.map((piece) => piece.args ?? '').join('')), call.args);
  assertUsage(whole, 64, wire(exchanges));
});

test('a tool result sent back as a ToolMessage is answered', async ({ chat, exchanges }) => {
  const call = { id: 'call_weather_1', name: 'weather', args: { city: 'Paris', unit: 'celsius' }, type: 'tool_call' as const };
  // tool_choice none: an answer now, not another call.
  const message = await chat().bindTools([weather], { tool_choice: 'none' }).invoke([
    new HumanMessage(weatherPrompt),
    new AIMessage({ content: '', tool_calls: [call] }),
    new ToolMessage({ tool_call_id: call.id, content: 'Sunny, 21 degrees celsius.' }),
  ]);
  assert.is(exchanges[0]!.status, 200, wire(exchanges));
  // LangChain sends the call's arguments as OpenAI's JSON string.
  const sent: any[] = exchanges[0]!.request.messages;
  assert.equal(JSON.parse(sent[1].tool_calls[0].function.arguments), call.args);
  assert.is(sent[2].tool_call_id, call.id);
  assert.equal(message.tool_calls, [], wire(exchanges));
  assert.ok((message.content as string).trim().length > 0, wire(exchanges));
  assert.ok(['stop', 'length'].includes(message.response_metadata.finish_reason as string), wire(exchanges));
  assertUsage(message, 48, wire(exchanges));
});

test('withStructuredOutput, method jsonSchema: an object the schema accepts', async ({ chat, exchanges }) => {
  const output = await chat({ maxTokens: 64 }).withStructuredOutput(person, { method: 'jsonSchema' }).invoke('Make up a person with a name and an age.');
  assert.is(exchanges[0]!.request.response_format?.type, 'json_schema', wire(exchanges));
  assert.ok(person.safeParse(output).success, `${JSON.stringify(output)} ${wire(exchanges)}`);
});

test('withStructuredOutput, method functionCalling: an object the schema accepts', async ({ chat, exchanges }) => {
  const output = await chat({ maxTokens: 64 }).withStructuredOutput(person, { method: 'functionCalling', name: 'person' }).invoke('Make up a person with a name and an age.');
  assert.is(exchanges[0]!.request.tool_choice?.function?.name, 'person', wire(exchanges));
  assert.ok(person.safeParse(output).success, `${JSON.stringify(output)} ${wire(exchanges)}`);
});

test('errors: an unknown model is a 404 naming the model, a temperature out of range a 400 naming it', async ({ chat }) => {
  const missing: any = await chat({ model: 'no-such-model' }).invoke('hi').then(() => undefined, (error: unknown) => error);
  assert.ok(missing, 'no error');
  assert.is(missing.status, 404, String(missing));
  assert.is(missing.lc_error_code, 'MODEL_NOT_FOUND');
  assert.is(missing.code, 'model_not_found');
  assert.is(missing.param, 'model');
  assert.match(missing.message, /no-such-model/);

  const invalid: any = await chat({ temperature: 5 }).invoke('hi').then(() => undefined, (error: unknown) => error);
  assert.ok(invalid, 'no error');
  assert.is(invalid.status, 400, String(invalid));
  assert.is(invalid.param, 'temperature');
  assert.match(invalid.message, /temperature/);
});

test.run();
