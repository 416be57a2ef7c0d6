// With --tool-call-arguments string, `function.arguments` is OpenAI's JSON string, and the
// streamed pieces concatenate to exactly that string (not just to equal JSON).
import { Ajv } from 'ajv';
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { functionCalls } from './helpers.js';
import { startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('tool-call arguments as a JSON string');

test.before(async (context) => {
  context.s = await startTinyServer({ server: { toolCallArguments: 'string' } });
});
test.after(async (context) => {
  await context.s.close();
});

const parameters = { type: 'object', properties: { city: { type: 'string', maxLength: 16 }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city', 'days'] };
const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters } }];

test('arguments are a JSON string that validates, identical whole and streamed', async ({ s }) => {
  const valid = new Ajv().compile(parameters);
  for (let seed = 1; seed <= 4; seed++) {
    const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: 'Weather?' }], tools, seed, tool_choice: 'required' as const, parallel_tool_calls: false, max_tokens: 80 };
    const whole = (await s.client.chat.completions.create(request)).choices[0]!;
    const call = functionCalls(whole.message)[0];
    assert.ok(call, `seed ${seed}: a call`);
    assert.type(call.function.arguments, 'string');
    assert.ok(valid(JSON.parse(call.function.arguments)), call.function.arguments);
    const streamed = (await s.client.chat.completions.stream({ ...request, stream: true }).finalChatCompletion()).choices[0]!;
    assert.is(functionCalls(streamed.message)[0]?.function.arguments, call.function.arguments, `seed ${seed}`);
    assert.is(streamed.finish_reason, 'tool_calls');
  }
});

test('a call cut short by max_tokens is in the whole response as far as it was streamed', async ({ s }) => {
  let cut = 0;
  for (let maxTokens = 30; maxTokens <= 70; maxTokens += 5) {
    const request = { model: TINY_MODEL_ID, messages: [{ role: 'user' as const, content: 'Weather?' }], tools, seed: 3, tool_choice: 'required' as const, max_tokens: maxTokens };
    const whole = (await s.client.chat.completions.create(request)).choices[0]!;
    const streamed = (await s.client.chat.completions.stream({ ...request, stream: true }).finalChatCompletion()).choices[0]!;
    const calls = (m: OpenAI.ChatCompletionMessage) => functionCalls(m).map((c) => ({ name: c.function.name, arguments: c.function.arguments }));
    assert.equal(calls(whole.message), calls(streamed.message), `max_tokens ${maxTokens}`);
    assert.is(whole.finish_reason, streamed.finish_reason);
    const last = calls(whole.message).at(-1);
    if (whole.finish_reason === 'length' && last) {
      try {
        JSON.parse(last.arguments);
      } catch {
        cut++;
      }
    }
  }
  assert.ok(cut > 0, 'some max_tokens cut a call inside its arguments');
});

test.run();
