// The default model through the Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`), called as
// its users call it: text, streamed text with usage, forced tool calls (whole and streamed), a tool
// loop that sends the result back, structured output, and the errors it raises. The SDK reads our
// responses through its own schemas, so a wire change that breaks it (a field renamed, arguments as
// an object instead of OpenAI's string, no usage in the stream) fails here rather than in a user's
// app. Served with `--tool-call-arguments string` and the provider options README.md names for it.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, isStepCount, Output, streamText, tool, type LanguageModelUsage } from 'ai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { recordingFetch, wire, type Exchange } from '../helpers/recording-fetch.js';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; provider: ReturnType<typeof createOpenAICompatible>; exchanges: Exchange[] }>('ai sdk');

test.before(async (context) => {
  context.s = await startDefaultModelServer({}, { toolCallArguments: 'string' });
  context.exchanges = [];
  context.provider = createOpenAICompatible({
    baseURL: `${context.s.url}/v1`,
    name: 'lmforge',
    apiKey: 'unused',
    // Without these the SDK sends a schema as plain json_object and asks for no streamed usage.
    supportsStructuredOutputs: true,
    includeUsage: true,
    fetch: recordingFetch(context.exchanges),
  });
});
test.before.each((context) => {
  context.exchanges.length = 0;
});
test.after(async (context) => {
  await context.s.close();
});

const system = 'You are a helpful assistant.';
const question = 'What is the capital of France?';
/** Greedy and short: this runs on a CPU, and a greedy answer is the same on every run. */
const settings = { temperature: 0, maxRetries: 0 } as const;

const weatherInput = z.object({ city: z.string().max(30), unit: z.enum(['celsius', 'fahrenheit']) });
const weatherPrompt = 'What is the weather like in Paris today, in celsius?';
const person = z.object({ name: z.string().max(20), age: z.number().int().min(0).max(120) });

function assertUsage(usage: LanguageModelUsage, maxOutputTokens: number, context: string): void {
  assert.ok(usage.inputTokens! > 0, `inputTokens: ${JSON.stringify(usage)} ${context}`);
  assert.ok(usage.outputTokens! > 0 && usage.outputTokens! <= maxOutputTokens, `outputTokens: ${JSON.stringify(usage)} ${context}`);
  assert.is(usage.totalTokens, usage.inputTokens! + usage.outputTokens!, `totalTokens: ${JSON.stringify(usage)}`);
}

test('generateText: text, a finish reason and usage', async ({ provider, exchanges }) => {
  const result = await generateText({ model: provider('smollm2'), system, prompt: question, maxOutputTokens: 32, ...settings });
  assert.ok(result.text.trim().length > 0, wire(exchanges));
  assert.ok(['stop', 'length'].includes(result.finishReason), `${result.finishReason} ${wire(exchanges)}`);
  assertUsage(result.usage, 32, wire(exchanges));
  assert.is(result.response.modelId, 'smollm2');
  assert.ok(result.response.id.length > 0);
});

test('streamText: the text is its deltas joined, and the finish part carries the reason and usage', async ({ provider, exchanges }) => {
  const result = streamText({ model: provider('smollm2'), system, prompt: 'Name three rivers.', maxOutputTokens: 32, ...settings });
  const deltas: string[] = [];
  const finishes: { finishReason: string; totalUsage: LanguageModelUsage }[] = [];
  const errors: unknown[] = [];
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') deltas.push(part.text);
    else if (part.type === 'finish') finishes.push(part);
    else if (part.type === 'error') errors.push(part.error);
  }
  assert.equal(errors, [], wire(exchanges));
  // Streamed token by token, not one lump at the end.
  assert.ok(deltas.length > 3, `${deltas.length} deltas ${wire(exchanges)}`);
  assert.is(await result.text, deltas.join(''));
  assert.ok(deltas.join('').trim().length > 0);
  assert.is(finishes.length, 1);
  assert.ok(['stop', 'length'].includes(finishes[0]!.finishReason), finishes[0]!.finishReason);
  assertUsage(finishes[0]!.totalUsage, 32, wire(exchanges));
  assert.equal(await result.usage, finishes[0]!.totalUsage);
});

test('generateText with a forced tool: one call, its input valid for the schema', async ({ provider, exchanges }) => {
  const result = await generateText({
    model: provider('smollm2'),
    prompt: weatherPrompt,
    tools: { weather: tool({ description: 'Get the current weather in a city', inputSchema: weatherInput }) },
    toolChoice: { type: 'tool', toolName: 'weather' },
    maxOutputTokens: 64,
    ...settings,
  });
  assert.is(result.finishReason, 'tool-calls', wire(exchanges));
  assert.is(result.toolCalls.length, 1, wire(exchanges));
  const call = result.toolCalls[0]!;
  assert.is(call.toolName, 'weather');
  // A call the SDK could not parse or match comes back dynamic and invalid, not as a throw.
  assert.not.ok(call.dynamic, `${JSON.stringify(call)} ${wire(exchanges)}`);
  assert.ok(weatherInput.safeParse(call.input).success, JSON.stringify(call.input));
  assert.ok(call.toolCallId.length > 0);
  assertUsage(result.usage, 64, wire(exchanges));
});

test('streamText with a forced tool: the input deltas join to the call, valid for the schema', async ({ provider, exchanges }) => {
  const result = streamText({
    model: provider('smollm2'),
    prompt: weatherPrompt,
    tools: { weather: tool({ description: 'Get the current weather in a city', inputSchema: weatherInput }) },
    toolChoice: { type: 'tool', toolName: 'weather' },
    maxOutputTokens: 64,
    ...settings,
  });
  const starts: string[] = [];
  let inputText = '';
  const calls: { toolName: string; input: unknown; dynamic?: boolean }[] = [];
  let finishReason: string | undefined;
  const errors: unknown[] = [];
  for await (const part of result.fullStream) {
    if (part.type === 'tool-input-start') starts.push(part.toolName);
    else if (part.type === 'tool-input-delta') inputText += part.delta;
    else if (part.type === 'tool-call') calls.push(part);
    else if (part.type === 'finish') finishReason = part.finishReason;
    else if (part.type === 'error') errors.push(part.error);
  }
  assert.equal(errors, [], wire(exchanges));
  assert.equal(starts, ['weather'], wire(exchanges));
  assert.is(calls.length, 1, wire(exchanges));
  assert.is(calls[0]!.toolName, 'weather');
  assert.not.ok(calls[0]!.dynamic, JSON.stringify(calls[0]));
  assert.ok(weatherInput.safeParse(calls[0]!.input).success, JSON.stringify(calls[0]!.input));
  assert.equal(JSON.parse(inputText), calls[0]!.input, inputText);
  assert.is(finishReason, 'tool-calls');
  assertUsage(await result.usage, 64, wire(exchanges));
});

test('a tool loop: the tool runs, its result goes back, and the second step answers', async ({ provider, exchanges }) => {
  const inputs: unknown[] = [];
  const forecast = { city: 'Paris', forecast: 'sunny', celsius: 21 };
  const result = await generateText({
    model: provider('smollm2'),
    prompt: weatherPrompt,
    tools: {
      weather: tool({
        description: 'Get the current weather in a city',
        inputSchema: weatherInput,
        execute: async (input) => {
          inputs.push(input);
          return forecast;
        },
      }),
    },
    // A call first, then an answer: this model, left to choose, may call again.
    prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? { type: 'tool', toolName: 'weather' } : 'none' }),
    stopWhen: isStepCount(2),
    maxOutputTokens: 48,
    ...settings,
  });
  assert.is(result.steps.length, 2, wire(exchanges));
  const [first, second] = result.steps;
  assert.is(first!.finishReason, 'tool-calls', wire(exchanges));
  assert.is(inputs.length, 1);
  assert.ok(weatherInput.safeParse(inputs[0]).success, JSON.stringify(inputs[0]));
  assert.equal(first!.toolResults.map((r) => r.output), [forecast]);
  // The second request carries the call and its result, and the server took it.
  assert.is(exchanges.length, 2);
  assert.is(exchanges[1]!.status, 200, wire(exchanges));
  const callId = first!.toolCalls[0]!.toolCallId;
  const sent: any[] = exchanges[1]!.request.messages;
  const assistant = sent.find((m) => m.role === 'assistant');
  assert.is(assistant?.tool_calls?.[0]?.id, callId, JSON.stringify(sent));
  const toolMessage = sent.find((m) => m.role === 'tool');
  assert.is(toolMessage?.tool_call_id, callId, JSON.stringify(sent));
  assert.equal(JSON.parse(toolMessage.content), forecast);
  assert.ok(['stop', 'length'].includes(second!.finishReason), `${second!.finishReason} ${wire(exchanges)}`);
  assert.ok(second!.text.trim().length > 0, wire(exchanges));
  assert.is(result.text, second!.text);
  assertUsage(second!.usage, 48, wire(exchanges));
});

test('generateText with Output.object: the output is an object the schema accepts', async ({ provider, exchanges }) => {
  const result = await generateText({
    model: provider('smollm2'),
    prompt: 'Make up a person as JSON with a name and an age.',
    output: Output.object({ schema: person }),
    maxOutputTokens: 64,
    ...settings,
  });
  // The schema went as OpenAI's json_schema response format, which the server constrains to.
  assert.is(exchanges[0]!.request.response_format?.type, 'json_schema', wire(exchanges));
  assert.is(result.finishReason, 'stop', wire(exchanges));
  assert.ok(person.safeParse(result.output).success, JSON.stringify(result.output));
});

test('streamText with Output.object: partial objects, then an output the schema accepts', async ({ provider, exchanges }) => {
  const result = streamText({
    model: provider('smollm2'),
    prompt: 'Make up a person as JSON with a name and an age.',
    output: Output.object({ schema: person }),
    maxOutputTokens: 64,
    ...settings,
  });
  const partials: unknown[] = [];
  for await (const partial of result.partialOutputStream) partials.push(partial);
  assert.ok(partials.length > 1, `${JSON.stringify(partials)} ${wire(exchanges)}`);
  const output = await result.output;
  assert.ok(person.safeParse(output).success, JSON.stringify(output));
  assert.equal(partials.at(-1), output);
  assert.is(await result.finishReason, 'stop');
});

test('errors: an unknown model is a 404 APICallError, a temperature out of range a 400 naming it', async ({ provider }) => {
  const missing = await generateText({ model: provider('no-such-model'), prompt: 'hi', maxOutputTokens: 4, ...settings }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(APICallError.isInstance(missing), String(missing));
  assert.is(missing.statusCode, 404);
  assert.match(missing.message, /no-such-model/);
  assert.is(missing.isRetryable, false);

  const invalid = await generateText({ model: provider('smollm2'), prompt: 'hi', maxOutputTokens: 4, temperature: 5, maxRetries: 0 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(APICallError.isInstance(invalid), String(invalid));
  assert.is(invalid.statusCode, 400);
  assert.match(invalid.message, /temperature/);
  assert.is(JSON.parse(invalid.responseBody!).error.param, 'temperature');
});

test('errors: a streamed request to an unknown model ends in an error part, a 404 APICallError', async ({ provider }) => {
  const result = streamText({ model: provider('no-such-model'), prompt: 'hi', maxOutputTokens: 4, ...settings, onError: () => {} });
  const errors: unknown[] = [];
  for await (const part of result.fullStream) if (part.type === 'error') errors.push(part.error);
  assert.is(errors.length, 1);
  const error = errors[0];
  assert.ok(APICallError.isInstance(error), String(error));
  assert.is(error.statusCode, 404);
});

test.run();
