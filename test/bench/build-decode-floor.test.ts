// The C decode floor builds against the headers of the tree DECODE_FLOOR_SRC names, so that a
// machine whose fixture cache cannot be cloned (the GPU kit: no npm, a source tree without
// models/) still gets one: a headers-only tree gives a floor that decodes, a tree whose llama.h
// does not compile fails the build, and a folder with no llama.h is refused by name.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildDecodeFloor } from '../../bench/engine/build-decode-floor.js';
import { DecodeFloor } from '../../bench/engine/decode-floor.js';
import { vocabularyPath, fixturesCacheDir } from '../../fixtures/vocabularies.js';
import { tinyModelPath } from '../../fixtures/paths.js';
import { parseDeviceSpec } from '../../runtime/backend/device-spec.js';
import { libraryKindsFor } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';

const test = suite('build-decode-floor');
const scratch = mkdtempSync(join(tmpdir(), 'lmforge-floor-'));
const libllama = () => loadLlamaLibrary({ kinds: libraryKindsFor(parseDeviceSpec('cpu')) }).path;
const saved = { src: process.env.DECODE_FLOOR_SRC, home: process.env.LMFORGE_HOME };

/** A copy of the pinned tree's two header folders and nothing else (no models/, as in the GPU kit). */
async function headersOnlyTree(name: string): Promise<string> {
  await vocabularyPath('gpt-2');
  const tree = join(scratch, name);
  for (const folder of ['include', 'ggml/include']) {
    mkdirSync(join(tree, folder), { recursive: true });
    cpSync(join(fixturesCacheDir, 'llama.cpp', folder), join(tree, folder), { recursive: true });
  }
  return tree;
}

/** The message `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  return assert.unreachable('expected the build to fail') as never;
}

test.before.each(() => {
  // A fresh cache each time, so that every test compiles.
  process.env.LMFORGE_HOME = mkdtempSync(join(scratch, 'home-'));
});

test.after(() => {
  for (const [key, value] of [['DECODE_FLOOR_SRC', saved.src], ['LMFORGE_HOME', saved.home]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  rmSync(scratch, { recursive: true, force: true });
});

test('a headers-only tree builds a floor that decodes the tiny model', async () => {
  process.env.DECODE_FLOOR_SRC = await headersOnlyTree('headers');
  const binary = await buildDecodeFloor(libllama());
  assert.ok(binary.startsWith(process.env.LMFORGE_HOME!));
  const floor = await DecodeFloor.start(tinyModelPath, { contextSize: 256, batchSize: 64, sequences: 2, threads: 1 }, 'The', { binary });
  try {
    const run = await floor.decode(2, 4);
    assert.is(run.tokens, 8);
  } finally {
    await floor.dispose();
  }
});

test("the headers come from that tree: a llama.h that does not compile fails the build", async () => {
  const tree = await headersOnlyTree('broken');
  const header = join(tree, 'include', 'llama.h');
  writeFileSync(header, `#error "the floor read DECODE_FLOOR_SRC's llama.h"\n${readFileSync(header, 'utf8')}`);
  process.env.DECODE_FLOOR_SRC = tree;
  assert.match(await rejection(buildDecodeFloor(libllama())), /the floor read DECODE_FLOOR_SRC's llama\.h/);
});

test('a folder without include/llama.h is refused by name', async () => {
  process.env.DECODE_FLOOR_SRC = join(scratch, 'nothing-here');
  assert.match(await rejection(buildDecodeFloor(libllama())), /DECODE_FLOOR_SRC=.*nothing-here holds no include\/llama\.h/);
});

test.run();
