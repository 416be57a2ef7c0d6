import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractZipEntry, listZipEntries } from '../../runtime/models/zip-entry.js';
import { makeZip } from './zip-writer.js';
import { sha256 } from './fake-model-server.js';
import { rejects } from './rejects.js';

let dir = '';
test.before(async () => { dir = await mkdtemp(join(tmpdir(), 'lmforge-zip-')); });
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

const text = Buffer.from('hello wheel\n'.repeat(1000));
const binary = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 2654435761) >>> 24));

test('lists entries and extracts stored, deflated and empty ones with their hash', async () => {
  const zip = join(dir, 'a.zip');
  await writeFile(zip, makeZip([
    { name: 'pkg/__init__.py', data: text, deflate: true },
    { name: 'pkg/model.gguf', data: binary },
    { name: 'pkg/empty', data: Buffer.alloc(0) },
  ], 'a trailing comment'));
  const entries = await listZipEntries(zip);
  assert.equal(entries.map((e) => [e.name, e.method, e.size]), [['pkg/__init__.py', 8, text.length], ['pkg/model.gguf', 0, binary.length], ['pkg/empty', 0, 0]]);
  assert.ok((entries[0]?.compressedSize ?? 0) < text.length);

  for (const [name, data] of [['pkg/__init__.py', text], ['pkg/model.gguf', binary], ['pkg/empty', Buffer.alloc(0)]] as const) {
    const out = join(dir, 'out');
    let seen = 0;
    const got = await extractZipEntry(zip, name, out, (n) => { seen = n; });
    assert.equal(got, { size: data.length, sha256: sha256(data) }, name);
    assert.is(seen, data.length);
    assert.ok((await readFile(out)).equals(data), name);
  }
});

test('a missing entry and a non-zip file are clear errors', async () => {
  const zip = join(dir, 'b.zip');
  await writeFile(zip, makeZip([{ name: 'x', data: text }]));
  await rejects(() => extractZipEntry(zip, 'y', join(dir, 'o')), /has no entry y/);
  const junk = join(dir, 'junk.zip');
  await writeFile(junk, Buffer.alloc(100, 1));
  await rejects(() => listZipEntries(junk), /not a zip file/);
});

test.run();
