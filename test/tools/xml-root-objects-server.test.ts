// A tool whose parameters are a root allOf of a $ref and properties beside it (as pydantic writes
// a model that extends another), through the real server in the XML formats that leave a value's
// type to the schema (--tool-format), on the tiny random-weight model and its real GPT-2
// vocabulary, driven by the official client: whatever the model samples, the arguments validate.
// A string of digits is a string: it came back a number, as the reader typed parameters by the
// root's own `properties` only (and in deepseek_xml by its string="true|false" flag, which the
// grammar does not check against the type).
import { Ajv2020 } from 'ajv/dist/2020.js';
import type OpenAI from 'openai';
import { suite } from 'uvu';
import { oneValidCall } from './helpers.js';
import { startTinyServer, TINY_MODEL_ID } from '../helpers/tiny-server.js';
import type { ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';

const test = suite('xml formats: root objects made of parts, through the server');

const parameters = {
  $defs: { Base: { type: 'object', properties: { code: { type: 'string', pattern: '^[0-9]{1,3}$' } }, required: ['code'] } },
  allOf: [{ $ref: '#/$defs/Base' }],
  properties: { count: { type: 'integer', minimum: 0, maximum: 99 } },
  required: ['count'],
  unevaluatedProperties: false,
};
const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup', parameters } }];
const valid = new Ajv2020().compile(parameters);
const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Look up code 7.' }];

for (const key of ['qwen3_coder', 'glm', 'minimax', 'deepseek_v3_2'] as ToolFormatKey[]) {
  test(`${key}: required calls validate, a digit string a string`, async () => {
    const s = await startTinyServer({ server: { toolFormat: key }, engine: { overrides: { context_window_size: 1024 } } });
    try {
      for (let seed = 1; seed <= 2; seed++) {
        const body = { model: TINY_MODEL_ID, messages, tools, tool_choice: 'required' as const, parallel_tool_calls: false, max_tokens: 200, temperature: 1, seed };
        await oneValidCall(s.client, body, valid);
      }
    } finally {
      await s.close();
    }
  });
}

test.run();
