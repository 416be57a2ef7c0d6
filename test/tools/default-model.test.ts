// The default model (SmolLM2-135M-Instruct, whose template knows no tools, so they reach it
// through the system block) answers a weather request with a valid call under `required`.
import { Ajv } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { functionCalls } from './helpers.js';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('default model tool call');

test.before(async (context) => {
  context.s = await startDefaultModelServer();
});
test.after(async (context) => {
  await context.s.close();
});

const parameters = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 1, maxLength: 40 }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city', 'unit'],
  additionalProperties: false,
};

test('a weather request under required gives a valid get_weather call', async ({ s }) => {
  const completion = await s.client.chat.completions.create({
    model: 'smollm2',
    messages: [{ role: 'user', content: 'What is the weather like in Paris today, in celsius?' }],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Get the current weather in a city', parameters } }],
    tool_choice: 'required',
    parallel_tool_calls: false,
    temperature: 0,
    max_tokens: 80,
  });
  const choice = completion.choices[0]!;
  assert.is(choice.finish_reason, 'tool_calls', JSON.stringify(choice.message));
  const call = functionCalls(choice.message)[0]!;
  assert.is(call.function.name, 'get_weather');
  const args = call.function.arguments as unknown as { city: string };
  assert.ok(new Ajv().compile(parameters)(args), JSON.stringify(args));
  assert.match(args.city, /paris/i, 'a small model still picks the city from the request');
});

test.run();
