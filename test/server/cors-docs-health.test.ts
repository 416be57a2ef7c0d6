// CORS as the launch options say, the generated /docs and /openapi.json, and /health.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chatCompletionRequestSchema } from '../../runtime/api/api-schemas.js';
import { ENDPOINTS } from '../../runtime/server/endpoints.js';
import { ApiServer } from '../../runtime/server/api-server.js';
import { corsEntryProblem } from '../../runtime/server/cors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const preflight = (url: string, origin: string, method = 'POST', headers = 'content-type, authorization') =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

const open = suite<{ s: TinyServer }>('cors: defaults (any origin, no credentials)');
open.before(async (context) => {
  context.s = await startTinyServer();
});
open.after(async (context) => {
  await context.s.close();
});

open('preflight allows any origin, method and the asked headers, without credentials', async ({ s }) => {
  const response = await preflight(s.url, 'http://app.example');
  assert.is(response.status, 200);
  assert.is(response.headers.get('access-control-allow-origin'), '*');
  assert.match(response.headers.get('access-control-allow-methods')!, /POST/);
  assert.is(response.headers.get('access-control-allow-headers'), 'content-type, authorization');
  assert.is(response.headers.get('access-control-allow-credentials'), null);
});

open('ordinary responses carry the allow-origin header only for cross-origin requests', async ({ s }) => {
  const withOrigin = await fetch(`${s.url}/v1/models`, { headers: { origin: 'http://app.example' } });
  assert.is(withOrigin.headers.get('access-control-allow-origin'), '*');
  const errorWithOrigin = await post(`${s.url}/v1/chat/completions`, '{', { origin: 'http://app.example' });
  assert.is(errorWithOrigin.status, 400);
  assert.is(errorWithOrigin.headers.get('access-control-allow-origin'), '*', 'errors carry CORS headers too');
  const sameOrigin = await fetch(`${s.url}/v1/models`);
  assert.is(sameOrigin.headers.get('access-control-allow-origin'), null);
  // A page may read the request id and a 503's Retry-After, which are not safelisted headers.
  assert.is(withOrigin.headers.get('access-control-expose-headers'), 'x-request-id, retry-after');
});

open('every response names its request in x-request-id, as OpenAI\'s do (the SDK\'s _request_id)', async ({ s }) => {
  const ids = [];
  for (const response of [await fetch(`${s.url}/v1/models`), await post(`${s.url}/v1/chat/completions`, '{'), await fetch(`${s.url}/nope`)]) {
    const id = response.headers.get('x-request-id');
    assert.match(id ?? '', /^req_[0-9a-f]{24}$/);
    ids.push(id);
  }
  assert.is(new Set(ids).size, ids.length, 'each its own');
  const completion = await s.client.chat.completions.create({ model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 });
  assert.match(completion._request_id ?? '', /^req_[0-9a-f]{24}$/);
});

open('/health is 200 when ready; /docs and /openapi.json come from the validator\'s schemas', async ({ s }) => {
  const health = await fetch(`${s.url}/health`);
  assert.is(health.status, 200);
  assert.equal(await health.json(), { status: 'ok' });
  const docs = await fetch(`${s.url}/docs`);
  assert.is(docs.status, 200);
  assert.match(docs.headers.get('content-type')!, /text\/html/);
  const page = await docs.text();
  for (const endpoint of ENDPOINTS) assert.ok(page.includes(`${endpoint.method} ${endpoint.path}`), `${endpoint.path} is listed`);
  for (const field of Object.keys(chatCompletionRequestSchema.properties)) assert.ok(page.includes(`&quot;${field}&quot;`) || page.includes(`"${field}"`), `${field} is documented`);
  const openapi = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
  assert.is(openapi.openapi, '3.1.0');
  // The validator's schema, with model narrowed to the served name and n to max_num_sequence (what this server answers).
  const { model, n } = chatCompletionRequestSchema.properties;
  const served = { ...chatCompletionRequestSchema, properties: { ...chatCompletionRequestSchema.properties, model: { ...model, enum: [TINY_MODEL_ID] }, n: { ...n, maximum: 4 } } };
  assert.equal(openapi.paths['/v1/chat/completions'].post.requestBody.content['application/json'].schema, JSON.parse(JSON.stringify(served)));
  assert.ok(openapi.paths['/v1/models'].get);
});

open.run();

const strict = suite<{ s: TinyServer }>('cors: listed origins with credentials');
strict.before(async (context) => {
  context.s = await startTinyServer({
    server: { cors: { allowCredentials: true, allowedOrigins: ['http://good.example'], allowedMethods: ['POST', 'GET'], allowedHeaders: ['content-type'] } },
  });
});
strict.after(async (context) => {
  await context.s.close();
});

strict('preflight from a listed origin echoes it, with credentials and the listed methods and headers', async ({ s }) => {
  const response = await preflight(s.url, 'http://good.example', 'POST', 'content-type');
  assert.is(response.status, 200);
  assert.is(response.headers.get('access-control-allow-origin'), 'http://good.example');
  assert.is(response.headers.get('access-control-allow-credentials'), 'true');
  assert.is(response.headers.get('access-control-allow-methods'), 'POST, GET');
  assert.is(response.headers.get('access-control-allow-headers'), 'content-type');
  assert.match(response.headers.get('vary')!, /Origin/);
});

strict('an unlisted origin, method or header is refused', async ({ s }) => {
  const badOrigin = await preflight(s.url, 'http://evil.example', 'POST', 'content-type');
  assert.is(badOrigin.status, 400);
  assert.is(badOrigin.headers.get('access-control-allow-origin'), null);
  // Like every other error, in OpenAI's envelope.
  const error = ((await badOrigin.json()) as any).error;
  assert.is(error.code, 'cors_not_allowed');
  assert.match(error.message, /Disallowed CORS origin/);
  assert.is((await preflight(s.url, 'http://good.example', 'DELETE', 'content-type')).status, 400);
  assert.is((await preflight(s.url, 'http://good.example', 'POST', 'x-secret')).status, 400);
  const simple = await fetch(`${s.url}/v1/models`, { headers: { origin: 'http://evil.example' } });
  assert.is(simple.headers.get('access-control-allow-origin'), null);
  assert.match(simple.headers.get('vary')!, /Origin/, 'a cache keys the answer on Origin, allowed or not');
  const good = await fetch(`${s.url}/v1/models`, { headers: { origin: 'http://good.example' } });
  assert.is(good.headers.get('access-control-allow-origin'), 'http://good.example');
  assert.is(good.headers.get('access-control-allow-credentials'), 'true');
});

strict("a cross-origin request a browser sends without asking (a text/plain POST) runs only for a listed origin and method; the server's own page and clients without an Origin pass", async ({ s }) => {
  const body = JSON.stringify({ model: 'tiny-gpt2', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
  const post = (origin: string | undefined) => fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8', ...(origin ? { origin } : {}) }, body });
  // It ran before, answer unread: a page anywhere could make a keyless server generate.
  const evil = await post('http://evil.example');
  assert.is(evil.status, 403);
  assert.equal(((await evil.json()) as any).error, { message: 'Origin http://evil.example is not allowed here (--allowed-origins).', type: 'invalid_request_error', param: null, code: 'cors_not_allowed' });
  assert.is((await post('null')).status, 403);
  assert.is((await post('http://good.example')).status, 200);
  assert.is((await post(s.url)).status, 200, "the server's own chat page");
  assert.is((await post(undefined)).status, 200, 'curl and the SDKs send no Origin');
  const deleted = await fetch(`${s.url}/v1/models`, { method: 'DELETE', headers: { origin: 'http://good.example' } });
  assert.is(deleted.status, 403, 'a method the list leaves out');
  const head = await fetch(`${s.url}/v1/models`, { method: 'HEAD', headers: { origin: 'http://good.example' } });
  assert.is(head.status, 200, 'HEAD goes with a listed GET');
});

strict.run();

const loading = suite('health while loading');

loading('a server without its engine yet answers 503 on /health and on completions', async () => {
  const server = new ApiServer({
    modelId: TINY_MODEL_ID,
    cors: { allowCredentials: false, allowedOrigins: ['*'], allowedMethods: ['*'], allowedHeaders: ['*'] },
    tracing: false,
    maxBodyBytes: 4096,
    version: 'test',
  });
  const { port } = await server.listen('127.0.0.1', 0);
  try {
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    assert.is(health.status, 503);
    assert.equal(await health.json(), { status: 'loading' });
    assert.is(health.headers.get('retry-after'), '1', 'a 503 from /health says when to ask again, like every 503');
    const chat = await post(`http://127.0.0.1:${port}/v1/chat/completions`, { model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }] });
    assert.is(chat.status, 503);
    assert.is(chat.json.error.code, 'server_not_ready');
    assert.is(chat.headers.get('retry-after'), '1');
  } finally {
    await server.drain(100);
  }
});

loading.run();

const entries = suite('cors: list entries checked at start');
entries('origins browsers send pass, in every scheme; forms that never match are named', () => {
  // "null" (file pages, sandboxed frames), extensions' and apps' own schemes are sent as written: refusing them broke those clients.
  for (const origin of ['*', 'null', 'http://localhost:3000', 'https://app.example', 'http://[::1]:3000', 'chrome-extension://abcdefghijklmnopabcdefghijklmnop', 'moz-extension://1234-5678', 'tauri://localhost', 'capacitor://localhost', 'app://obsidian.md']) {
    assert.is(corsEntryProblem('origins', origin), undefined, origin);
  }
  assert.match(corsEntryProblem('origins', 'http://localhost:3000/') ?? '', /write "http:\/\/localhost:3000"/);
  assert.match(corsEntryProblem('origins', 'https://App.example:443') ?? '', /write "https:\/\/app\.example"/);
  assert.match(corsEntryProblem('origins', 'https://*.example.com') ?? '', /is a pattern, and origins are compared whole/);
  assert.match(corsEntryProblem('origins', 'chrome-extension://abc/') ?? '', /is not an origin such as/);
  assert.match(corsEntryProblem('origins', 'localhost:3000') ?? '', /is not an origin such as/);
  for (const never of ['http://localhost:65536', 'http://:3000', 'http://[::1']) assert.match(corsEntryProblem('origins', never) ?? '', /is not an origin such as "http:\/\/localhost:3000"$/, never);
  for (const token of ['PATCH', 'M-SEARCH', 'X-Api-Key', 'x_custom']) assert.is(corsEntryProblem(token.includes('-') && token !== 'M-SEARCH' ? 'headers' : 'methods', token), undefined, token);
  assert.match(corsEntryProblem('methods', 'GET, POST') ?? '', /is not an HTTP method/);
  assert.match(corsEntryProblem('headers', '') ?? '', /is not a header name/);
});
entries.run();
