// Sizes are checked before anything is allocated: each over-limit value is a 400 naming the
// field, answered at once, and the server keeps serving (test/server/hostile-input.test.ts
// sends them all at once, beside running streams).
import { connect } from 'node:net';
import { Duplex } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { post, startTinyServer, type TinyServer } from '../helpers/tiny-server.js';
import { expectError, okRequest as ok } from '../helpers/api-errors.js';
import { REQUEST_LIMITS } from '../../runtime/api/request-limits.js';
import { pathDeeperThan } from '../../runtime/server/read-body.js';
import { answerUnparsable } from '../../runtime/server/api-server.js';

const test = suite<{ s: TinyServer }>('request limits');

test.before(async (context) => {
  context.s = await startTinyServer({ server: { maxBodyBytes: 4 << 20 } });
});
test.after(async (context) => {
  await context.s.close();
});

/** `{"a": {"a": ... {} }}` nested `depth` objects deep, as JSON text (built without recursion). */
function nestedObjectText(depth: number, key = 'a'): string {
  return `{"${key}": `.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

test('n far beyond max_num_sequence is refused at once, not allocated', async ({ s }) => {
  // Each of these once built one object per requested choice (1e8: out of heap; 1e300: a 500).
  for (const n of [100000000, 4294967296, 1e300]) {
    await expectError(s, { ...ok, n }, 400, 'n', null, /128|max_num_sequence/);
  }
  await expectError(s, { ...ok, n: 5 }, 400, 'n', null, /at most 4 sequences together \(max_num_sequence\)/);
});

test('max_tokens, logit_bias, stop, messages, tools and user have documented bounds', async ({ s }) => {
  await expectError(s, { ...ok, max_tokens: 1e300 }, 400, 'max_tokens');
  await expectError(s, { ...ok, max_tokens: null, max_completion_tokens: 2 ** 40 }, 400, 'max_completion_tokens');
  const bias = Object.fromEntries(Array.from({ length: REQUEST_LIMITS.logitBiasEntries + 1 }, (_, i) => [String(i), 1]));
  await expectError(s, { ...ok, logit_bias: bias }, 400, 'logit_bias', null, /1024/);
  await expectError(s, { ...ok, logit_bias: { '123456789012345': 1 } }, 400, 'logit_bias');
  await expectError(s, { ...ok, stop: Array.from({ length: 17 }, (_, i) => `s${i}`) }, 400, 'stop');
  await expectError(s, { ...ok, stop: 'x'.repeat(REQUEST_LIMITS.stopLength + 1) }, 400, 'stop');
  const messages = Array.from({ length: REQUEST_LIMITS.messages + 1 }, () => ({ role: 'user', content: 'a' }));
  await expectError(s, { ...ok, messages }, 400, 'messages', null, /4096/);
  const tools = Array.from({ length: REQUEST_LIMITS.tools + 1 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } }));
  await expectError(s, { ...ok, tools }, 400, 'tools', null, /128/);
  await expectError(s, { ...ok, user: 'u'.repeat(300) }, 400, 'user');
});

test('a body nested thousands of levels deep is a 400 naming the field, never a stack overflow', async ({ s }) => {
  for (const depth of [2000, 10000]) {
    const schema = nestedObjectText(depth, 'properties');
    const format = `{"type": "json_schema", "json_schema": {"name": "deep", "schema": ${schema}}}`;
    const body = `{"model": "${ok.model}", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2, "response_format": ${format}}`;
    await expectError(s, body, 400, 'response_format', 'nesting_too_deep', /256 levels/);
    const tool = `{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"x": ${schema}}}}}`;
    const toolBody = `{"model": "${ok.model}", "messages": [{"role": "user", "content": "hi"}], "tools": [${tool}]}`;
    await expectError(s, toolBody, 400, 'tools[0]', 'nesting_too_deep');
    const content = `[${'['.repeat(depth)}${']'.repeat(depth)}]`;
    await expectError(s, `{"model": "${ok.model}", "messages": ${content}}`, 400, 'messages[0]', 'nesting_too_deep');
  }
});

test('the depth check is iterative and names the path of the first deep value', () => {
  assert.is(pathDeeperThan(JSON.parse(nestedObjectText(100000)), 256)?.split('.').length, 256);
  assert.is(pathDeeperThan({ a: [1, { b: { c: [] } }] }, 4), 'a[1].b.c');
  assert.is(pathDeeperThan({ a: [1, { b: { c: [] } }] }, 5), undefined);
});

test('a body that is not UTF-8 is a 400 envelope', async ({ s }) => {
  const bytes = Buffer.concat([Buffer.from('{"model": "tiny-gpt2", "messages": [{"role": "user", "content": "'), Buffer.from([0xff, 0xc0, 0x80]), Buffer.from('"}]}')]);
  const response = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
  assert.is(response.status, 400);
  const error = ((await response.json()) as any).error;
  assert.is(error.code, 'invalid_json');
  assert.match(error.message, /UTF-8/);
});

/** Everything the server answers to `request`, written as is on a socket of its own, until it closes. */
function rawExchange(s: TinyServer, request: string): Promise<string> {
  const { port } = new URL(s.url);
  return new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(request);
  });
}

test('a Content-Length shorter than the body gets the error envelope, not a bare 400', async ({ s }) => {
  const body = JSON.stringify(ok);
  const answer = await rawExchange(s, `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n${body}`);
  const [head, json] = answer.split('\r\n\r\n');
  assert.match(head!, /^HTTP\/1\.1 400 /);
  assert.match(head!, /content-type: application\/json/i);
  const error = JSON.parse(json!).error;
  assert.is(error.type, 'invalid_request_error');
  assert.is(error.code, 'invalid_http');
  assert.match(error.message, /Content-Length/);
});

test('an Expect other than 100-continue gets the envelope and a request id (Node answered an empty 417)', async ({ s }) => {
  const answer = await rawExchange(s, `GET /health HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n`);
  const [head, json] = answer.split('\r\n\r\n');
  assert.match(head!, /^HTTP\/1\.1 417 /);
  assert.match(head!, /x-request-id: req_[0-9a-f]{24}/i);
  assert.equal(JSON.parse(json!).error, { message: 'Expect: something is not supported (only 100-continue is).', type: 'invalid_request_error', param: null, code: 'expectation_failed' });
});

test('a request that does not arrive in time is a 408 request_timeout, with a request id, as every unparsable one has (it was a 400 blaming Content-Length)', () => {
  let written = '';
  const socket = new Duplex({ write: (chunk, _encoding, done) => ((written += chunk), done()), read: () => undefined });
  answerUnparsable(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
  const [head, json] = written.split('\r\n\r\n');
  assert.match(head!, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.match(head!, /X-Request-Id: req_[0-9a-f]{24}/);
  assert.is(JSON.parse(json!).error.code, 'request_timeout');
});

test('an HTTP/1.0 client gets its stream whole, and is not told the connection stays open (it is closed at the end)', async ({ s }) => {
  const body = JSON.stringify({ ...ok, stream: true, max_tokens: 3 });
  const answer = await rawExchange(s, `POST /v1/chat/completions HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const [head, events] = answer.split('\r\n\r\n');
  assert.match(head!, /^HTTP\/1\.1 200 /);
  assert.not.match(head!, /connection: keep-alive/i);
  assert.match(events!, /data: \[DONE\]\n\n$/);
});

test.run();

const pool = suite('n choices in the shared KV cells');

pool('n choices each fill at most their share of the cells all sequences share, max_tokens or not (alone, the request could make no room, and every choice ended in error part-way); a cache_prompt false repeat fits as the first did', async () => {
  // 256 cells for all: the request is alone, so no other could be preempted to make room.
  const s = await startTinyServer({ engine: { overrides: { max_num_sequence: 4, max_total_seq_length: 256 } } });
  try {
    const { max_tokens: _, ...withoutMaxTokens } = ok;
    const request = { ...withoutMaxTokens, n: 4, temperature: 0, ignore_eos: true };
    for (const maxTokens of [undefined, 60]) {
      const shared = await post(`${s.url}/v1/chat/completions`, { ...request, ...(maxTokens ? { max_tokens: maxTokens } : {}) });
      assert.is(shared.status, 200, shared.text);
      const share = Math.floor((256 - shared.json.usage.prompt_tokens) / 4);
      assert.ok(maxTokens === undefined || share < maxTokens, 'the share binds before max_tokens');
      assert.equal(shared.json.choices.map((c: { finish_reason: string }) => c.finish_reason), ['length', 'length', 'length', 'length']);
      assert.is(shared.json.usage.completion_tokens, 4 * share, 'each choice filled its part of the cells');
    }
    for (let k = 0; k < 2; k++) {
      const again = await post(`${s.url}/v1/chat/completions`, { ...request, max_tokens: 30, cache_prompt: false });
      assert.equal(again.json.choices?.map((c: { finish_reason: string }) => c.finish_reason), ['length', 'length', 'length', 'length'], again.text);
      assert.is(again.json.usage.completion_tokens, 120);
    }
  } finally {
    await s.close();
  }
});

pool.run();
