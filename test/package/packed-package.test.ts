// The package as npm publishes it: `npm pack` (its prepack builds dist/ with tsc), publint and
// @arethetypeswrong/cli on the tarball, then the tarball installed into a scratch project
// (offline, test/package/install-tarball.ts) and used from there with plain Node, no tsx: the
// grammar entries, the node entry serving the tiny model, the CLI, and the declarations
// type-checked as a strict TypeScript user would.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { LMFORGE_VERSION } from '../../runtime/version.js';
import { installTarball } from './install-tarball.js';

const test = suite('packed package');
const root = fileURLToPath(new URL('../../', import.meta.url));
const consumer = fileURLToPath(new URL('../../fixtures/package-consumer/', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let scratch = '';
let tarball = '';

/** Runs a command to its end; throws with its output when it fails. */
function run(command: string, args: string[], cwd: string): string {
  // NODE_OPTIONS cleared: nothing (a tsx loader above all) may reach the scratch project's Node.
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Runs `work`, printing how long it took: these checks are the slow part of a package change. */
async function timed<T>(what: string, work: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    console.log(`  ${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

test.before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'lmforge-packed-'));
  await timed('npm pack (tsc build included)', () => run('npm', ['pack', '--pack-destination', scratch, '--silent'], root));
  const packed = readdirSync(scratch).filter((name) => name.endsWith('.tgz'));
  assert.equal(packed, [`lmforge-${pkg.version}.tgz`]);
  tarball = join(scratch, packed[0]!);
});

test.after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the version the CLI and the server report is package.json\'s', () => {
  assert.is(LMFORGE_VERSION, pkg.version);
});

test('the tarball holds the built files and the bin, not the sources or the tests', () => {
  const files = run('tar', ['tzf', tarball], scratch).trim().split('\n');
  for (const needed of ['package/bin/lmforge.mjs', 'package/dist/runtime/index.js', 'package/dist/runtime/index.d.ts', 'package/dist/compiler/index.d.ts', 'package/dist/runtime/engine/worker/engine-worker.js', 'package/dist/runtime/engine/worker/engine-process.js', 'package/dist/runtime/grammar-service/grammar-worker.js', 'package/dist/compiler/mask/mask-worker.js', 'package/dist/ui/index.html', 'package/dist/ui/main.js', 'package/LICENSE']) {
    assert.ok(files.includes(needed), `${needed} is packed`);
  }
  const strays = files.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'));
  assert.equal(strays, [], 'no TypeScript sources');
  assert.not.ok(files.some((file) => file.startsWith('package/test/') || file.startsWith('package/fixtures/')), 'no tests or fixtures');
});

test('publint finds nothing to fix', async () => {
  const bytes = readFileSync(tarball);
  const { messages, pkg: packedJson } = await timed('publint', () => publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }, level: 'suggestion', strict: true }));
  assert.equal(messages.map((message) => formatMessage(message, packedJson, { color: false })), []);
});

test('@arethetypeswrong/cli: every entry resolves to its types under node16 (ESM) and bundler resolution', async () => {
  // esm-only: lmforge is ESM, so CommonJS require() and the old node10 resolution are out of scope.
  const attw = join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
  const out = await timed('attw', () => run(process.execPath, [attw, tarball, '--profile', 'esm-only', '--format', 'json'], root));
  const report = JSON.parse(out) as { analysis: { entrypoints: Record<string, unknown> } };
  assert.equal(Object.keys(report.analysis.entrypoints).sort(), ['.', './grammar', './grammar/node', './package.json']);
});

test('installed from the tarball offline, it runs without tsx: grammar entries, masks on worker threads, the CLI', async () => {
  await timed('npm ci of the tarball', () => installTarball(tarball));
  const installed = join(scratch, 'node_modules');
  assert.ok(existsSync(join(installed, 'lmforge', 'dist', 'compiler', 'mask', 'mask-worker.js')));
  assert.not.ok(existsSync(join(installed, 'tsx')), 'tsx is a development dependency only');
  copyFileSync(join(consumer, 'uses-grammar.mjs'), join(scratch, 'uses-grammar.mjs'));
  const grammar = JSON.parse(run(process.execPath, ['uses-grammar.mjs', tinyModelPath], scratch));
  assert.equal(grammar, { valid: true, missingCity: false, notJson: false, regexError: { kind: 'regex', offset: 2 }, vocabSize: grammar.vocabSize, firstTokenChoices: grammar.firstTokenChoices });
  assert.ok(grammar.vocabSize > 50_000);
  assert.ok(grammar.firstTokenChoices > 10 && grammar.firstTokenChoices < 2000, `${grammar.firstTokenChoices} digit tokens may start`);
  assert.match(run(process.execPath, [join(installed, '.bin', 'lmforge'), '--version'], scratch), new RegExp(`^lmforge/${pkg.version.replaceAll('.', '\\.')} `));
});

test('the node entry serves the tiny model: one constrained chat completion over HTTP, and the chat page from dist/ui', async () => {
  copyFileSync(join(consumer, 'uses-server.mjs'), join(scratch, 'uses-server.mjs'));
  const served = JSON.parse(await timed('createServer + one request', () => run(process.execPath, ['uses-server.mjs', tinyModelPath, join(scratch, 'grammars')], scratch)));
  assert.equal(served, { version: pkg.version, engineIsExported: true, url: served.url, status: 200, object: 'chat.completion', model: 'tiny-gpt2', completionTokens: served.completionTokens, page: { status: 200, title: true, script: 200 } });
  assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(served.completionTokens >= 1 && served.completionTokens <= 4);
});

test('the declarations type-check in a strict TypeScript project (skipLibCheck off)', async () => {
  copyFileSync(join(consumer, 'uses-types.ts'), join(scratch, 'uses-types.ts'));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const options = ['--strict', '--noEmit', '--skipLibCheck', 'false', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2023,esnext.disposable'];
  // @types/node comes from this repository, as a Node.js project of the user's would have its own.
  const types = ['--types', 'node', '--typeRoots', join(root, 'node_modules', '@types')];
  await timed('tsc on the declarations', () => run(process.execPath, [tsc, ...options, ...types, 'uses-types.ts'], scratch));
});

test.run();
