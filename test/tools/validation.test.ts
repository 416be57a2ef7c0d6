// Bad tool requests are 400s that name the offending field, down to the spot inside a
// parameters schema, before anything is generated.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('tool request validation');

test.before(async (context) => {
  context.s = await startTinyServer();
});
test.after(async (context) => {
  await context.s.close();
});

const fn = (name: string, parameters: object = { type: 'object', properties: { x: { type: 'string' } } }) => ({ type: 'function', function: { name, parameters } });
const base = { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };

async function expect400(s: TinyServer, body: object, param: string, message?: RegExp) {
  const response = await post(`${s.url}/v1/chat/completions`, { ...base, ...body });
  assert.is(response.status, 400, response.text);
  assert.is(response.json.error.param, param, response.text);
  assert.is(response.json.error.type, 'invalid_request_error');
  if (message) assert.match(response.json.error.message, message);
}

test('tool_choice naming an unknown tool, or without tools', async ({ s }) => {
  await expect400(s, { tools: [fn('a')], tool_choice: { type: 'function', function: { name: 'b' } } }, 'tool_choice.function.name', /'b'/);
  await expect400(s, { tool_choice: 'required' }, 'tool_choice');
  await expect400(s, { tools: [fn('a')], tool_choice: 'sometimes' }, 'tool_choice');
  await expect400(s, { parallel_tool_calls: false }, 'parallel_tool_calls');
});

test("tool_choice's allowed_tools: names among the tools, a mode of auto or required; another type is named as such", async ({ s }) => {
  const allowed = (mode: string, ...names: string[]) => ({ type: 'allowed_tools', allowed_tools: { mode, tools: names.map((name) => ({ type: 'function', function: { name } })) } });
  await expect400(s, { tools: [fn('a')], tool_choice: allowed('required', 'a', 'b') }, 'tool_choice.allowed_tools.tools[1].function.name', /'b', which is not among the tools/);
  await expect400(s, { tools: [fn('a')], tool_choice: allowed('sometimes', 'a') }, 'tool_choice.allowed_tools.mode');
  await expect400(s, { tools: [fn('a')], tool_choice: allowed('auto') }, 'tool_choice.allowed_tools.tools');
  await expect400(s, { tools: [fn('a')], tool_choice: { type: 'allowed_tools' } }, 'tool_choice.allowed_tools');
  // It was told 'tool_choice.function' was missing.
  await expect400(s, { tools: [fn('a')], tool_choice: { type: 'custom', custom: { name: 'a' } } }, 'tool_choice.type', /must be one of "function", "allowed_tools"/);
});

test('allowed_tools limits calls to the tools it names, whatever the model would pick', async ({ s }) => {
  const tools = [fn('a'), fn('b'), { type: 'function', function: { name: 'c' } }];
  for (let seed = 0; seed < 4; seed++) {
    const tool_choice = { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'c' } }] } };
    const response = await post(`${s.url}/v1/chat/completions`, { ...base, max_tokens: 60, temperature: 1, seed, tools, tool_choice });
    assert.is(response.status, 200, response.text);
    const calls = response.json.choices[0].message.tool_calls as { function: { name: string } }[];
    assert.ok(calls.length > 0, response.text);
    assert.ok(calls.every((call) => call.function.name === 'c'), response.text);
  }
});

test('duplicate and malformed names, wrong tool type', async ({ s }) => {
  await expect400(s, { tools: [fn('a'), fn('b'), fn('a')] }, 'tools[2].function.name', /unique/);
  await expect400(s, { tools: [fn('has space')] }, 'tools[0].function.name');
  await expect400(s, { tools: [fn('x'.repeat(65))] }, 'tools[0].function.name');
  await expect400(s, { tools: [{ type: 'retrieval', function: { name: 'a' } }] }, 'tools[0].type');
});

test('a parameters schema that does not compile is named down to the spot', async ({ s }) => {
  const bad = { type: 'object', properties: { x: { type: 'array', items: { type: 'object' }, uniqueItems: true } } };
  await expect400(s, { tools: [fn('a'), fn('b'), fn('c', bad)] }, 'tools[2].function.parameters/properties/x/uniqueItems');
  await expect400(s, { tools: [fn('a', { type: 'string' })] }, 'tools[0].function.parameters/type', /object/);
  // nullable at the root let the arguments be null: a required call vanished, or its markup leaked into the arguments.
  await expect400(s, { tools: [fn('a', { type: 'object', nullable: true, properties: {} })] }, 'tools[0].function.parameters/nullable', /'nullable' at the root of its parameters would let them be null/);
  const response = await post(`${s.url}/v1/chat/completions`, { ...base, tools: [fn('c', bad)] });
  assert.is(response.json.error.code, 'invalid_tool_schema');
});

test('response_format beside tools: under auto the answer is the format or calls, required and named answer with calls; a bad format is named at response_format', async ({ s }) => {
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
  const flag = { type: 'object', properties: { x: { type: 'boolean' } }, required: ['x'], additionalProperties: false };
  const response_format = { type: 'json_schema', json_schema: { name: 'answer', schema } };
  const tokenOf = async (text: string) => ((await post(`${s.url}/tokenize`, { prompt: text, add_special_tokens: false })).json.tokens as number[])[0]!;
  // The first token decides the path: pushed toward `{` the answer is JSON, toward `<` a <tool_call>.
  for (const [lead, path] of [['{', 'answer'], ['<', 'call']] as const) {
    for (let seed = 1; seed <= 3; seed++) {
      // One short call (the bias stays on: more calls would be more `<`s).
      const body = { ...base, max_tokens: 80, seed, tools: [fn('a', flag)], parallel_tool_calls: false, response_format, logit_bias: { [await tokenOf(lead)]: 30 } };
      const response = await post(`${s.url}/v1/chat/completions`, body);
      assert.is(response.status, 200, response.text);
      const message = response.json.choices[0].message;
      if (path === 'answer') {
        assert.is(message.tool_calls, undefined, JSON.stringify(message));
        assert.type(JSON.parse(message.content).ok, 'boolean', `seed ${seed}: ${message.content}`);
      } else {
        assert.ok(message.tool_calls?.length > 0, `seed ${seed}: ${JSON.stringify(message)}`);
        assert.is(message.tool_calls[0].function.name, 'a');
        assert.is(response.json.choices[0].finish_reason, 'tool_calls');
      }
    }
  }
  for (const tool_choice of ['required', { type: 'function', function: { name: 'a' } }]) {
    const response = await post(`${s.url}/v1/chat/completions`, { ...base, max_tokens: 80, tools: [fn('a', flag)], parallel_tool_calls: false, tool_choice, response_format });
    assert.is(response.status, 200, response.text);
    assert.ok(response.json.choices[0].message.tool_calls?.length > 0, JSON.stringify(tool_choice));
  }
  const allowed = await post(`${s.url}/v1/chat/completions`, { ...base, max_tokens: 40, tools: [fn('a')], tool_choice: 'none', response_format: { type: 'json_object' } });
  assert.is(allowed.status, 200, allowed.text);
  assert.is(allowed.json.choices[0].message.tool_calls, undefined);
  const bad = { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'strin' } } } } };
  await expect400(s, { tools: [fn('a')], response_format: bad }, 'response_format.json_schema.schema/properties/a/type');
});

test('a model whose calls are bare JSON cannot take response_format beside tools under auto (the two could not be told apart); the Responses API takes text.format beside tools', async ({ s }) => {
  const llama = await startTinyServer({ server: { toolFormat: 'llama' } });
  try {
    const response = await post(`${llama.url}/v1/chat/completions`, { ...base, tools: [fn('a')], response_format: { type: 'json_object' } });
    assert.is(response.status, 400, response.text);
    assert.is(response.json.error.param, 'response_format');
    assert.match(response.json.error.message, /bare JSON/);
    // vLLM's name for the same format is named as sent.
    const guided = await post(`${llama.url}/v1/chat/completions`, { ...base, tools: [fn('a')], guided_json: { type: 'object' } });
    assert.is(guided.status, 400, guided.text);
    assert.is(guided.json.error.param, 'guided_json');
    assert.match(guided.json.error.message, /^'guided_json' with tools .* leave guided_json out/);
  } finally {
    await llama.close();
  }
  const tools = [{ type: 'function', name: 'a', parameters: { type: 'object', properties: { x: { type: 'boolean' } }, required: ['x'] } }];
  const format = { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false } };
  const response = await post(`${s.url}/v1/responses`, { model: TINY_MODEL_ID, input: 'hi', tools, parallel_tool_calls: false, text: { format }, max_output_tokens: 80 });
  assert.is(response.status, 200, response.text);
  const item = response.json.output.find((entry: { type: string }) => entry.type !== 'reasoning');
  if (item.type === 'function_call') assert.type(JSON.parse(item.arguments).x, 'boolean');
  else if (response.json.status === 'completed') assert.type(JSON.parse(item.content[0].text).ok, 'boolean');
});

test('valid tools without parameters or type are accepted', async ({ s }) => {
  const response = await post(`${s.url}/v1/chat/completions`, {
    ...base,
    max_tokens: 30,
    tools: [{ type: 'function', function: { name: 'now' } }, { type: 'function', function: { name: 'add', parameters: { properties: { a: { type: 'integer' } } } } }],
    tool_choice: 'required',
  });
  assert.is(response.status, 200, response.text);
});

test('a tool without parameters takes no arguments, as OpenAI defines it: its call is {} (any object was allowed, and ran to max_tokens)', async ({ s }) => {
  for (let seed = 0; seed < 3; seed++) {
    const response = await post(`${s.url}/v1/chat/completions`, {
      ...base,
      max_tokens: 60,
      temperature: 1,
      seed,
      tools: [{ type: 'function', function: { name: 'now' } }],
      tool_choice: { type: 'function', function: { name: 'now' } },
    });
    assert.is(response.status, 200, response.text);
    assert.is(response.json.choices[0].finish_reason, 'tool_calls', response.text);
    assert.equal(response.json.choices[0].message.tool_calls.map((call: { function: object }) => call.function), [{ name: 'now', arguments: {} }]);
  }
});

test.run();
