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

test.run();
