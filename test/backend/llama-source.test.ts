// The pinned llama.cpp tree that `lmforge backend build cuda` compiles: a git checkout, or a
// plain tree (a tarball of one, for a build machine with neither git nor a network) whose
// commit is recorded in SOURCE_COMMIT_FILE. An existing tree is used as it is: no bundle is
// fetched and git is not run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SOURCE_COMMIT_FILE, checkoutCommit, cloneLlamaSource, pinnedLlamaSource } from '../../runtime/backend/llama-source.js';

const test = suite('llama source');
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

/** Runs `body` in a scratch folder with a PATH that holds no git and no npm. */
async function withoutTools(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-llama-source-'));
  const path = process.env.PATH;
  process.env.PATH = join(dir, 'no-tools');
  try {
    await body(dir);
  } finally {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  }
}

function plainTree(dir: string, commit?: string): string {
  const tree = join(dir, 'llama.cpp');
  mkdirSync(tree, { recursive: true });
  writeFileSync(join(tree, 'CMakeLists.txt'), 'project(llama.cpp)\n');
  if (commit !== undefined) writeFileSync(join(tree, SOURCE_COMMIT_FILE), `${commit}\n`);
  return tree;
}

test('a plain tree is used as it is, at the commit it records, with neither git nor the bundle', async () => {
  await withoutTools(async (dir) => {
    const tree = plainTree(dir, COMMIT);
    // The cache folder holds no bundle: fetching one (npm) or cloning it (git) would fail here.
    assert.is(await pinnedLlamaSource(join(dir, 'cache'), tree), COMMIT);
    assert.is(await cloneLlamaSource(join(dir, 'cache', 'absent.bundle'), tree), COMMIT);
  });
});

test('no tree at all: nothing to report, so the caller clones one', async () => {
  await withoutTools(async (dir) => {
    assert.is(await checkoutCommit(join(dir, 'absent')), undefined);
  });
});

test('a plain tree that names no commit (or a malformed one) is refused with what to do', async () => {
  for (const commit of [undefined, 'v3.22.1']) {
    await withoutTools(async (dir) => {
      const tree = plainTree(dir, commit);
      try {
        await pinnedLlamaSource(join(dir, 'cache'), tree);
        assert.unreachable('an unnamed commit was accepted');
      } catch (error) {
        assert.is((error as Error).name, 'LlamaSourceError');
        assert.is((error as Error).message, `${tree} holds a llama.cpp tree with neither git's history nor a ${SOURCE_COMMIT_FILE} naming its commit: remove the folder to fetch the pinned source again`);
      }
    });
  }
});

test.run();
