// POST /v1/responses through the official `openai` client (client.responses.create and .stream),
// on the tiny model: text whole and streamed (the same text), instructions as the system
// message, forced tool calls and their second turn, json_schema output, the output limit, the
// refusals of what this server cannot do, and answers that follow /openapi.json (stored
// responses and previous_response_id: responses-store.test.ts).
import { Ajv } from 'ajv';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertEnvelope } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; openapi: any }>('responses');

test.before(async (context) => {
  context.s = await startTinyServer();
  context.openapi = await (await fetch(`${context.s.url}/openapi.json`)).json();
});
test.after(async (context) => {
  await context.s.close();
});

const model = TINY_MODEL_ID;
const ajv = new Ajv({ strict: false });
const weatherParameters = {
  type: 'object',
  properties: { city: { enum: ['Paris', 'Rome', 'Oslo'] }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city', 'days'],
  additionalProperties: false,
};
const tools = [{ type: 'function' as const, name: 'get_weather', description: 'The weather forecast for a city.', parameters: weatherParameters, strict: true }];

/** Every event of a streamed response, checked for order: sequence numbers 0, 1, 2, ... */
async function eventsOf(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  assert.equal(events.map((event) => event.sequence_number), events.map((_, i) => i));
  return events;
}

const deltasOf = (events: ResponseStreamEvent[], type: string) => events.filter((event) => event.type === type).map((event) => (event as { delta: string }).delta).join('');

test('a whole response: one message with the text, the output limit as incomplete, usage that adds up', async ({ s }) => {
  const response = await s.client.responses.create({ model, input: 'Tell me a story about a fox.', max_output_tokens: 10, temperature: 0, metadata: { run: 'a' }, store: true });
  assert.match(response.id, /^resp_/);
  assert.is(response.object, 'response');
  assert.is(response.model, model);
  assert.is(response.status, 'incomplete');
  assert.equal(response.incomplete_details, { reason: 'max_output_tokens' });
  assert.is(response.error, null);
  assert.equal(response.metadata, { run: 'a' });
  assert.is((response as { store?: boolean }).store, true, 'kept, as asked (responses-store.test.ts)');
  assert.is(response.max_output_tokens, 10);
  assert.is(response.temperature, 0);
  assert.is(response.output.length, 1);
  const message = response.output[0]!;
  assert.is(message.type, 'message');
  if (message.type !== 'message') return;
  assert.match(message.id, /^msg_/);
  assert.is(message.role, 'assistant');
  const part = message.content[0]!;
  assert.is(part.type, 'output_text');
  if (part.type !== 'output_text') return;
  assert.ok(part.text.length > 0);
  assert.equal(part.annotations, []);
  assert.is(response.output_text, part.text, "the SDK's output_text");
  const usage = response.usage!;
  assert.is(usage.output_tokens, 10);
  assert.ok(usage.input_tokens > 5);
  assert.is(usage.total_tokens, usage.input_tokens + usage.output_tokens);
  assert.is(usage.output_tokens_details.reasoning_tokens, 0);
  assert.type(usage.input_tokens_details.cached_tokens, 'number');
});

test('streamed: the events in order, their deltas the same text as the whole response, usage the same', async ({ s }) => {
  const request = { model, input: 'Name three rivers.', max_output_tokens: 12, temperature: 0 };
  const whole = await s.client.responses.create(request);
  const events = await eventsOf(await s.client.responses.create({ ...request, stream: true }));
  assert.equal(events.slice(0, 4).map((event) => event.type), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
  assert.equal(events.slice(-4).map((event) => event.type), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.incomplete']);
  assert.is(deltasOf(events, 'response.output_text.delta'), whole.output_text);
  const last = events.at(-1)!;
  if (last.type !== 'response.incomplete') return assert.unreachable();
  assert.equal(last.response.output, whole.output.map((item) => ({ ...item, id: item.id!.replace(whole.id.slice(5), last.response.id.slice(5)) })));
  assert.is(last.response.usage!.output_tokens, whole.usage!.output_tokens);
  assert.is(last.response.usage!.input_tokens, whole.usage!.input_tokens);
  // The SDK's stream helper assembles the same response.
  const stream = s.client.responses.stream(request);
  let text = '';
  stream.on('response.output_text.delta', (event) => (text += event.delta));
  const final = await stream.finalResponse();
  assert.is(final.output_text, whole.output_text);
  assert.is(text, whole.output_text);
});

test('instructions are the system message: the same text as the chat request with it', async ({ s }) => {
  const instructions = 'You are a pirate. Answer in one short sentence.';
  const input = 'Where is the treasure?';
  const response = await s.client.responses.create({ model, instructions, input, max_output_tokens: 10, temperature: 0 });
  const chat = await s.client.chat.completions.create({ model, messages: [{ role: 'system', content: instructions }, { role: 'user', content: input }], max_tokens: 10, temperature: 0 });
  const without = await s.client.responses.create({ model, input, max_output_tokens: 10, temperature: 0 });
  assert.is(response.output_text, chat.choices[0]!.message.content);
  assert.is(response.usage!.input_tokens, chat.usage!.prompt_tokens);
  assert.is(response.instructions, instructions);
  assert.ok(without.usage!.input_tokens < response.usage!.input_tokens, 'without instructions the prompt is shorter');
});

test('a forced tool call: a function_call item whose arguments follow the schema, whole and streamed alike', async ({ s }) => {
  const request = { model, input: 'What is the weather in Paris this week?', tools, tool_choice: { type: 'function' as const, name: 'get_weather' }, max_output_tokens: 60, temperature: 0 };
  const whole = await s.client.responses.create(request);
  assert.is(whole.status, 'completed');
  const calls = whole.output.filter((item) => item.type === 'function_call');
  assert.is(calls.length, 1, JSON.stringify(whole.output));
  const call = calls[0]!;
  if (call.type !== 'function_call') return;
  assert.is(call.name, 'get_weather');
  assert.match(call.id!, /^fc_/);
  assert.ok(call.call_id.length > 0);
  assert.is(call.status, 'completed');
  assert.type(call.arguments, 'string');
  const validate = ajv.compile(weatherParameters);
  assert.ok(validate(JSON.parse(call.arguments)), `${call.arguments}: ${ajv.errorsText(validate.errors)}`);
  assert.equal(whole.tool_choice, { type: 'function', name: 'get_weather' });
  assert.is((whole.tools[0] as { name: string }).name, 'get_weather');

  const events = await eventsOf(await s.client.responses.create({ ...request, stream: true }));
  const done = events.find((event) => event.type === 'response.function_call_arguments.done');
  if (done?.type !== 'response.function_call_arguments.done') return assert.unreachable('no arguments.done');
  assert.is(deltasOf(events, 'response.function_call_arguments.delta'), done.arguments);
  assert.is(done.arguments, call.arguments);
  const added = events.find((event) => event.type === 'response.output_item.added');
  if (added?.type !== 'response.output_item.added' || added.item.type !== 'function_call') return assert.unreachable('no function_call item added');
  assert.is(added.item.name, 'get_weather');
  assert.is(added.item.id, done.item_id);
  assert.is(events.at(-1)!.type, 'response.completed');
  const final = await s.client.responses.stream(request).finalResponse();
  assert.equal(final.output.map((item) => item.type === 'function_call' && item.arguments), [call.arguments]);
});

test('a second turn: the call and its output in input are answered, as the same conversation through chat', async ({ s }) => {
  const input = [
    { role: 'user' as const, content: 'What is the weather in Paris?' },
    { type: 'function_call' as const, call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":1}' },
    { type: 'function_call_output' as const, call_id: 'call_1', output: 'Sunny, 24 degrees.' },
  ];
  const response = await s.client.responses.create({ model, input, tools, tool_choice: 'none', max_output_tokens: 8, temperature: 0 });
  assert.ok(response.output_text.length > 0);
  const chat = await s.client.chat.completions.create({
    model,
    messages: [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 24 degrees.' },
    ],
    tools: tools.map(({ name, description, parameters, strict }) => ({ type: 'function' as const, function: { name, description, parameters, strict } })),
    tool_choice: 'none',
    max_tokens: 8,
    temperature: 0,
  });
  assert.is(response.output_text, chat.choices[0]!.message.content);
  assert.is(response.usage!.input_tokens, chat.usage!.prompt_tokens);
  // A forced call's own output sent back with the call's result: the next turn, as an agent loop sends it.
  const call = await s.client.responses.create({ model, input: 'Weather in Rome?', tools, tool_choice: 'required', max_output_tokens: 60, temperature: 0 });
  const [item] = call.output;
  if (item?.type !== 'function_call') return assert.unreachable(JSON.stringify(call.output));
  const next = await s.client.responses.create({
    model,
    input: [{ role: 'user', content: 'Weather in Rome?' }, ...(call.output as ResponseInputItem[]), { type: 'function_call_output', call_id: item.call_id, output: 'Rain.' }],
    tools,
    max_output_tokens: 6,
    temperature: 0,
  });
  assert.ok(next.usage!.input_tokens > call.usage!.input_tokens, 'the call and its output are in the prompt');
  assert.ok(next.output.length > 0);
  // A previous reply replayed as it came back (message and reasoning items with ids and status) is taken too.
  const replayed = await s.client.responses.create({
    model,
    input: [
      { role: 'user', content: 'Hi' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello!', annotations: [] }] },
      { role: 'user', content: [{ type: 'input_text', text: 'Bye' }] },
    ],
    max_output_tokens: 4,
  });
  assert.is(replayed.usage!.output_tokens, 4);
});

test('text.format json_schema: the output parses and follows the schema', async ({ s }) => {
  const schema = { type: 'object', properties: { ok: { type: 'boolean' }, count: { type: 'integer', minimum: 0, maximum: 9 } }, required: ['ok', 'count'], additionalProperties: false };
  const response = await s.client.responses.create({ model, input: 'Answer in JSON.', text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } }, max_output_tokens: 60, temperature: 0 });
  assert.is(response.status, 'completed');
  const validate = ajv.compile(schema);
  assert.ok(validate(JSON.parse(response.output_text)), `${response.output_text}: ${ajv.errorsText(validate.errors)}`);
  assert.equal(response.text!.format, { type: 'json_schema', name: 'answer', schema, strict: true });
  const object = await s.client.responses.create({ model, input: 'JSON please.', text: { format: { type: 'json_object' } }, max_output_tokens: 80, temperature: 0 });
  if (object.status === 'completed') assert.type(JSON.parse(object.output_text), 'object');
  else assert.ok(object.output_text.startsWith('{'), object.output_text);
});

test('include message.output_text.logprobs: each output_text carries its tokens, with top_logprobs alternatives', async ({ s }) => {
  const response = await s.client.responses.create({ model, input: 'Count to five.', max_output_tokens: 6, temperature: 0, include: ['message.output_text.logprobs'], top_logprobs: 2 });
  const part = response.output[0]!.type === 'message' ? response.output[0]!.content[0]! : undefined;
  if (part?.type !== 'output_text') return assert.unreachable();
  assert.is(part.logprobs!.length, 6);
  assert.ok(part.text.endsWith(part.logprobs!.at(-1)!.token));
  for (const entry of part.logprobs!) {
    assert.ok(entry.logprob <= 0);
    assert.is(entry.top_logprobs.length, 2);
  }
  const plain = await s.client.responses.create({ model, input: 'Count to five.', max_output_tokens: 6, temperature: 0 });
  const plainPart = plain.output[0]!.type === 'message' ? plain.output[0]!.content[0]! : undefined;
  assert.is((plainPart as { logprobs?: unknown }).logprobs, undefined, 'no logprobs without include');
});

test('what this server cannot do, and what it does not serve, is a 400 naming the field; an unknown model a 404', async ({ s }) => {
  const ok = { model, input: 'hi', max_output_tokens: 2 };
  const cases: [string, object, RegExp?][] = [
    ['conversation', { ...ok, conversation: 'conv_1' }, /send the conversation in input, or go on from a stored response with previous_response_id/],
    ['background', { ...ok, background: true }, /nothing runs in the background here/],
    ['tools[0].type', { ...ok, tools: [{ type: 'web_search' }] }, /function tools are the only kind served/],
    ['tools[1].type', { ...ok, tools: [...tools, { type: 'mcp', server_label: 'x' }] }],
    ['input[0].content[1].type', { ...ok, input: [{ role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'https://x/y.png' }] }] }, /no images/],
    ['input[0].type', { ...ok, input: [{ type: 'item_reference', id: 'msg_1' }] }],
    ['frequency_penalty', { ...ok, frequency_penalty: 1 }, /Unrecognized request argument/],
    ['include[0]', { ...ok, include: ['file_search_call.results'] }],
    ['tool_choice.name', { ...ok, tools, tool_choice: { type: 'function', name: 'nope' } }],
    ['tool_choice', { ...ok, tool_choice: 'required' }],
    ['tools[0].parameters', { ...ok, tools: [{ ...tools[0], parameters: { type: 'string' } }] }],
    ['input[0].call_id', { ...ok, input: [{ type: 'function_call_output', call_id: 'c', output: 'x' }] }],
    ['input[0]', { ...ok, input: [{ type: 'function_call', call_id: 'c', name: 'get_weather', arguments: '{}' }] }],
    ['text.format.schema/properties/a/type', { ...ok, text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object', properties: { a: { type: 'strin' } } } } } }],
    ['max_output_tokens', { ...ok, max_output_tokens: 0 }],
    ['prompt', { ...ok, prompt: { id: 'pmpt_1' } }, /no prompt templates/],
    ['input', { ...ok, input: [{ type: 'reasoning', summary: [] }] }],
    ['max_tool_calls', { ...ok, max_tool_calls: 2 }],
    ['text.verbosity', { ...ok, text: { verbosity: 'low' } }, /Unsupported parameter/],
  ];
  for (const [param, body, message] of cases) {
    const response = await post(`${s.url}/v1/responses`, body);
    const error = assertEnvelope(response, 400);
    assert.is(error.param, param, response.text);
    if (message) assert.match(error.message, message);
  }
  const unknown = assertEnvelope(await post(`${s.url}/v1/responses`, { ...ok, model: 'gpt-4o' }), 404);
  assert.is(unknown.param, 'model');
  // Accepted and unused: reasoning, service_tier, prompt_cache_key, safety_identifier, truncation 'disabled', stream_options (store: responses-store.test.ts).
  const accepted = await post(`${s.url}/v1/responses`, { ...ok, store: true, reasoning: { effort: 'low', summary: 'auto' }, service_tier: 'auto', prompt_cache_key: 'k', safety_identifier: 'u', truncation: 'disabled', background: false, parallel_tool_calls: false, tools, tool_choice: 'auto' });
  assert.is(accepted.status, 200, accepted.text);
});

test('answers follow /openapi.json: the whole response and every streamed event', async ({ s, openapi }) => {
  const operation = openapi.paths['/v1/responses'].post;
  const request = { model, input: 'hi', max_output_tokens: 3, include: ['message.output_text.logprobs'] };
  assert.ok(ajv.validate(operation.requestBody.content['application/json'].schema, request), ajv.errorsText());
  const whole = await post(`${s.url}/v1/responses`, request);
  const validateWhole = ajv.compile(operation.responses['200'].content['application/json'].schema);
  assert.ok(validateWhole(whole.json), ajv.errorsText(validateWhole.errors));
  const stream = await post(`${s.url}/v1/responses`, { ...request, tools, tool_choice: 'required', max_output_tokens: 40, stream: true });
  assert.match(stream.headers.get('content-type')!, /^text\/event-stream/);
  assert.not.match(stream.text, /\[DONE\]/);
  const validateEvent = ajv.compile(operation.responses['200'].content['text/event-stream'].schema);
  const validateData = ajv.compile(operation.responses['200'].content['text/event-stream'].schema.properties.data.contentSchema);
  const events = [...stream.text.matchAll(/^event: (.*)\ndata: (.*)$/gm)];
  assert.ok(events.length > 5);
  for (const [, name, data] of events) {
    assert.ok(validateEvent({ event: name, data }), ajv.errorsText(validateEvent.errors));
    assert.ok(validateData(JSON.parse(data!)), `${data}: ${ajv.errorsText(validateData.errors)}`);
    assert.is(JSON.parse(data!).type, name);
  }
});

test.run();
