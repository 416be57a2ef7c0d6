// A server's on-disk cache of compiled formats keeps within grammarCacheMaxBytes (the least
// recently used files go when a new format is stored), and 0 keeps formats in memory only.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { createServer } from '../../runtime/server/create-server.js';
import { post } from '../helpers/tiny-server.js';

const test = suite('grammar cache on disk: bound');
const dir = mkdtempSync(join(tmpdir(), 'lmforge-grammar-disk-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Serves the tiny model on `cacheDir` with the bound, answers one request with a format, and closes. */
async function serveOneFormat(cacheDir: string, grammarCacheMaxBytes: number): Promise<void> {
  const server = await createServer({ model: tinyModelPath, port: 0, device: 'cpu', threads: 1, overrides: { context_window_size: 256 }, grammarCacheDir: cacheDir, grammarCacheMaxBytes });
  try {
    const body = { model: 'tiny-gpt2', messages: [{ role: 'user', content: 'code?' }], max_tokens: 8, response_format: { type: 'regex', pattern: '[a-z]{3}-\\d{2}' } };
    const response = await post(`${server.url}/v1/chat/completions`, body);
    assert.is(response.status, 200, response.text);
    assert.match(response.json.choices[0].message.content, /^[a-z]{3}-\d{2}$/);
  } finally {
    await server.close(); // the pruning pass that the write started ends first
  }
}

test('a new format stored past the bound removes the least recently used files, and only as many as needed', async () => {
  const cacheDir = join(dir, 'bounded');
  const bound = 1 << 20;
  const old = (name: string, ageSeconds: number) => {
    writeFileSync(join(cacheDir, name), new Uint8Array(bound / 2));
    const at = Date.now() / 1000 - ageSeconds;
    utimesSync(join(cacheDir, name), at, at);
  };
  mkdirSync(cacheDir);
  old(`spec-${'a'.repeat(64)}.lmgrammar`, 300);
  old(`spec-${'b'.repeat(64)}.lmgrammar`, 200);
  await serveOneFormat(cacheDir, bound);
  const files = readdirSync(cacheDir);
  assert.not.ok(files.includes(`spec-${'a'.repeat(64)}.lmgrammar`), 'the least recently used file went');
  assert.ok(files.includes(`spec-${'b'.repeat(64)}.lmgrammar`), 'removing the oldest was enough');
  assert.is(files.length, 2, files.join(' '));
  const total = files.reduce((sum, name) => sum + statSync(join(cacheDir, name)).size, 0);
  assert.ok(total <= bound, `${total} bytes kept`);
});

test('grammarCacheMaxBytes 0: formats are compiled and kept in memory only', async () => {
  const cacheDir = join(dir, 'none');
  await serveOneFormat(cacheDir, 0);
  assert.equal(readdirSync(dir).includes('none') ? readdirSync(cacheDir) : [], []);
});

test.run();
