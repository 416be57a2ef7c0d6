import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cac } from 'cac';
import { registerPull } from '../../cli/pull.js';
import { knownModels } from '../../runtime/models/known-models.js';
import { modelCachePath } from '../../runtime/models/pull-model.js';
import { rejects } from './rejects.js';

let home = '';
const savedHome = process.env.LMFORGE_HOME;
test.before(async () => {
  home = await mkdtemp(join(tmpdir(), 'lmforge-pullcli-'));
  process.env.LMFORGE_HOME = home;
});
test.after(async () => {
  if (savedHome === undefined) delete process.env.LMFORGE_HOME;
  else process.env.LMFORGE_HOME = savedHome;
  await rm(home, { recursive: true, force: true });
});

async function run(args: string[]): Promise<string[]> {
  const cli = cac('lmforge');
  registerPull(cli);
  cli.parse(['node', 'lmforge', ...args], { run: false });
  const lines: string[] = [];
  const log = console.log;
  console.log = (...parts: unknown[]) => { lines.push(parts.join(' ')); };
  try {
    await cli.runMatchedCommand();
  } finally {
    console.log = log;
  }
  return lines;
}

test('lmforge pull prints the cached model path as its last stdout line, for each known model', async () => {
  // A cached copy vouched for by its marker (same size and mtime): no network needed. The files
  // are sparse, so the pinned sizes cost no disk.
  for (const model of knownModels) {
    const path = modelCachePath(model.name, home);
    await mkdir(join(path, '..'), { recursive: true });
    const handle = await open(path, 'w');
    await handle.truncate(model.size);
    await handle.close();
    const info = await stat(path);
    await writeFile(`${path}.sha256`, JSON.stringify({ sha256: model.sha256, size: info.size, mtimeMs: info.mtimeMs }));
    assert.is((await run(['pull', model.name])).at(-1), path);
  }
  assert.is((await run(['pull'])).at(-1), modelCachePath('smollm2', home));
  assert.equal(knownModels.map((model) => model.name), ['smollm2', 'gemma3-270m']);
});

test('lmforge pull with an unknown name is a user-facing error listing known names', async () => {
  const error = await rejects(() => run(['pull', 'nope']), /unknown model "nope"; known models: smollm2 \(.*\), gemma3-270m \(Gemma 3 270M base/);
  assert.is((error as { userFacing?: boolean }).userFacing, true);
});

test.run();
