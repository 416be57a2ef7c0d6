// Every error case over raw HTTP: the right status, OpenAI's envelope naming the field,
// and a server that keeps serving afterwards.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';
import { expectError, expectErrorAt, okRequest } from '../helpers/api-errors.js';

const test = suite<{ s: TinyServer }>('http errors');

test.before(async (context) => {
  context.s = await startTinyServer({ server: { maxBodyBytes: 4096 } });
});
test.after(async (context) => {
  await context.s.close();
});

const ok = okRequest;

test('wrong types and out-of-range values name the field', async ({ s }) => {
  await expectError(s, { ...ok, temperature: 'hot' }, 400, 'temperature');
  await expectError(s, { ...ok, temperature: 2.5 }, 400, 'temperature', null, /<= 2/);
  await expectError(s, { ...ok, logprobs: true, top_logprobs: 21 }, 400, 'top_logprobs', null, /<= 20/);
  await expectError(s, { ...ok, top_logprobs: 2 }, 400, 'top_logprobs', null, /requires 'logprobs'/);
  await expectError(s, { ...ok, n: 0 }, 400, 'n');
  await expectError(s, { ...ok, n: 9 }, 400, 'n', null, /max_num_sequence/);
  await expectError(s, { ...ok, max_tokens: 0 }, 400, 'max_tokens');
  await expectError(s, { ...ok, logit_bias: { abc: 1 } }, 400, 'logit_bias');
  await expectError(s, { ...ok, logit_bias: { '5': 101 } }, 400, 'logit_bias[5]');
  await expectError(s, { ...ok, logit_bias: { '99999999': 1 } }, 400, 'logit_bias', null, /vocabulary/);
  // A bad entry of a list is named, and why: the list shape fits, its entry does not.
  await expectError(s, { ...ok, stop: ['a', 5] }, 400, 'stop[1]', null, /'stop\[1\]': must be a string, got 5/);
  await expectError(s, { ...ok, stop: [''] }, 400, 'stop[0]', null, /fewer than 1 characters/);
  await expectError(s, { ...ok, stop: ['x'.repeat(1025)] }, 400, 'stop[0]', null, /more than 1024 characters/);
  await expectError(s, { ...ok, stop: 5 }, 400, 'stop', null, /a list of at most 16 strings, each of 1 to 1024 characters/);
  await expectError(s, { ...ok, seed: 1.5 }, 400, 'seed');
  await expectError(s, { ...ok, stream_options: { include_usage: true } }, 400, 'stream_options');
});

test('bad messages name the message', async ({ s }) => {
  await expectError(s, { ...ok, messages: [] }, 400, 'messages');
  await expectError(s, { ...ok, messages: [{ role: 'robot', content: 'hi' }] }, 400, 'messages[0].role');
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a' }, { role: 'user' }] }, 400, 'messages[1].content');
  // A part other than text is named at its entry, and why.
  const image = { type: 'image_url', image_url: { url: 'http://x/y.png' } };
  await expectError(s, { ...ok, messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, image] }] }, 400, 'messages[0].content[1].type', null, /must be "text" \(only text parts, and an assistant's refusal parts: this server reads no images, audio or files\), got "image_url"/);
  // A part without type is a tool message's structured data; elsewhere the rule says what a part must be.
  await expectError(s, { ...ok, messages: [{ role: 'user', content: [{ text: 'a' }] }] }, 400, 'messages[0].content', null, /A content part without 'type' \(structured data\) is only allowed on tool messages; other messages take text parts/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 400, 'messages[0].content[0].text', null, /Missing required parameter/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 5 }] }, 400, 'messages[0].content', null, /Text, or a list of text parts/);
  await expectError(s, { ...ok, messages: [{ role: 'tool', content: 'x' }] }, 400, 'messages[0].tool_call_id');
  // OpenAI's rules on tool messages: only they carry a tool_call_id, and each answers a call before it.
  const call = { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] };
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a', tool_call_id: 'call_1' }] }, 400, 'messages[0].tool_call_id', null, /only allowed on tool messages/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a' }, { role: 'tool', tool_call_id: 'call_1', content: 'x' }] }, 400, 'messages[1]', null, /messages\[1\]: A message with role 'tool' must answer a call in the assistant message before it/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a' }, call, { role: 'tool', tool_call_id: 'call_2', content: 'x' }] }, 400, 'messages[2].tool_call_id', null, /'call_2' answers none of the calls before it \('call_1'\)/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', tool_calls: [] }] }, 400, 'messages[1].tool_calls', null, /fewer than 1/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b', audio: { id: 'x' } }] }, 400, 'messages[1].audio', null, /must be null, got \{"id":"x"\}/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a', refusal: 'no' }] }, 400, 'messages[0].refusal', null, /only allowed on assistant messages/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: [{ type: 'refusal', refusal: 'no' }] }] }, 400, 'messages[0].content', null, /A 'refusal' content part is only allowed on assistant messages/);
  await expectError(s, { ...ok, messages: [{ role: 'assistant', content: [{ type: 'refusal' }] }, { role: 'user', content: 'a' }] }, 400, 'messages[0].content[0].refusal', null, /Missing required parameter/);
  await expectError(s, { model: TINY_MODEL_ID }, 400, 'messages', null, /Missing required parameter/);
  // Every call is answered before the conversation goes on, or ends (OpenAI's rule).
  const two = { role: 'assistant', tool_calls: [call.tool_calls[0], { id: 'call_2', type: 'function', function: { name: 'f', arguments: '{}' } }] };
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a' }, two, { role: 'tool', tool_call_id: 'call_1', content: 'x' }, { role: 'user', content: 'next' }] }, 400, 'messages[1].tool_calls', null, /must be followed by tool messages answering each 'tool_call_id'; 'call_2' has no answer/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'a' }, call] }, 400, 'messages[1].tool_calls', null, /'call_1' has no answer/);
  await expectError(s, { ...ok, tools: [] }, 400, 'tools', null, /fewer than 1 items/);
  // Another kind of tool (OpenAI's `custom`) is told so, not that its `function` is missing.
  await expectError(s, { ...ok, tools: [{ type: 'custom', custom: { name: 'grep' } }] }, 400, 'tools[0].type', null, /must be "function" \(function tools are the only kind served: 'custom' tools are not\), got "custom"/);
  await expectError(s, { ...ok, tools: [{ function: { name: 'f' } }] }, 400, 'tools[0].type', null, /Missing required parameter: 'tools\[0\]\.type'/);
  await expectError(s, { ...ok, tools: [{ type: 'function' }] }, 400, 'tools[0].function', null, /Missing required parameter: 'tools\[0\]\.function'/);
  await expectError(s, { ...ok, tools: [{ type: 'function', function: { name: 'f' }, extra: 1 }] }, 400, 'tools[0].extra', null, /Unrecognized request argument/);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: [] }] }, 400, 'messages[0].content', null, /fewer than 1 items/);
  // An object tool_choice is told what is wrong inside it, not that it is none of the strings.
  await expectError(s, { ...ok, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: { function: { name: 'f' } } }, 400, 'tool_choice.type', null, /Missing required parameter: 'tool_choice.type'/);
});

test("a reply replayed as history the way OpenAI's SDKs write it (every field, unset ones null) is taken", async ({ s }) => {
  const reply = { role: 'assistant', content: 'Hello', refusal: null, annotations: [], audio: null, function_call: null, tool_calls: null };
  const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
  const messages = [
    { role: 'user', content: 'a' },
    reply,
    { role: 'user', content: 'b' },
    { ...reply, content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: 'call_1', content: 'x' },
    { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
    { role: 'user', content: 'c' },
    // The SDKs' parse() and stream helpers add these to the replies they return.
    { ...reply, content: null, parsed: null, tool_calls: [{ ...call, id: 'call_2', index: 0, function: { ...call.function, parsed_arguments: {} } }] },
    { role: 'tool', tool_call_id: 'call_2', content: 'y' },
    { ...reply, content: '{"a": 1}', parsed: { a: 1 } },
    { role: 'user', content: 'd' },
    // The spec's structured data for tool-generated messages: objects without 'type', read as their JSON.
    { role: 'assistant', content: null, tool_calls: [{ ...call, id: 'call_3' }] },
    { role: 'tool', tool_call_id: 'call_3', content: [{ temperature: '20C', sky: 'sunny' }, { type: 'text', text: 'as of noon' }] },
    // OpenAI's assistant messages take refusal parts beside text parts.
    { role: 'assistant', content: [{ type: 'text', text: 'Partly: ' }, { type: 'refusal', refusal: 'I cannot say more.' }] },
    { role: 'user', content: 'e' },
  ];
  const answer = await post(`${s.url}/v1/chat/completions`, { ...ok, messages, max_tokens: 2 });
  assert.is(answer.status, 200, answer.text);
  assert.ok(answer.json.usage.prompt_tokens > 20);
});

test('null where OpenAI allows it is the field left out', async ({ s }) => {
  // Clients that write every unset field send these (OpenAI's schema: integer or null, ...).
  const nulls = { n: null, logprobs: null, frequency_penalty: null, presence_penalty: null, stream: null, top_logprobs: null, max_tokens: null, temperature: null, top_p: null, stop: null, seed: null };
  const response = await post(`${s.url}/v1/chat/completions`, { ...ok, ...nulls, max_completion_tokens: 2 });
  assert.is(response.status, 200, response.text);
  assert.is(response.json.choices.length, 1);
  assert.is(response.json.choices[0].logprobs, null);
  assert.is(response.json.usage.completion_tokens, 2);
  const text = await post(`${s.url}/v1/completions`, { model: ok.model, prompt: 'hi', max_tokens: 2, n: null, stream: null, frequency_penalty: null, presence_penalty: null });
  assert.is(text.status, 200, text.text);
  // stream_options' own fields too (vLLM's and OpenAI's SDK types have them optional): no usage chunk, no padding.
  const streamed = await post(`${s.url}/v1/chat/completions`, { ...ok, max_tokens: 2, stream: true, stream_options: { include_usage: null, include_obfuscation: null } });
  assert.is(streamed.status, 200, streamed.text);
  assert.ok(streamed.text.includes('data: [DONE]'));
  assert.not.match(streamed.text, /"usage":\{|"obfuscation"/);
  // Still refused where no null is allowed, and a null that leaves a rule unmet.
  await expectError(s, { ...ok, messages: null }, 400, 'messages');
  await expectError(s, { ...ok, logprobs: null, top_logprobs: 3 }, 400, 'top_logprobs', null, /requires 'logprobs' to be true/);
});

test('unknown fields and values are refused, not ignored', async ({ s }) => {
  // Tool errors have their own suite (test/tools/validation.test.ts); this one stays general.
  await expectError(s, { ...ok, tool_choice: 'auto' }, 400, 'tool_choice');
  await expectError(s, { ...ok, response_format: { type: 'xml' } }, 400, 'response_format.type');
  await expectError(s, { ...ok, response_format: { type: 'structural_tag', structures: [], triggers: [] } }, 400, 'response_format.structures', null, /That is the older form: write its tags as a 'triggered_tags' format/);
  await expectError(s, { ...ok, frobnicate: true }, 400, 'frobnicate', null, /Unrecognized request argument/);
  // Fields OpenAI defines for what this server does not do: refused as unsupported, saying why (they read as unknown).
  await expectError(s, { ...ok, reasoning_effort: 'low' }, 400, 'reasoning_effort', 'unsupported_parameter', /^Unsupported parameter: 'reasoning_effort' is not supported here: .*no model here takes one\.$/);
  await expectError(s, { ...ok, functions: [{ name: 'f' }] }, 400, 'functions', 'unsupported_parameter', /send each as a tool/);
  await expectError(s, { ...ok, audio: { voice: 'alloy', format: 'mp3' } }, 400, 'audio', 'unsupported_parameter', /only text is generated/);
  // Predicted Outputs are taken (test/server/predicted-outputs.test.ts); a malformed one is named.
  await expectError(s, { ...ok, prediction: { type: 'text', content: 'x' } }, 400, 'prediction.type', null, /"content"/);
  await expectError(s, { ...ok, prediction: { type: 'content' } }, 400, 'prediction.content', null, /Missing required parameter/);
  await expectError(s, { ...ok, prediction: { type: 'content', content: [{ type: 'image_url', image_url: { url: 'x' } }] } }, 400, 'prediction.content[0].type', null, /a prediction is text/);
  // null is "not set" to clients that send every field (pydantic's model_dump): taken as left out.
  const unset = { reasoning_effort: null, verbosity: null, audio: null, prediction: null, web_search_options: null, functions: null, function_call: null };
  assert.is((await post(`${s.url}/v1/chat/completions`, { ...ok, ...unset })).status, 200);
  // Its bookkeeping fields change no output: accepted when well formed (any tier or retention name: OpenAI adds them).
  const bookkeeping = { metadata: { run: '7' }, service_tier: 'fast', prompt_cache_key: 'k', prompt_cache_retention: '24h', safety_identifier: 'u'.repeat(128), modalities: ['text'] };
  assert.is((await post(`${s.url}/v1/chat/completions`, { ...ok, ...bookkeeping })).status, 200);
  await expectError(s, { ...ok, metadata: { run: 7 } }, 400, 'metadata.run', null, /must be a string/);
  await expectError(s, { ...ok, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 400, 'metadata');
  await expectError(s, { ...ok, metadata: { ['k'.repeat(65)]: 'v' } }, 400, 'metadata', null, /is not a key of at most 64 characters/);
  await expectError(s, { ...ok, service_tier: 't'.repeat(65) }, 400, 'service_tier');
  await expectError(s, { ...ok, modalities: ['text', 'audio'] }, 400, 'modalities[1]', null, /must be "text"/);
  // The legacy endpoint never had these: unknown there, as OpenAI's says.
  await expectErrorAt('/v1/completions', s, { model: TINY_MODEL_ID, prompt: 'hi', max_tokens: 1, functions: [] }, 400, 'functions', null, /^Unrecognized request argument supplied: functions$/, { model: TINY_MODEL_ID, prompt: 'hi', max_tokens: 1 });
  // OpenAI's store: false (or null) is what this server does anyway; true asks for what it cannot do.
  assert.is((await post(`${s.url}/v1/chat/completions`, { ...ok, store: false })).status, 200);
  await expectError(s, { ...ok, store: true }, 400, 'store', null, /must be one of false, null/);
});

test("response_format.json_schema's own fields: each wrong one named, a missing name accepted (llama-server's clients)", async ({ s }) => {
  const format = (wrapper: object) => ({ ...ok, response_format: { type: 'json_schema', json_schema: { schema: { type: 'integer' }, ...wrapper } } });
  await expectError(s, format({ name: 'a b' }), 400, 'response_format.json_schema.name');
  await expectError(s, format({ name: 'a', description: 5 }), 400, 'response_format.json_schema.description', null, /must be a string/);
  await expectError(s, format({ name: 'a', strict: 'yes' }), 400, 'response_format.json_schema.strict');
  await expectError(s, format({ name: 'a', extra: 1 }), 400, 'response_format.json_schema.extra');
  for (const wrapper of [{}, { name: 'a', description: 'An integer.', strict: null }]) {
    const response = await post(`${s.url}/v1/chat/completions`, { ...format(wrapper), max_tokens: 4 });
    assert.is(response.status, 200, response.text);
    assert.match(response.json.choices[0].message.content, /^-?\d*$/);
  }
});

test('malformed JSON, an empty body and a body that is not an object', async ({ s }) => {
  await expectError(s, '{"model": ', 400, null, 'invalid_json');
  await expectError(s, '', 400, null, 'invalid_json');
  await expectError(s, '[1,2]', 400, null, null, /JSON object/);
});

test('a prompt longer than the context: 400 context_length_exceeded with both numbers', async ({ s }) => {
  const long = 'lorem ipsum '.repeat(300);
  await expectError(s, { ...ok, messages: [{ role: 'user', content: long }] }, 400, 'messages', 'context_length_exceeded', /512 tokens.*\d{3} in the prompt/);
});

test('an output limit no prompt could leave room for names its field; one this prompt leaves no room for names the messages', async ({ s }) => {
  await expectError(s, { ...ok, max_tokens: 512 }, 400, 'max_tokens', 'context_length_exceeded', /512 tokens, prompt included, so at most 511/);
  await expectError(s, { ...ok, max_tokens: undefined, max_completion_tokens: 100000 }, 400, 'max_completion_tokens', 'context_length_exceeded', /100000 were requested/);
  await expectError(s, { ...ok, max_tokens: 511 }, 400, 'messages', 'context_length_exceeded', /in the prompt, 511 in the completion/);
  const text = await post(`${s.url}/v1/completions`, { model: ok.model, prompt: 'Hello', max_tokens: 512 });
  assert.is(text.status, 400);
  assert.is(text.json.error.param, 'max_tokens');
});

test('a stop string holding half a character is refused: it would cut a character in two', async ({ s }) => {
  await expectError(s, { ...ok, stop: '\udf4f' }, 400, 'stop', null, /lone UTF-16 surrogate \(\\udf4f\)/);
  await expectError(s, { ...ok, stop: ['ok', 'a\ud83c'] }, 400, 'stop[1]', null, /surrogate/);
  const whole = await post(`${s.url}/v1/chat/completions`, { ...ok, max_tokens: 2, stop: ['\ud83c\udf4f'] });
  assert.is(whole.status, 200, 'a whole pair is one character');
});

test('an unknown model is 404', async ({ s }) => {
  await expectError(s, { ...ok, model: 'gpt-4o' }, 404, 'model', 'model_not_found', /gpt-4o/);
});

test('an oversized body is 413', async ({ s }) => {
  await expectError(s, { ...ok, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }, 413, null, 'request_too_large');
});

test('unknown paths are 404 and wrong methods 405 with Allow', async ({ s }) => {
  const missing = await fetch(`${s.url}/v1/embeddings`, { method: 'POST' });
  assert.is(missing.status, 404);
  assert.is(((await missing.json()) as any).error.type, 'not_found_error');
  const wrong = await fetch(`${s.url}/v1/chat/completions`);
  assert.is(wrong.status, 405);
  assert.is(wrong.headers.get('allow'), 'POST');
  assert.is(((await wrong.json()) as any).error.code, 'method_not_allowed');
  const wrongModels = await fetch(`${s.url}/v1/models`, { method: 'DELETE' });
  assert.is(wrongModels.status, 405);
  assert.is(wrongModels.headers.get('allow'), 'GET, HEAD');
  const noTrace = await fetch(`${s.url}/debug/trace`);
  assert.is(noTrace.status, 404, 'tracing is off: the endpoint does not exist');
});

test('HEAD answers wherever GET does: the same status and headers, no body', async ({ s }) => {
  for (const path of ['/health', '/v1/models', `/v1/models/${TINY_MODEL_ID}`, '/metrics', '/openapi.json', '/docs']) {
    const [head, get] = [await fetch(`${s.url}${path}`, { method: 'HEAD' }), await fetch(`${s.url}${path}`)];
    const body = await get.text();
    assert.is(head.status, get.status, path);
    assert.is(head.headers.get('content-type'), get.headers.get('content-type'), path);
    assert.is(await head.text(), '', path);
    // The metrics change between the two requests; the rest are the same bytes.
    if (path !== '/metrics') assert.is(Number(head.headers.get('content-length')), Buffer.byteLength(body), path);
  }
  assert.is((await fetch(`${s.url}/v1/chat/completions`, { method: 'HEAD' })).status, 405);
});

test('a compressed body is refused by its coding, a false label too (the bytes are not read as they are)', async ({ s }) => {
  const { gzipSync } = await import('node:zlib');
  const gzipped = await post(`${s.url}/v1/chat/completions`, gzipSync(JSON.stringify(ok)), { 'content-encoding': 'gzip' });
  assert.is(gzipped.status, 415);
  assert.is(gzipped.json.error.code, 'unsupported_content_encoding');
  assert.match(gzipped.json.error.message, /Content-Encoding is 'gzip'/);
  assert.is((await post(`${s.url}/v1/chat/completions`, ok, { 'content-encoding': 'br' })).status, 415);
  assert.is((await post(`${s.url}/v1/chat/completions`, ok, { 'content-encoding': 'identity' })).status, 200);
});

test('a client that goes away in the middle of its body is a 499, not an internal error in the log', async ({ s }) => {
  const { connect } = await import('node:net');
  const { port } = new URL(s.url);
  const logged: unknown[][] = [];
  const realError = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model": ');
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    const counted = () => fetch(`${s.url}/metrics`).then((response) => response.text()).then((text) => /lmforge_http_requests_total\{method="POST",path="\/v1\/chat\/completions",status="499"\} 1/.test(text));
    for (let i = 0; i < 100 && !(await counted()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(await counted(), 'the abandoned request is counted as a 499');
  } finally {
    console.error = realError;
  }
  assert.equal(logged, [], 'nothing of the server went wrong');
  assert.is((await post(`${s.url}/v1/chat/completions`, ok)).status, 200);
});

test.run();

const overload = suite('overload');

overload('a full queue answers 503 server_is_overloaded while queued requests still finish', async () => {
  const s = await startTinyServer({ engine: { overrides: { context_window_size: 512, max_num_sequence: 1 }, maxQueuedRequests: 1 } });
  try {
    const long = { ...ok, max_tokens: 200, ignore_eos: true };
    const running = post(`${s.url}/v1/chat/completions`, long);
    // Wait until the first request runs, then fill the one queue place.
    for (let i = 0; i < 200 && (await s.engine.stats()).running === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const queued = post(`${s.url}/v1/chat/completions`, long);
    for (let i = 0; i < 200 && (await s.engine.stats()).waiting === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const refused = await post(`${s.url}/v1/chat/completions`, ok);
    assert.is(refused.status, 503);
    assert.is(refused.json.error.code, 'server_is_overloaded');
    assert.is(refused.json.error.type, 'server_error');
    assert.is(refused.headers.get('retry-after'), '1');
    assert.is((await running).status, 200);
    assert.is((await queued).status, 200);
  } finally {
    await s.close();
  }
});

overload('requests that arrive together count as waiting only beyond the free sequences (two of three were refused with a sequence free for each)', async () => {
  const s = await startTinyServer({ engine: { overrides: { context_window_size: 512, max_num_sequence: 2 }, maxQueuedRequests: 1 } });
  try {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([0, 1, 2].map(() => post(`${s.url}/v1/chat/completions`, { ...ok, max_tokens: 20, ignore_eos: true })));
      assert.equal(answers.map((answer) => answer.status), [200, 200, 200], answers.map((answer) => answer.text).join('\n'));
    }
  } finally {
    await s.close();
  }
});

overload.run();
