// Speculative decoding through the HTTP server and the official openai client: streamed and
// whole answers, tool calls included, are those of a server without speculation, and an
// accepted draft reaches the client as one chunk of several tokens.
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { functionCalls } from '../tools/helpers.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';
import { DISTINCT_ITEMS_SCHEMA } from '../helpers/distinct-items-schema.js';

const test = suite<{ plain: TinyServer; speculative: TinyServer }>('speculative decoding over HTTP');

test.before(async (context) => {
  context.plain = await startTinyServer();
  context.speculative = await startTinyServer({
    server: { tracing: true },
    engine: { speculativeMode: 'ngram', overrides: { context_window_size: 512, spec_draft_length: 4 }, tracing: true },
  });
});
test.after(async ({ plain, speculative }) => {
  await plain.close();
  await speculative.close();
});

// Text that repeats, so that prompt lookup finds continuations in it.
const repeated = Array.from({ length: 12 }, () => 'the quick brown fox jumps over the lazy dog').join(' ');

test('streamed answers equal the plain server\'s, and drafts arrive as multi-token chunks', async ({ plain, speculative }) => {
  let chunks = 0;
  let tokens = 0;
  for (let seed = 1; seed <= 4; seed++) {
    const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: repeated }], seed, max_tokens: 48, temperature: seed % 2 ? 0 : 0.8 };
    const expected = (await plain.client.chat.completions.create(request)).choices[0]!;
    const whole = (await speculative.client.chat.completions.create(request)).choices[0]!;
    assert.is(whole.message.content, expected.message.content, `seed ${seed}, whole`);
    assert.is(whole.finish_reason, expected.finish_reason);
    const stream = await speculative.client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) {
        text += delta;
        chunks++;
      }
      if (chunk.usage) tokens += chunk.usage.completion_tokens;
    }
    assert.is(text, expected.message.content, `seed ${seed}, streamed`);
  }
  assert.ok(chunks < tokens, `${tokens} tokens came in ${chunks} content chunks`);
});

const parameters = { type: 'object', properties: { city: { type: 'string', maxLength: 16 }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city', 'days'] };
const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather_forecast_for_city', parameters } }];

test('tool calls, whole and streamed, are the plain server\'s', async ({ plain, speculative }) => {
  // Whole answers carry arguments as an object (--tool-call-arguments object); the client's stream helper joins the streamed pieces into a string.
  const argumentsOf = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
  const calls = (message: OpenAI.ChatCompletionMessage) => functionCalls(message).map((c) => ({ name: c.function.name, arguments: argumentsOf(c.function.arguments) }));
  for (let seed = 1; seed <= 4; seed++) {
    const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: 'Weather?' }], tools, seed, tool_choice: 'required' as const, max_tokens: 80 };
    const expected = (await plain.client.chat.completions.create(request)).choices[0]!;
    assert.ok(calls(expected.message).length > 0, `seed ${seed}: a call`);
    const whole = (await speculative.client.chat.completions.create(request)).choices[0]!;
    const streamed = (await speculative.client.chat.completions.stream({ ...request, stream: true }).finalChatCompletion()).choices[0]!;
    assert.equal(calls(whole.message), calls(expected.message), `seed ${seed}, whole`);
    assert.equal(calls(streamed.message), calls(expected.message), `seed ${seed}, streamed`);
    assert.is(streamed.finish_reason, expected.finish_reason);
  }
  const stats = await speculative.engine.stats();
  assert.ok(stats.acceptedDraftTokens > 0, 'the forced tool-call text was drafted and accepted');
});

test('uniqueItems held by the matcher (rolled back with every rejected draft) gives the plain server\'s answers, distinct items and all', async ({ plain, speculative }) => {
  const response_format = { type: 'json_schema' as const, json_schema: { name: 'sets', schema: DISTINCT_ITEMS_SCHEMA, strict: true } };
  for (let seed = 1; seed <= 4; seed++) {
    const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: repeated }], seed, max_tokens: 200, temperature: seed % 2 ? 0 : 1, response_format };
    const expected = (await plain.client.chat.completions.create(request)).choices[0]!;
    const whole = (await speculative.client.chat.completions.create(request)).choices[0]!;
    assert.is(whole.message.content, expected.message.content, `seed ${seed}`);
    assert.is(expected.finish_reason, 'stop', `seed ${seed}: ${expected.message.content}`);
    const value = JSON.parse(expected.message.content!) as { codes: string[]; nums: number[] };
    assert.is(new Set(value.codes).size, value.codes.length, expected.message.content!);
    assert.is(new Set(value.nums).size, value.nums.length, expected.message.content!);
  }
});

test("the local servers' sampling fields (penalties, DRY, XTC, truncation) give the plain server's answers, drafts and all", async ({ plain, speculative }) => {
  const fields = [
    { temperature: 0, repetition_penalty: 1.3, dry_multiplier: 0.8 },
    { temperature: 0.9, top_k: 20, min_p: 0.05, typical_p: 0.95, xtc_probability: 0.5, xtc_threshold: 0.15, repeat_penalty: 1.2, dry_multiplier: 0.5, dry_allowed_length: 3 },
    { temperature: 1, top_n_sigma: 1.5, dry_multiplier: 0.8, dry_sequence_breakers: [] },
  ];
  for (const [i, extra] of fields.entries()) {
    for (let seed = 1; seed <= 2; seed++) {
      const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: repeated }], seed, max_tokens: 48, ...extra } as never;
      const expected = (await plain.client.chat.completions.create(request)) as OpenAI.ChatCompletion;
      const whole = (await speculative.client.chat.completions.create(request)) as OpenAI.ChatCompletion;
      assert.is(whole.choices[0]!.message.content, expected.choices[0]!.message.content, `fields ${i}, seed ${seed}`);
    }
  }
});

test('the trace shows each verification with the draft tokens proposed and accepted', async ({ speculative }) => {
  const response = await speculative.client.chat.completions.create({ model: TINY_MODEL_ID, messages: [{ role: 'user', content: repeated }], max_tokens: 40, temperature: 0 });
  const trace = (await (await fetch(`${speculative.url}/debug/trace?request_id=${response.id}`)).json()) as { traceEvents: { name: string; args: any }[] };
  const verifications = trace.traceEvents.filter((event) => event.name === 'speculation');
  assert.ok(verifications.length > 0, 'verifications are traced');
  let accepted = 0;
  for (const { args } of verifications) {
    assert.ok(args.proposed >= 1 && args.proposed <= 4, `proposed ${args.proposed}`);
    assert.ok(args.accepted >= 0 && args.accepted <= args.proposed);
    assert.type(args.step, 'number');
    accepted += args.accepted;
  }
  // Every token after the first comes from a step: one per step, plus the drafts accepted in it.
  const steps = trace.traceEvents.filter((event) => event.name === 'decode step').length;
  assert.is(steps + accepted, response.usage!.completion_tokens - 1 + (response.choices[0]!.finish_reason === 'stop' ? 1 : 0));
});

test.run();
