// Broken GGUFs made from the tiny fixture model, the way fixtures are made (gguf-file.ts's
// reader and writer): a rewritten header with the tensors' F32 data copied as they are, or
// the file's own bytes cut short or patched where the tensor table says.
import { open, readFile, writeFile } from 'node:fs/promises';
import { readGGUF, writeGGUF, type GGUFValue } from '../../../compiler/gguf/gguf-file.js';

/** The model rewritten with `edit` applied to its metadata (all of the tiny model's tensors are F32). */
export async function withMetadata(source: string, out: string, edit: (metadata: Map<string, GGUFValue>) => void): Promise<string> {
  const file = await readGGUF(source);
  const bytes = await readFile(source);
  const tensors = file.tensors.map((t) => {
    if (t.type !== 0) throw new Error(`${t.name} is not F32`);
    const count = t.dims.reduce((a, b) => a * b, 1);
    const start = file.dataOffset + t.offset;
    return { name: t.name, dims: t.dims, data: new Float32Array(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + start + count * 4)) };
  });
  const metadata = new Map(file.metadata);
  edit(metadata);
  await writeGGUF(out, { metadata, tensors });
  return out;
}

/** The first `length` bytes of the model (a download cut short). */
export async function truncated(source: string, out: string, length: number): Promise<string> {
  const handle = await open(source, 'r');
  try {
    const bytes = Buffer.alloc(length);
    await handle.read(bytes, 0, length, 0);
    await writeFile(out, bytes);
  } finally {
    await handle.close();
  }
  return out;
}

/**
 * The model with the last tensor's table entry patched: `offset` moves its data, `type` changes
 * its ggml type. The entry is the tensor's name, dims, then u32 type and u64 offset.
 */
export async function patchedTensor(source: string, out: string, patch: { offset?: number; type?: number }): Promise<string> {
  const file = await readGGUF(source);
  const bytes = Buffer.from(await readFile(source));
  const last = file.tensors.at(-1)!;
  const name = Buffer.from(last.name, 'utf8');
  // Its entry: u64 name length, the name, u32 dim count, u64 per dim, then type and offset.
  let at = bytes.lastIndexOf(name, file.dataOffset);
  if (at < 8) throw new Error(`no table entry for ${last.name}`);
  at += name.length + 4 + 8 * last.dims.length;
  if (patch.type !== undefined) bytes.writeUInt32LE(patch.type, at);
  if (patch.offset !== undefined) bytes.writeBigUInt64LE(BigInt(patch.offset), at + 4);
  await writeFile(out, bytes);
  return out;
}
