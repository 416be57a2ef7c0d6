// The Kimi-K3, Cohere (JSON actions, cofl XML, Command-R's `Action:` lists) and Harmony formats
// through the real server (--tool-format), on the tiny random-weight model and its real GPT-2 vocabulary, driven by the
// official client: whatever the model samples, the grammar makes well-formed calls whose
// arguments validate (an enum written raw, a string-or-integer parameter), whole and streamed
// alike.
import { Ajv } from 'ajv';
import type OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { oneValidCall } from './helpers.js';
import { startTinyServer, TINY_MODEL_ID } from '../helpers/tiny-server.js';
import type { ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';

const test = suite('new families through the server');

const weather = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1, maxLength: 8 },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: { anyOf: [{ type: 'integer', minimum: 1, maximum: 7 }, { const: 'all' }] },
  },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: weather } }];
const valid = new Ajv().compile(weather);
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];

for (const key of ['kimi_k3', 'cohere', 'cohere_xml', 'command_r', 'harmony'] as ToolFormatKey[]) {
  test(`${key}: required calls validate, whole and streamed alike`, async () => {
    const s = await startTinyServer({ server: { toolFormat: key }, engine: { overrides: { context_window_size: 1024 } } });
    try {
      for (let seed = 1; seed <= 3; seed++) {
        const body = { model: TINY_MODEL_ID, messages, tools, tool_choice: 'required' as const, parallel_tool_calls: false, max_tokens: 300, temperature: 1, seed };
        const args = await oneValidCall(s.client, body, valid);
        // The same request streamed: the deltas accumulate to the same call.
        let streamedArgs = '';
        let name = '';
        for await (const chunk of await s.client.chat.completions.create({ ...body, stream: true })) {
          for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
            name += delta.function?.name ?? '';
            streamedArgs += delta.function?.arguments ?? '';
          }
        }
        assert.is(name, 'get_weather');
        assert.equal(JSON.parse(streamedArgs), args, `seed ${seed}: streamed arguments`);
      }
    } finally {
      await s.close();
    }
  });
}

test.run();
