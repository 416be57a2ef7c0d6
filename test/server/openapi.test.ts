// /openapi.json is what a generated client or a fuzzer follows: it lists /v1/completions, its
// rules between fields are the ones the server enforces (each documented rule, broken, is a 400
// naming its field), and real answers have every field its response schemas call required.
import { Ajv } from 'ajv';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertEnvelope } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; openapi: any }>('openapi');

test.before(async (context) => {
  context.s = await startTinyServer();
  context.openapi = await (await fetch(`${context.s.url}/openapi.json`)).json();
});
test.after(async (context) => {
  await context.s.close();
});

const ajv = new Ajv({ strict: false });
const model = TINY_MODEL_ID;
const chat = { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 };
const text = { model, prompt: 'hi', max_tokens: 2 };
const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];

/** For each documented rule (by endpoint and the field it names, with a note in brackets where two rules name one field), a request that breaks it. */
const breaking: Record<string, Record<string, object>> = {
  '/v1/chat/completions': {
    top_logprobs: { ...chat, top_logprobs: 2 },
    prompt_logprobs: { ...chat, stream: true, prompt_logprobs: 1 },
    stream_options: { ...chat, stream_options: { include_usage: true } },
    'stream_options.continuous_usage_stats': { ...chat, stream: true, stream_options: { continuous_usage_stats: true } },
    tool_choice: { ...chat, tool_choice: 'auto' },
    parallel_tool_calls: { ...chat, parallel_tool_calls: false },
    'messages[0].tool_call_id': { ...chat, messages: [{ role: 'tool', content: 'x' }] },
    'messages[0].tool_call_id (on a user message)': { ...chat, messages: [{ role: 'user', content: 'x', tool_call_id: 'c' }] },
    'messages[0].tool_calls': { ...chat, messages: [{ role: 'user', content: 'x', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }] },
    'messages[0].refusal': { ...chat, messages: [{ role: 'user', content: 'x', refusal: 'no' }] },
    'messages[0].annotations': { ...chat, messages: [{ role: 'user', content: 'x', annotations: [] }] },
    'messages[0].parsed': { ...chat, messages: [{ role: 'user', content: 'x', parsed: { a: 1 } }] },
    'messages[0].content': { ...chat, messages: [{ role: 'user' }] },
    'messages[0].content (a refusal part from the user)': { ...chat, messages: [{ role: 'user', content: [{ type: 'refusal', refusal: 'no' }] }] },
    'messages[0].content (structured data from the user)': { ...chat, messages: [{ role: 'user', content: [{ sky: 'sunny' }] }] },
  },
  '/v1/completions': {
    stream_options: { ...text, stream_options: { include_usage: true } },
    'stream_options.continuous_usage_stats': { ...text, stream: true, stream_options: { continuous_usage_stats: true } },
    suffix: { ...text, suffix: 'after' },
    prompt_logprobs: { ...text, stream: true, prompt_logprobs: 0 },
    truncate_prompt_tokens: { ...text, echo: true, truncate_prompt_tokens: 5 },
    max_tokens: { ...text, max_tokens: 0 },
  },
};

const documentedRules = (schema: any, at = ''): string[] => [
  ...(schema.allOf ?? []).filter((rule: any) => rule['x-param']).map((rule: any) => `${at}${rule['x-param']}`),
  ...(schema.properties?.messages ? documentedRules(schema.properties.messages.items, 'messages[0].') : []),
];

test('/v1/completions is listed with its request, response and stream schemas', ({ openapi }) => {
  const operation = openapi.paths['/v1/completions'].post;
  assert.ok(operation.requestBody.content['application/json'].schema.properties.prompt);
  assert.is(operation.responses['200'].content['application/json'].schema.properties.object.const, 'text_completion');
  assert.ok(operation.responses['200'].content['text/event-stream'].schema);
});

test('seed says what it guarantees, and names cache_prompt: false, which both endpoints take', ({ openapi }) => {
  for (const path of ['/v1/chat/completions', '/v1/completions']) {
    const properties = openapi.paths[path].post.requestBody.content['application/json'].schema.properties;
    assert.match(properties.seed.description, /when its prompt is computed the same way/);
    assert.match(properties.seed.description, /prefix cache .* cache_prompt: false/);
    assert.is(properties.cache_prompt.type, 'boolean');
    assert.is(properties.cache_prompt.default, true);
  }
});

test("the served document says what this server can answer: the served model, n up to max_num_sequence, token ids in the vocabulary", async ({ s, openapi }) => {
  const body = (path: string) => openapi.paths[path].post.requestBody.content['application/json'].schema;
  for (const path of ['/v1/chat/completions', '/v1/completions']) {
    const model = body(path).properties.model;
    assert.equal(model.enum, [TINY_MODEL_ID], path);
    assert.is(model.type, 'string');
    assert.is(body(path).properties.n.maximum, 4, `${path}: the tiny server's max_num_sequence`);
  }
  const text = body('/v1/completions');
  assert.is(text.properties.best_of.maximum, 4);
  const [, , ids, lists] = text.properties.prompt.anyOf;
  assert.is(ids.items.maximum, s.engine.info.vocabSize - 1);
  assert.is(lists.items.items.maximum, s.engine.info.vocabSize - 1);
  // At the edges the document allows, the server answers; one past them, it refuses naming the field.
  const validate = ajv.compile(text);
  const edge = { model, prompt: [[0, s.engine.info.vocabSize - 1]], n: 4, best_of: 4, max_tokens: 1 };
  assert.ok(validate(edge), ajv.errorsText(validate.errors));
  assert.is((await post(`${s.url}/v1/completions`, edge)).status, 200);
  for (const [param, past] of [['n', { ...edge, n: 5, best_of: 5 }], ['prompt[0][1]', { ...edge, prompt: [[0, s.engine.info.vocabSize]] }]] as const) {
    assert.not.ok(validate(past), param);
    assert.is(assertEnvelope(await post(`${s.url}/v1/completions`, past), 400).param, param);
  }
});

test('every documented rule is enforced: a request that breaks it fails the schema and gets a 400 naming its field', async ({ s, openapi }) => {
  for (const [path, examples] of Object.entries(breaking)) {
    const schema = openapi.paths[path].post.requestBody.content['application/json'].schema;
    const validate = ajv.compile(schema);
    const fieldOf = (key: string) => key.replace(/ \(.*\)$/, '');
    assert.equal(documentedRules(schema).sort(), Object.keys(examples).map(fieldOf).sort(), `${path}: each documented rule has an example here`);
    assert.ok(validate(path === '/v1/completions' ? text : chat), `${path}: a plain request follows the schema`);
    for (const [key, body] of Object.entries(examples)) {
      assert.not.ok(validate(body), `${path} ${key}: the documented schema refuses it`);
      const error = assertEnvelope(await post(`${s.url}${path}`, body), 400);
      assert.is(error.param, fieldOf(key), error.message);
    }
  }
});

const responseSchema = (openapi: any, path: string, type: string) => ajv.compile(openapi.paths[path].post.responses['200'].content[type].schema);

function assertFollows(validate: ReturnType<typeof ajv.compile>, value: unknown, what: string): void {
  assert.ok(validate(value), `${what}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`);
}

test('answers have every field the response schemas require, whole and streamed', async ({ s, openapi }) => {
  for (const [path, body] of [['/v1/chat/completions', { ...chat, logprobs: true, top_logprobs: 1 }], ['/v1/completions', { ...text, logprobs: 1 }]] as const) {
    const whole = await post(`${s.url}${path}`, body);
    assertFollows(responseSchema(openapi, path, 'application/json'), whole.json, `${path} whole`);
    // A prompt of several tokens, so that scored entries are there to check.
    const scored = await post(`${s.url}${path}`, { ...body, prompt_logprobs: 2, ...('prompt' in body ? { prompt: 'hi there, friend' } : {}) });
    assertFollows(responseSchema(openapi, path, 'application/json'), scored.json, `${path} whole, with prompt_logprobs`);
    assert.ok(JSON.stringify(scored.json).includes('"prompt_logprobs":[null,{'), JSON.stringify(scored.json));
    const stream = await post(`${s.url}${path}`, { ...body, stream: true, stream_options: { include_usage: true } });
    // Each event as OpenAPI describes an event stream: its data, a chunk as JSON text or the final [DONE].
    const eventSchema = openapi.paths[path].post.responses['200'].content['text/event-stream'].schema;
    const event = ajv.compile(eventSchema);
    const [done, json] = eventSchema.properties.data.anyOf;
    assert.is(done.const, '[DONE]');
    assert.is(json.contentMediaType, 'application/json');
    const [chunk, envelope] = json.contentSchema.anyOf.map((schema: object) => ajv.compile(schema));
    const data = [...stream.text.matchAll(/^data: (.*)$/gm)].map((match) => match[1]!);
    assert.is(data.at(-1), '[DONE]');
    for (const text of data) assertFollows(event, { data: text }, `${path} event`);
    for (const text of data.slice(0, -1)) assertFollows(chunk!, JSON.parse(text), `${path} chunk`);
    assert.not.ok(envelope!(JSON.parse(data[0]!)), 'a chunk is not an error envelope');
  }
  const models = await (await fetch(`${s.url}/v1/models`)).json();
  assertFollows(ajv.compile(openapi.paths['/v1/models'].get.responses['200'].content['application/json'].schema), models, '/v1/models');
  const refused = await post(`${s.url}/v1/completions`, { ...text, suffix: 'x' });
  assertFollows(ajv.compile(openapi.paths['/v1/completions'].post.responses.default.content['application/json'].schema), refused.json, 'an error');
});

test.run();
