// The tree's arrows: which folder may import which (the README's Layout section describes each).
// The library (runtime/) is layered from the HTTP server down to the llama.cpp binding, and
// inside the engine the two threads never import each other's code: the main thread's client
// and the worker's loop share only the messages and limits in runtime/engine/ itself. The CLI
// sits on the library; bench/ may use everything (the product, its test fixtures), but no
// product or test code imports bench/, except test/bench/, which tests bench/'s own helpers.
// Type-only imports count: they are arrows a reader follows too. And runtime/, like compiler/
// (test/compiler/import-cycles.test.ts), has no import cycle between its files.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { importCycles, importsOf, sources } from './helpers/import-graph.js';

const test = suite('layers');
const repo = fileURLToPath(new URL('..', import.meta.url));

const RUNTIME_BASE = ['runtime/version.ts', 'runtime/lmforge-home.ts'];
const ERRORS = 'compiler/lmforge-error.ts';
// Starting a worker thread or child process, from source or from dist/, and the one typed message
// channel all of them talk through: the compiler's mask workers and the runtime's.
const WORKERS = 'compiler/workers';
const LIBRARY = [ERRORS, WORKERS, 'compiler', 'runtime'];

/**
 * A folder (or file) and what it may import besides itself. The longest matching entry is a
 * file's layer. Listed from the bottom up: each imports only from the rows above it.
 */
export const LAYERS: Record<string, readonly string[]> = {
  // The error base every layer throws (and reads the fields of), below everything.
  'compiler/lmforge-error.ts': [],
  [WORKERS]: [],
  compiler: [ERRORS, WORKERS],
  'runtime/version.ts': [ERRORS],
  'runtime/lmforge-home.ts': [ERRORS],
  'runtime/sampling': [ERRORS, 'compiler'],
  'runtime/backend': [ERRORS, 'compiler', 'runtime/lmforge-home.ts'],
  'runtime/grammar-service': [ERRORS, 'compiler', WORKERS],
  'runtime/chat-format': [ERRORS, 'compiler', 'runtime/grammar-service'],
  // Shared by both engine threads: the messages between them, the limits, the clock.
  'runtime/engine': [ERRORS, 'runtime/sampling', 'runtime/grammar-service'],
  'runtime/engine/worker': [ERRORS, 'compiler', WORKERS, 'runtime/backend', 'runtime/sampling', 'runtime/chat-format', 'runtime/grammar-service', 'runtime/engine'],
  'runtime/engine/client': [ERRORS, WORKERS, 'runtime/engine', 'runtime/grammar-service'],
  // A compiled folder's vocabulary tables are built as the engine worker builds them.
  'runtime/models': [ERRORS, 'compiler', ...RUNTIME_BASE, 'runtime/backend', 'runtime/chat-format', 'runtime/grammar-service', 'runtime/engine', 'runtime/engine/worker'],
  'runtime/telemetry': [ERRORS, 'runtime/engine', 'runtime/engine/client'],
  'runtime/api': [ERRORS, 'compiler', 'runtime/sampling', 'runtime/chat-format', 'runtime/grammar-service', 'runtime/engine', 'runtime/engine/client', 'runtime/telemetry'],
  'runtime/server': [ERRORS, 'compiler', ...RUNTIME_BASE, 'runtime/chat-format', 'runtime/models', 'runtime/engine', 'runtime/engine/client', 'runtime/telemetry', 'runtime/api'],
  'runtime/index.ts': [ERRORS, WORKERS, 'runtime'],
  cli: LIBRARY,
  fixtures: LIBRARY,
  test: [...LIBRARY, 'cli', 'fixtures'],
  'test/bench': [...LIBRARY, 'cli', 'fixtures', 'test', 'bench'],
  bench: [...LIBRARY, 'cli', 'fixtures', 'test'],
};

const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/** The entry of LAYERS a repository path belongs to: the longest that contains it. */
export function layerOf(path: string, layers = LAYERS): string | undefined {
  return Object.keys(layers)
    .filter((layer) => within(path, layer))
    .sort((a, b) => b.length - a.length)[0];
}

/** Every import that crosses into a layer its file's layer may not import, as "from -> to". */
export function wrongArrows(root: string, files: string[], layers = LAYERS): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    const from = relative(root, file);
    const layer = layerOf(from, layers);
    for (const target of importsOf(file)) {
      const to = relative(root, target);
      if (to.startsWith('..') || to.startsWith('node_modules/')) continue;
      const toLayer = layerOf(to, layers);
      // An entry of the table names that layer alone; a folder that is no entry (runtime), every layer in it.
      const allowed = layer !== undefined && toLayer !== undefined && (toLayer === layer || layers[layer]!.some((ok) => (ok in layers ? toLayer === ok : within(toLayer, ok))));
      if (!allowed) wrong.push(`${from} -> ${to}`);
    }
  }
  return wrong;
}

const FOLDERS = ['runtime', 'cli', 'compiler', 'bench', 'test', 'fixtures'];

test('every import follows the layer table', () => {
  const files = FOLDERS.flatMap((folder) => sources(join(repo, folder))).filter((f) => !relative(repo, f).startsWith('fixtures/package-consumer/') && !relative(repo, f).startsWith('fixtures/.cache/'));
  assert.ok(files.length > 400, `found ${files.length} modules`);
  assert.equal(wrongArrows(repo, files), []);
  assert.equal(files.map((f) => relative(repo, f)).filter((f) => layerOf(f) === undefined), [], 'every file has a layer');
});

test('runtime/: no import cycles', () => {
  const root = join(repo, 'runtime');
  const files = sources(root);
  assert.ok(files.length > 150, `found ${files.length} modules`);
  const cycles = importCycles(files).map((c) => c.map((f) => relative(root, f)).join(' -> '));
  assert.equal(cycles, []);
});

test('the table catches an arrow the wrong way, a thread crossing and an import of bench/', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-layers-'));
  try {
    const write = (path: string, text: string) => {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write('runtime/engine/protocol.ts', 'export type Message = string;\n');
    write('runtime/engine/worker/core.ts', "import type { Message } from '../protocol.js';\nimport { send } from '../client/engine.js';\nexport const m: Message = send();\n");
    write('runtime/engine/client/engine.ts', "export const send = () => 'x';\n");
    write('runtime/api/chat.ts', "export const chat = () => import(" + "'../server/app.js');\n"); // split: this file's own text is searched too
    write('runtime/server/app.ts', "import { chat } from '../api/chat.js';\nexport const start = chat;\n");
    write('bench/serve.ts', "export const run = 1;\n");
    write('cli/bench.ts', "export { run } from '../bench/serve.js';\n");
    write('test/bench/serve.test.ts', "import { run } from '../../bench/serve.js';\nexport const r = run;\n");
    const files = FOLDERS.flatMap((folder) => (folder === 'compiler' || folder === 'fixtures' ? [] : sources(join(dir, folder))));
    assert.equal(wrongArrows(dir, files).sort(), [
      'cli/bench.ts -> bench/serve.ts',
      'runtime/api/chat.ts -> runtime/server/app.ts',
      'runtime/engine/worker/core.ts -> runtime/engine/client/engine.ts',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
