// API keys: with keys set, every path but /health, /docs, /openapi.json and the chat page's
// (GET / and /ui/*, unless --no-ui) needs `Authorization: Bearer KEY`; a missing or wrong key is
// a 401 in OpenAI's envelope, which the official client reads as an AuthenticationError.
import OpenAI from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiKeys, openPaths, parseApiKeys } from '../../runtime/server/auth.js';
import { ENDPOINTS } from '../../runtime/server/endpoints.js';
import { assertEnvelope, okRequest } from '../helpers/api-errors.js';
import { post, startTinyServer, TINY_MODEL_ID, type TinyServer } from '../helpers/tiny-server.js';

const KEYS = ['key-one', 'a-second-longer-key'];

const clientWith = (s: TinyServer, apiKey: string) => new OpenAI({ baseURL: `${s.url}/v1`, apiKey, maxRetries: 0 });

async function rejectsWith401(promise: Promise<unknown>, code: string | null): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, OpenAI.AuthenticationError);
    const apiError = error as InstanceType<typeof OpenAI.AuthenticationError>;
    assert.is(apiError.status, 401);
    assert.is(apiError.code ?? null, code);
    assert.is(apiError.type, 'invalid_request_error');
    return;
  }
  assert.unreachable('expected a 401');
}

const unit = suite('api keys (pure)');

unit('keys split on commas, trimmed, empties dropped', () => {
  assert.equal(parseApiKeys(['a, b,,c', ' d ']), ['a', 'b', 'c', 'd']);
  assert.equal(parseApiKeys(['']), []);
});

unit('a request needs one of the keys, sent as a Bearer token, except on the open paths', () => {
  const keys = new ApiKeys(['short', 'a-much-longer-key']);
  assert.is(keys.refusal('/v1/models', 'Bearer short'), undefined);
  assert.is(keys.refusal('/v1/models', 'bearer  a-much-longer-key '), undefined, 'the scheme is case-insensitive');
  for (const wrong of ['Bearer shor', 'Bearer short2', 'Bearer SHORT', 'Bearer a-much-longer-ke']) assert.is(keys.refusal('/v1/models', wrong)?.code, 'invalid_api_key', wrong);
  for (const missing of [undefined, '', 'short', 'Basic c2hvcnQ6', 'Bearer ', 'Bearer']) {
    const refusal = keys.refusal('/metrics', missing);
    assert.is(refusal?.status, 401, String(missing));
    assert.is(refusal?.code, null);
    assert.match(refusal!.message, /Authorization: Bearer/);
  }
  for (const open of ['/health', '/docs', '/openapi.json']) assert.is(keys.refusal(open, undefined), undefined, open);
  assert.is(new ApiKeys([]).refusal('/v1/chat/completions', undefined), undefined, 'no keys: open');
});

unit('the chat page is open for GET and HEAD while it is served, and then only', () => {
  const withPage = new ApiKeys(['k'], true);
  for (const path of ['/', '/ui/main.js', '/ui/']) {
    assert.ok(withPage.isOpen(path, 'GET'), path);
    assert.ok(withPage.isOpen(path, 'HEAD'), path);
    assert.not.ok(withPage.isOpen(path, 'POST'), `POST ${path}`);
    assert.not.ok(new ApiKeys(['k'], false).isOpen(path, 'GET'), `${path} with --no-ui`);
  }
  for (const path of ['/ui', '/uix/a', '//', '/v1/models']) assert.not.ok(withPage.isOpen(path, 'GET'), path);
  assert.equal(openPaths(true), ['/health', '/docs', '/openapi.json', '/', '/ui/*']);
  assert.equal(openPaths(false), ['/health', '/docs', '/openapi.json']);
});

unit.run();

const server = suite<{ s: TinyServer }>('api keys (server)');
server.before(async (context) => {
  context.s = await startTinyServer({ server: { apiKeys: KEYS } });
});
server.after(async (context) => {
  await context.s.close();
});

server('either key works with the official client', async ({ s }) => {
  for (const key of KEYS) {
    const client = clientWith(s, key);
    const models = await client.models.list();
    assert.is(models.data[0]!.id, TINY_MODEL_ID);
    const reply = await client.chat.completions.create({ model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    assert.is(reply.object, 'chat.completion');
  }
});

server('a wrong key is an AuthenticationError (401, invalid_api_key), and the key is not echoed', async ({ s }) => {
  const client = clientWith(s, 'key-two');
  await rejectsWith401(client.chat.completions.create({ model: TINY_MODEL_ID, messages: [{ role: 'user', content: 'hi' }] }), 'invalid_api_key');
  await rejectsWith401(client.models.list(), 'invalid_api_key');
  await rejectsWith401(client.models.retrieve(TINY_MODEL_ID), 'invalid_api_key');
  const raw = await post(`${s.url}/v1/chat/completions`, okRequest, { authorization: 'Bearer key-two' });
  assert.not.match(raw.text, /key-two/);
});

server('a missing key is a 401 envelope saying how to send one, with WWW-Authenticate', async ({ s }) => {
  const response = await post(`${s.url}/v1/chat/completions`, okRequest);
  const error = assertEnvelope(response, 401);
  assert.is(error.code, null);
  assert.match(error.message, /Authorization: Bearer/);
  assert.is(response.headers.get('www-authenticate'), 'Bearer');
  assertEnvelope(await post(`${s.url}/v1/chat/completions`, okRequest, { authorization: 'Basic a2V5LW9uZTo=' }), 401);
  for (const path of ['/v1/models', `/v1/models/${TINY_MODEL_ID}`, '/metrics', '/no/such/endpoint']) {
    const answer = await fetch(`${s.url}${path}`);
    assert.is(answer.status, 401, path);
  }
});

server('/health, /docs and /openapi.json stay open; /metrics takes the key', async ({ s }) => {
  assert.is((await fetch(`${s.url}/health`)).status, 200);
  assert.match(await (await fetch(`${s.url}/docs`)).text(), /needs an API key: send <code>Authorization: Bearer KEY<\/code>/);
  const openapi = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
  assert.equal(openapi.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: openapi.components.securitySchemes.bearerAuth.description });
  assert.equal(openapi.paths['/v1/chat/completions'].post.security, [{ bearerAuth: [] }]);
  assert.ok(openapi.paths['/v1/chat/completions'].post.responses['401']);
  assert.equal(openapi.paths['/metrics'].get.security, [{ bearerAuth: [] }]);
  assert.is(openapi.paths['/health'].get.security, undefined);
  const metrics = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${KEYS[0]}` } });
  assert.is(metrics.status, 200);
  assert.match(await metrics.text(), /lmforge_http_requests_total\{method="POST",path="\/v1\/chat\/completions",status="401"\}/);
});

/** Whether the documented list names `path` (an entry ending in `/*` names every path under it). */
const documented = (list: string[], path: string) => list.some((entry) => (entry.endsWith('/*') ? path.startsWith(entry.slice(0, -1)) : path === entry));

/** GET (or the endpoint's method) of every endpoint, the page's paths and some others: exactly the documented ones answer without a key. */
async function assertOpenAsDocumented(url: string, list: string[]): Promise<void> {
  const probes = [
    ...ENDPOINTS.map((endpoint) => ({ method: endpoint.method, path: endpoint.path.replace('{model}', TINY_MODEL_ID) })),
    ...['/', '/ui/', '/ui/main.js', '/ui/no-such-file.js', '/ui', '/uix', '/index.html', '/nope'].map((path) => ({ method: 'GET', path })),
    { method: 'POST', path: '/' },
  ];
  for (const { method, path } of probes) {
    const response = await fetch(`${url}${path}`, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
    await response.arrayBuffer();
    const open = response.status !== 401;
    // Every open endpoint is a GET, and the page is open for GET (and HEAD) only.
    assert.is(open, method === 'GET' && documented(list, path), `${method} ${path}: ${response.status}`);
  }
  for (const entry of list) assert.ok(probes.some(({ path }) => documented([entry], path)), `${entry} is probed`);
}

server('exactly the paths the help and start-up name (openPaths) answer without a key', async ({ s }) => {
  await assertOpenAsDocumented(s.url, openPaths(true));
});

server('a CORS preflight needs no key (browsers send none), and a 401 carries the CORS headers', async ({ s }) => {
  const preflight = await fetch(`${s.url}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: { origin: 'http://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
  assert.is(preflight.status, 200);
  const refused = await post(`${s.url}/v1/chat/completions`, okRequest, { origin: 'http://app.example' });
  assert.is(refused.status, 401);
  assert.is(refused.headers.get('access-control-allow-origin'), '*');
});

server('Expect: 100-continue: a body that would be refused is refused before it is sent; a good one is invited', async ({ s }) => {
  const { connect } = await import('node:net');
  const { port } = new URL(s.url);
  /** The first status line the server answers the headers with, before any body is sent; then the rest once `body` is. */
  const ask = async (headers: string, body?: string, method = 'POST'): Promise<{ first: string; rest: string }> => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.write(`${method} /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n${headers}\r\n`);
    for (let i = 0; i < 200 && !text.includes('\r\n\r\n'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const first = text.split('\r\n')[0]!;
    if (body === undefined) {
      socket.destroy();
      return { first, rest: text };
    }
    text = '';
    socket.write(body);
    for (let i = 0; i < 500 && !/\r\n\r\n[\s\S]*\}/.test(text); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.destroy();
    return { first, rest: text };
  };
  const body = JSON.stringify(okRequest);
  const noKey = await ask(`Content-Length: ${body.length}\r\n`);
  assert.is(noKey.first, 'HTTP/1.1 401 Unauthorized', 'no key: refused before the body, not invited');
  assert.match(noKey.rest, /"code":null/);
  const huge = await ask(`Authorization: Bearer ${KEYS[0]}\r\nContent-Length: 100000000\r\n`);
  assert.is(huge.first, 'HTTP/1.1 413 Payload Too Large');
  assert.match(huge.rest, /request_too_large/);
  // A CORS preflight needs no key, whatever it expects.
  const preflight = await ask('Origin: http://app.example\r\nAccess-Control-Request-Method: POST\r\nContent-Length: 0\r\n', undefined, 'OPTIONS');
  assert.is.not(preflight.first, 'HTTP/1.1 401 Unauthorized');
  const good = await ask(`Authorization: Bearer ${KEYS[0]}\r\nContent-Length: ${body.length}\r\n`, body);
  assert.is(good.first, 'HTTP/1.1 100 Continue');
  assert.match(good.rest, /^HTTP\/1.1 200 OK/);
});

server.run();

const open = suite<{ s: TinyServer }>('api keys: none set');
open.before(async (context) => {
  context.s = await startTinyServer();
});
open.after(async (context) => {
  await context.s.close();
});

open('without keys any Authorization (or none) is accepted, and /openapi.json declares no security', async ({ s }) => {
  assert.is((await post(`${s.url}/v1/chat/completions`, okRequest)).status, 200);
  assert.is((await post(`${s.url}/v1/chat/completions`, okRequest, { authorization: 'Bearer anything' })).status, 200);
  const openapi = (await (await fetch(`${s.url}/openapi.json`)).json()) as any;
  assert.is(openapi.components, undefined);
  assert.is(openapi.paths['/v1/chat/completions'].post.security, undefined);
});

open.run();

const noUi = suite<{ s: TinyServer }>('api keys: --no-ui');
noUi.before(async (context) => {
  context.s = await startTinyServer({ server: { apiKeys: KEYS, ui: false } });
});
noUi.after(async (context) => {
  await context.s.close();
});

noUi('without the chat page, its paths are no longer open', async ({ s }) => {
  await assertOpenAsDocumented(s.url, openPaths(false));
});

noUi.run();
