import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GGML_TYPE_I64, ggufModelInfo, ggufValue, readGGUF, writeGGUF, type GGUFValue } from '../../compiler/gguf/gguf-file.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { rejects } from './rejects.js';

let dir = '';
test.before(async () => { dir = await mkdtemp(join(tmpdir(), 'lmforge-gguf-')); });
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

const everyType: [string, GGUFValue][] = [
  ['general.architecture', { type: 'string', value: 'llama' }],
  ['t.u8', { type: 'uint8', value: 255 }],
  ['t.i8', { type: 'int8', value: -128 }],
  ['t.u16', { type: 'uint16', value: 65535 }],
  ['t.i16', { type: 'int16', value: -32768 }],
  ['t.u32', { type: 'uint32', value: 4294967295 }],
  ['t.i32', { type: 'int32', value: -2147483648 }],
  ['t.f32', { type: 'float32', value: 0.5 }],
  ['t.f64', { type: 'float64', value: Math.PI }],
  ['t.bool', { type: 'bool', value: true }],
  ['t.u64', { type: 'uint64', value: 18446744073709551615n }],
  ['t.i64', { type: 'int64', value: -9223372036854775808n }],
  ['t.utf8', { type: 'string', value: 'héllo ✓ 🦙' }],
  ['t.empty', { type: 'string', value: '' }],
  ['t.strings', { type: 'array', itemType: 'string', value: ['a', 'Ġb', ''] }],
  ['t.i32s', { type: 'array', itemType: 'int32', value: [1, -2, 3] }],
  ['t.f32s', { type: 'array', itemType: 'float32', value: [0.25, -1000] }],
  ['t.bools', { type: 'array', itemType: 'bool', value: [true, false] }],
  ['t.u64s', { type: 'array', itemType: 'uint64', value: [1n, 2n] }],
  ['t.nested', { type: 'array', itemType: 'array', value: [
    { type: 'array', itemType: 'uint8', value: [1, 2] },
    { type: 'array', itemType: 'string', value: ['x'] },
  ] }],
  ['t.none', { type: 'array', itemType: 'float64', value: [] }],
];

test('write then read keeps every value type, key order and tensor layout', async () => {
  const path = join(dir, 'all.gguf');
  const a = Float32Array.from({ length: 6 }, (_, i) => i + 0.5);
  const b = Float32Array.from([7, 8, 9]); // 12 bytes: the next tensor must start aligned
  const c = Float32Array.from({ length: 4 }, (_, i) => -i);
  await writeGGUF(path, { metadata: everyType, tensors: [
    { name: 'a', dims: [3, 2], data: a }, { name: 'b', dims: [3], data: b }, { name: 'c', dims: [2, 2], data: c },
  ] });
  const file = await readGGUF(path);
  assert.is(file.version, 3);
  assert.equal([...file.metadata.keys()], everyType.map(([k]) => k));
  for (const [key, value] of everyType) assert.equal(file.metadata.get(key), value, key);
  assert.is(file.alignment, 32);
  assert.is(file.dataOffset % 32, 0);
  assert.equal(file.tensors.map((t) => [t.name, t.dims, t.type, t.offset]), [['a', [3, 2], 0, 0], ['b', [3], 0, 32], ['c', [2, 2], 0, 64]]);

  const bytes = await readFile(path);
  const at = (offset: number, n: number): number[] =>
    [...new Float32Array(bytes.buffer.slice(bytes.byteOffset + file.dataOffset + offset, bytes.byteOffset + file.dataOffset + offset + 4 * n))];
  assert.equal(at(0, 6), [...a]);
  assert.equal(at(32, 3), [...b]);
  assert.equal(at(64, 4), [...c]);
  assert.equal(ggufValue(file, 't.nested'), [[1, 2], ['x']]);
});

test('general.alignment is honoured on write and read', async () => {
  const path = join(dir, 'align.gguf');
  await writeGGUF(path, {
    metadata: [['general.alignment', { type: 'uint32', value: 64 }]],
    tensors: [{ name: 'x', dims: [1], data: Float32Array.of(1) }, { name: 'y', dims: [1], data: Float32Array.of(2) }],
  });
  const file = await readGGUF(path);
  assert.is(file.alignment, 64);
  assert.is(file.dataOffset % 64, 0);
  assert.is(file.tensors[1]?.offset, 64);
  assert.is(file.fileSize, file.dataOffset + 128);
});

test('I64 tensors (EAGLE-3\'s d2t map) are written as 8-byte integers; other typed-array pairings are refused', async () => {
  const path = join(dir, 'i64.gguf');
  await writeGGUF(path, { metadata: [], tensors: [{ name: 'd2t', dims: [3], type: GGML_TYPE_I64, data: BigInt64Array.of(5n, -1n, 1n << 40n) }, { name: 'x', dims: [1], data: Float32Array.of(2) }] });
  const file = await readGGUF(path);
  const info = file.tensors[0]!;
  assert.is(info.type, GGML_TYPE_I64);
  const bytes = await readFile(path);
  const start = bytes.byteOffset + file.dataOffset + info.offset;
  assert.equal(Array.from(new BigInt64Array(bytes.buffer.slice(start, start + 24))), [5n, -1n, 1n << 40n]);
  assert.is(file.tensors[1]!.offset, 32);
  await rejects(() => writeGGUF(join(dir, 'bad-i64.gguf'), { metadata: [], tensors: [{ name: 'x', dims: [1], type: GGML_TYPE_I64, data: Float32Array.of(1) }] }), /only F32 .* or I64/);
});

test('a wrong tensor size and a mistyped value are refused, leaving no file', async () => {
  const path = join(dir, 'bad.gguf');
  await rejects(() => writeGGUF(path, { metadata: [], tensors: [{ name: 'x', dims: [2, 2], data: new Float32Array(3) }] }), /hold 4 values/);
  await rejects(() => writeGGUF(path, { metadata: [['k', { type: 'uint32', value: 'no' as unknown as number }]], tensors: [] }), /not a uint32/);
  assert.equal((await readdir(dir)).filter((n) => n.startsWith('bad')), []);
});

test('non-GGUF and truncated files are clear errors', async () => {
  const junk = join(dir, 'junk.gguf');
  await writeFile(junk, 'this is not a model file at all, really');
  await rejects(() => readGGUF(junk), /not a GGUF file/);
  const whole = join(dir, 'whole.gguf');
  await writeGGUF(whole, { metadata: everyType, tensors: [] });
  const cut = join(dir, 'cut.gguf');
  await writeFile(cut, (await readFile(whole)).subarray(0, 200));
  await rejects(() => readGGUF(cut), /truncated/);
});

test('copying a real vocabulary reproduces its header byte for byte', async () => {
  const source = await vocabularyPath('gpt-2');
  const file = await readGGUF(source);
  assert.is(file.tensors.length, 0);
  const tokens = file.metadata.get('tokenizer.ggml.tokens');
  assert.ok(tokens?.type === 'array' && tokens.itemType === 'string' && tokens.value.length === 50257);
  assert.equal(file.metadata.get('tokenizer.ggml.token_type')?.type, 'array');
  const copy = join(dir, 'copy.gguf');
  await writeGGUF(copy, { metadata: file.metadata, tensors: [] });
  const original = await readFile(source);
  const written = await readFile(copy);
  // The original ends right after its header; ours is padded to the alignment.
  assert.is(written.length, file.dataOffset);
  assert.ok(written.subarray(0, original.length).equals(original));
});

test('reading a large header works across read chunks (llama-bpe, 7.8 MB)', async () => {
  const file = await readGGUF(await vocabularyPath('llama-bpe'));
  const merges = file.metadata.get('tokenizer.ggml.merges');
  assert.ok(merges?.type === 'array' && merges.value.length === 280147);
  const info = ggufModelInfo(file);
  assert.is(info.architecture, 'llama');
  assert.is(info.contextLength, 8192);
  assert.is(info.headCount, 32);
  assert.is(info.headCountKv, 8);
  assert.is(info.keyLength, 128);
  assert.is(info.vocabSize, 128256);
  assert.is(info.slidingWindow, undefined);
  assert.is(info.fileSize, 7818140);
});

test('ggufModelInfo: per-layer head counts and sliding window (gemma-4 vocab)', async () => {
  const info = ggufModelInfo(await readGGUF(await vocabularyPath('gemma-4')));
  assert.is(info.architecture, 'gemma4');
  assert.is(info.slidingWindow, 1024);
  assert.is(info.headCountKv, 8);
  assert.ok(info.chatTemplate?.includes('<start_of_turn>') || (info.chatTemplate?.length ?? 0) > 100);
});

test('readGGUF does not read tensor data', async () => {
  // A header followed by a 64 MB hole: reading must stay fast and not touch the data.
  const path = join(dir, 'big.gguf');
  await writeGGUF(path, { metadata: everyType, tensors: [{ name: 'x', dims: [4], data: new Float32Array(4) }] });
  const handle = await open(path, 'r+');
  await handle.truncate(64 * 1024 * 1024);
  await handle.close();
  const start = performance.now();
  const file = await readGGUF(path);
  assert.ok(performance.now() - start < 500);
  assert.is(file.fileSize, 64 * 1024 * 1024);
});

test.run();
