// The chat page over HTTP (no browser): which paths serve it, its headers (a CSP that keeps it to
// this server), 404s in the error envelope for anything else, the page open while the API needs
// a key, and `ui: false` (--no-ui) turning it off. The page in a browser: test/ui/.
import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CHAT_PAGE_DIR } from '../../runtime/server/chat-page.js';
import { startTinyServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer; off: TinyServer }>('chat page over HTTP');

test.before(async (context) => {
  context.s = await startTinyServer({ server: { apiKeys: ['k'] } });
  context.off = await startTinyServer({ server: { ui: false } });
});

test.after(async ({ s, off }) => {
  await s?.close();
  await off?.close();
});

const PAGE_FILES = readdirSync(CHAT_PAGE_DIR).filter((name) => name !== 'index.html');

test('/ is the page, and every file it names is served from /ui/, without a key', async ({ s }) => {
  const page = await fetch(`${s.url}/`);
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type')!, /^text\/html/);
  const html = await page.text();
  const named = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!).filter((ref) => ref !== 'data:,');
  assert.ok(named.length >= 2, 'a stylesheet and a script');
  for (const ref of named) {
    assert.match(ref, /^ui\/[\w-]+\.(js|css)$/, `${ref} is one of the page's own files`);
  }
  for (const name of PAGE_FILES) {
    const response = await fetch(`${s.url}/ui/${name}`);
    assert.is(response.status, 200, name);
    assert.match(response.headers.get('content-type')!, name.endsWith('.js') ? /^text\/javascript/ : /^text\/css/, name);
    assert.is(await response.text(), readFileSync(`${CHAT_PAGE_DIR}${name}`, 'utf8'), `${name} as it is on disk`);
  }
  const head = await fetch(`${s.url}/`, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is((await fetch(`${s.url}/v1/models`)).status, 401, 'the API still needs the key');
});

test("the page's modules import only each other", () => {
  for (const name of PAGE_FILES.filter((file) => file.endsWith('.js'))) {
    const source = readFileSync(`${CHAT_PAGE_DIR}${name}`, 'utf8');
    for (const [, target] of source.matchAll(/\bfrom\s+'([^']+)'/g)) assert.ok(PAGE_FILES.includes(target!.replace(/^\.\//, '')), `${name} imports ${target}`);
    assert.not.match(source, /https?:\/\//, `${name} names no URL`);
  }
});

test('a CSP keeps the page to this server: its own scripts and styles, fetches to itself only', async ({ s }) => {
  for (const path of ['/', '/ui/main.js']) {
    const response = await fetch(`${s.url}${path}`);
    const policy = Object.fromEntries(response.headers.get('content-security-policy')!.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name, values.join(' ')];
    }));
    assert.equal(
      { default: policy['default-src'], script: policy['script-src'], style: policy['style-src'], connect: policy['connect-src'], frames: policy['frame-ancestors'] },
      { default: "'none'", script: "'self'", style: "'self'", connect: "'self'", frames: "'none'" },
      path,
    );
    assert.is(response.headers.get('x-content-type-options'), 'nosniff');
  }
});

test('other paths are 404s in the error envelope; the index has one name; POST / is not the page', async ({ s }) => {
  for (const [method, path] of [['GET', '/ui/nope.js'], ['GET', '/ui/index.html'], ['GET', '/ui/'], ['GET', '/ui/%69ndex.html'], ['GET', '/ui/../package.json'], ['GET', '/ui/%2e%2e/package.json'], ['POST', '/']] as const) {
    const response = await fetch(`${s.url}${path}`, { method, headers: { authorization: 'Bearer k' } });
    assert.is(response.status, 404, `${method} ${path}`);
    assert.is(((await response.json()) as { error: { code: string } }).error.code, 'not_found', `${method} ${path}`);
  }
});

test('with ui: false (--no-ui) there is no page: / is a 404', async ({ off }) => {
  for (const path of ['/', '/ui/main.js']) {
    const response = await fetch(`${off.url}${path}`);
    assert.is(response.status, 404, path);
    assert.is(((await response.json()) as { error: { type: string } }).error.type, 'not_found_error');
  }
  assert.is((await fetch(`${off.url}/v1/models`)).status, 200);
});

test.run();
