// tool_choice enforced while decoding, end to end: a tiny random-weight model (which has no idea
// what a tool is) behind the real server, driven by the official client. Whatever it samples,
// `required` and a named choice give well-formed calls whose arguments validate, `none` gives
// none, and parallel_tool_calls: false gives one at most.
import { Ajv } from 'ajv';
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { functionCalls } from './helpers.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';
import { DISTINCT_ITEMS_SCHEMA } from '../helpers/distinct-items-schema.js';

const test = suite<{ s: TinyServer }>('tool_choice end to end');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const weather = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 1, maxLength: 12 }, unit: { enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city'],
  additionalProperties: false,
};
const time = { type: 'object', properties: { zone: { enum: ['UTC', 'CET'] } }, required: ['zone'], additionalProperties: false };
const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: weather } },
  { type: 'function', function: { name: 'get_time', parameters: time } },
];
const ajv = new Ajv();
const validators: Record<string, (value: unknown) => boolean> = { get_weather: ajv.compile(weather), get_time: ajv.compile(time) };
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];

/** Every call names a tool and has arguments (an object, as the spec says) valid for it. */
function assertValidCalls(choice: OpenAI.ChatCompletion.Choice, label: string): void {
  for (const call of functionCalls(choice.message)) {
    assert.is(call.type, 'function');
    assert.match(call.id, /^call_/);
    const args = call.function.arguments as unknown;
    assert.type(args, 'object', `${label}: arguments are an object`);
    assert.ok(validators[call.function.name]?.(args), `${label}: ${call.function.name}(${JSON.stringify(args)})`);
  }
}

const ask = (s: TinyServer, body: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming>) =>
  s.client.chat.completions.create({ model: TINY_MODEL_ID, messages, tools, max_tokens: 120, temperature: 1, ...body });

test('required: every response starts with a valid call', async ({ s }) => {
  for (let seed = 1; seed <= 8; seed++) {
    const choice = (await ask(s, { seed, tool_choice: 'required' })).choices[0]!;
    assert.ok((choice.message.tool_calls?.length ?? 0) >= 1, `seed ${seed}: ${JSON.stringify(choice.message)}`);
    assertValidCalls(choice, `seed ${seed}`);
    // Calls only, as OpenAI's: no text around them (a next call's opener cut by max_tokens is
    // none), and the output ends after the last call unless max_tokens cut a further call short.
    assert.is(choice.message.content, null, `seed ${seed}: ${JSON.stringify(choice.message)}`);
    assert.ok(choice.finish_reason === 'tool_calls' || choice.finish_reason === 'length', `seed ${seed}: ${choice.finish_reason}`);
  }
});

test('required and named, cut short before the call opens: no markup as content, streamed alike', async ({ s }) => {
  for (const tool_choice of ['required', { type: 'function', function: { name: 'get_time' } }] as const) {
    for (const max_tokens of [1, 2, 3]) {
      const body = { seed: 1, tool_choice, max_tokens };
      const whole = (await ask(s, body)).choices[0]!;
      const label = `${JSON.stringify(tool_choice)}, max_tokens ${max_tokens}`;
      assert.is(whole.finish_reason, 'length', label);
      assert.is(whole.message.tool_calls, undefined, label);
      // The answer had to be a call: no text, so content null (as OpenAI's is beside a call), not the opener's tokens.
      assert.is(whole.message.content, null, `${label}: the opener's first tokens are not content`);
      const streamed = (await s.client.chat.completions.stream({ model: TINY_MODEL_ID, messages, tools, temperature: 1, ...body, stream: true }).finalChatCompletion()).choices[0]!;
      assert.is(streamed.message.content, null, `${label}: streamed alike`);
    }
  }
});

test('named: exactly one call to that function, finished as tool_calls', async ({ s }) => {
  for (let seed = 1; seed <= 8; seed++) {
    const choice = (await ask(s, { seed, tool_choice: { type: 'function', function: { name: 'get_time' } } })).choices[0]!;
    assert.is(choice.message.tool_calls?.length, 1, `seed ${seed}: ${JSON.stringify(choice.message)}`);
    assert.is(functionCalls(choice.message)[0]!.function.name, 'get_time');
    assert.is(choice.message.content, null);
    assert.is(choice.finish_reason, 'tool_calls');
    assertValidCalls(choice, `seed ${seed}`);
  }
});

test('a stop string on the call\'s closing markup leaves the call made (tool_calls); one inside its arguments cuts it, whole and streamed alike', async ({ s }) => {
  const named = { type: 'function', function: { name: 'get_time' } } as const;
  for (let seed = 1; seed <= 3; seed++) {
    const body = { seed, tool_choice: named, stop: ['</tool_call>'] };
    const whole = (await ask(s, body)).choices[0]!;
    assert.is(whole.finish_reason, 'tool_calls', `seed ${seed}: ${JSON.stringify(whole)}`);
    assert.is(whole.message.tool_calls?.length, 1);
    assertValidCalls(whole, `seed ${seed}`);
    const streamed = (await s.client.chat.completions.stream({ model: TINY_MODEL_ID, messages, tools, temperature: 1, max_tokens: 120, ...body, stream: true }).finalChatCompletion()).choices[0]!;
    assert.is(streamed.finish_reason, 'tool_calls', `seed ${seed}: streamed alike`);
    assert.equal(functionCalls(streamed.message).map((call) => call.function.name), ['get_time']);
  }
  const cut = (await ask(s, { seed: 1, tool_choice: named, stop: ['"zone"'] })).choices[0]!;
  assert.is(cut.finish_reason, 'stop');
  assert.is(cut.message.tool_calls, undefined, 'arguments cut short are not an object: the call is left out, as one cut by max_tokens');
});

test('parallel_tool_calls false: one call at most, and the output ends with it', async ({ s }) => {
  for (let seed = 1; seed <= 6; seed++) {
    const choice = (await ask(s, { seed, tool_choice: 'required', parallel_tool_calls: false })).choices[0]!;
    assert.is(choice.message.tool_calls?.length, 1, `seed ${seed}: ${JSON.stringify(choice.message)}`);
    assert.is(choice.finish_reason, 'tool_calls');
    assert.is(choice.message.content, null, 'nothing before or after the one call');
    assertValidCalls(choice, `seed ${seed}`);
  }
});

test('none: plain text, no calls, even with tools given', async ({ s }) => {
  for (let seed = 1; seed <= 4; seed++) {
    const choice = (await ask(s, { seed, tool_choice: 'none', max_tokens: 30 })).choices[0]!;
    assert.is(choice.message.tool_calls, undefined);
    assert.type(choice.message.content, 'string');
    assert.ok(choice.finish_reason === 'stop' || choice.finish_reason === 'length');
  }
});

test('auto: text, calls or both; every call valid; tool_calls only when calls were made', async ({ s }) => {
  for (let seed = 1; seed <= 6; seed++) {
    const choice = (await ask(s, { seed, max_tokens: 60 })).choices[0]!;
    const calls = choice.message.tool_calls?.length ?? 0;
    assert.ok(calls > 0 || typeof choice.message.content === 'string', `seed ${seed}: text or calls`);
    if (choice.finish_reason === 'tool_calls') assert.ok(calls > 0);
    if (calls === 0) assert.is.not(choice.finish_reason, 'tool_calls');
    assertValidCalls(choice, `seed ${seed}`);
  }
});

test('n > 1: each choice is parsed on its own', async ({ s }) => {
  const completion = await ask(s, { seed: 5, n: 3, tool_choice: { type: 'function', function: { name: 'get_weather' } } });
  assert.is(completion.choices.length, 3);
  const ids = new Set<string>();
  for (const choice of completion.choices) {
    assert.is(choice.message.tool_calls?.length, 1);
    assertValidCalls(choice, `choice ${choice.index}`);
    ids.add(functionCalls(choice.message)[0]!.id);
  }
  assert.is(ids.size, 3, 'call ids are unique in the completion');
});

test('a tool taking sets (Set[str], Set[int]): every call writes distinct items', async ({ s }) => {
  const valid = ajv.compile(DISTINCT_ITEMS_SCHEMA);
  const labelTools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'label', parameters: DISTINCT_ITEMS_SCHEMA } }];
  for (let seed = 1; seed <= 6; seed++) {
    const choice = (await ask(s, { seed, tools: labelTools, tool_choice: 'required', parallel_tool_calls: false, max_tokens: 200 })).choices[0]!;
    assert.is(choice.finish_reason, 'tool_calls', `seed ${seed}: ${JSON.stringify(choice.message)}`);
    for (const call of functionCalls(choice.message)) assert.ok(valid(call.function.arguments), `seed ${seed}: ${JSON.stringify(call.function.arguments)} (${JSON.stringify(valid.errors)})`);
  }
});

test.run();
