// GGUF v3 header reader and writer in plain TypeScript (no native code).
//
//   const file = await readGGUF('model.gguf');       // metadata + tensor infos, no tensor data
//   ggufModelInfo(file).contextLength;
//   await writeGGUF('out.gguf', { metadata, tensors }); // F32 tensors only
//
// Every metadata value keeps its exact GGUF type, so copying keys from one file to another
// (a vocabulary's tokens, token types, scores, merges) round-trips byte for byte.
// Layout reference: ggml/docs/gguf.md in llama.cpp.
import { open, rename, rm } from 'node:fs/promises';
import { UserFacingError } from '../lmforge-error.js';

const MAGIC = 0x46554747; // "GGUF" read as a little-endian uint32
const DEFAULT_ALIGNMENT = 32;
const READ_CHUNK = 1 << 20;

/** GGUF value type codes, as stored in the file. */
export const GGUF_TYPE = {
  uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5, float32: 6, bool: 7,
  string: 8, array: 9, uint64: 10, int64: 11, float64: 12,
} as const;
export type GGUFTypeName = keyof typeof GGUF_TYPE;
const TYPE_NAMES = Object.keys(GGUF_TYPE) as GGUFTypeName[]; // index = type code

export type GGUFNumberType = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'float64';
export type GGUFBigIntType = 'uint64' | 'int64';

/** One element of an array value: arrays may nest, so an element can itself be an array. */
export type GGUFPlain = number | bigint | boolean | string | GGUFArray;
export interface GGUFArray { type: 'array'; itemType: GGUFTypeName; value: GGUFPlain[] }
export type GGUFValue =
  | { type: GGUFNumberType; value: number }
  | { type: GGUFBigIntType; value: bigint }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | GGUFArray;

/** ggml tensor types this project writes; the reader accepts any code. */
export const GGML_TYPE_F32 = 0;
/** 64-bit integers: EAGLE-3's draft-to-target vocabulary map (`d2t`). */
export const GGML_TYPE_I64 = 27;

export interface GGUFTensorInfo {
  name: string;
  /** ggml order: dims[0] is the innermost (contiguous) dimension. */
  dims: number[];
  type: number;
  /** Byte offset of the tensor's data, relative to `dataOffset`. */
  offset: number;
}

export interface GGUFFile {
  path: string;
  version: number;
  /** Insertion order is the file's order. */
  metadata: Map<string, GGUFValue>;
  tensors: GGUFTensorInfo[];
  alignment: number;
  /** Absolute byte offset where tensor data begins. */
  dataOffset: number;
  fileSize: number;
}

export class GGUFFormatError extends UserFacingError {
  override name = 'GGUFFormatError';
}

// ---------------------------------------------------------------------------------------
// Reading

/** Buffered little-endian reader over a file handle, so a multi-GB file costs a few MB. */
class ChunkReader {
  private buf = Buffer.alloc(0);
  private pos = 0;
  private filePos = 0;
  constructor(private readonly handle: import('node:fs/promises').FileHandle, private readonly path: string, private readonly fileSize: number) {}

  /** Absolute file offset of the next byte to be read. */
  get offset(): number { return this.filePos - (this.buf.length - this.pos); }

  private async need(n: number): Promise<void> {
    if (this.buf.length - this.pos >= n) return;
    const rest = this.buf.subarray(this.pos);
    const next = Buffer.alloc(Math.max(READ_CHUNK, n));
    rest.copy(next);
    let have = rest.length;
    while (have < n) {
      const { bytesRead } = await this.handle.read(next, have, next.length - have, this.filePos);
      if (bytesRead === 0) throw new GGUFFormatError(`${this.path}: truncated GGUF header`);
      this.filePos += bytesRead;
      have += bytesRead;
    }
    this.buf = next.subarray(0, have);
    this.pos = 0;
  }

  async u32(): Promise<number> { await this.need(4); const v = this.buf.readUInt32LE(this.pos); this.pos += 4; return v; }
  async u64(): Promise<bigint> { await this.need(8); const v = this.buf.readBigUInt64LE(this.pos); this.pos += 8; return v; }
  async count(what: string): Promise<number> {
    const v = await this.u64();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new GGUFFormatError(`${this.path}: implausible ${what} ${v}`);
    return Number(v);
  }
  /** Fails at once on a length that cannot fit in the rest of the file (a damaged count), instead of allocating it. */
  private fits(items: number, what: string): void {
    if (items > this.fileSize - this.offset) throw new GGUFFormatError(`${this.path}: truncated GGUF header: a ${what} of ${items} at byte ${this.offset} runs past the end of the ${this.fileSize}-byte file`);
  }
  async string(): Promise<string> {
    const len = await this.count('string length');
    this.fits(len, 'string length');
    await this.need(len);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  async plain(type: GGUFTypeName): Promise<GGUFPlain> {
    if (type === 'string') return this.string();
    if (type === 'array') return this.array();
    const size = SCALAR_SIZE[type];
    await this.need(size);
    const b = this.buf, p = this.pos;
    this.pos += size;
    switch (type) {
      case 'uint8': return b.readUInt8(p);
      case 'int8': return b.readInt8(p);
      case 'uint16': return b.readUInt16LE(p);
      case 'int16': return b.readInt16LE(p);
      case 'uint32': return b.readUInt32LE(p);
      case 'int32': return b.readInt32LE(p);
      case 'float32': return b.readFloatLE(p);
      case 'float64': return b.readDoubleLE(p);
      case 'bool': return b.readUInt8(p) !== 0;
      case 'uint64': return b.readBigUInt64LE(p);
      case 'int64': return b.readBigInt64LE(p);
    }
  }

  async array(): Promise<GGUFArray> {
    const itemType = this.typeName(await this.u32());
    const n = await this.count('array length');
    this.fits(n, 'array length');
    const value: GGUFPlain[] = new Array(n);
    for (let i = 0; i < n; i++) value[i] = await this.plain(itemType);
    return { type: 'array', itemType, value };
  }

  typeName(code: number): GGUFTypeName {
    const name = TYPE_NAMES[code];
    if (name === undefined) throw new GGUFFormatError(`${this.path}: unknown GGUF value type ${code} at byte ${this.offset - 4}`);
    return name;
  }
}

const SCALAR_SIZE: Record<Exclude<GGUFTypeName, 'string' | 'array'>, number> = {
  uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, float32: 4, bool: 1,
  uint64: 8, int64: 8, float64: 8,
};

/** Reads a GGUF file's header: metadata and tensor infos, never the tensor data. */
export async function readGGUF(path: string): Promise<GGUFFile> {
  const handle = await open(path, 'r');
  try {
    const fileSize = (await handle.stat()).size;
    const r = new ChunkReader(handle, path, fileSize);
    if (fileSize < 24 || (await r.u32()) !== MAGIC) throw new GGUFFormatError(`${path}: not a GGUF file`);
    const version = await r.u32();
    if (version !== 2 && version !== 3) throw new GGUFFormatError(`${path}: unsupported GGUF version ${version} (need 2 or 3)`);
    const tensorCount = await r.count('tensor count');
    const kvCount = await r.count('metadata count');

    const metadata = new Map<string, GGUFValue>();
    for (let i = 0; i < kvCount; i++) {
      const key = await r.string();
      const type = r.typeName(await r.u32());
      // An array value is its own tagged object; a scalar gets wrapped with its type.
      metadata.set(key, type === 'array' ? await r.array() : ({ type, value: await r.plain(type) } as GGUFValue));
    }

    const tensors: GGUFTensorInfo[] = [];
    for (let i = 0; i < tensorCount; i++) {
      const name = await r.string();
      const nDims = await r.u32();
      const dims: number[] = [];
      for (let d = 0; d < nDims; d++) dims.push(await r.count('tensor dimension'));
      const type = await r.u32();
      const offset = await r.count('tensor offset');
      tensors.push({ name, dims, type, offset });
    }

    const alignValue = metadata.get('general.alignment');
    const alignment = alignValue && typeof alignValue.value === 'number' ? alignValue.value : DEFAULT_ALIGNMENT;
    if (!(alignment > 0)) throw new GGUFFormatError(`${path}: bad general.alignment ${alignment}`);
    return { path, version, metadata, tensors, alignment, dataOffset: alignUp(r.offset, alignment), fileSize };
  } finally {
    await handle.close();
  }
}

/** A metadata value without its type tag (arrays become plain JS arrays), or undefined. */
export function ggufValue(file: Pick<GGUFFile, 'metadata'>, key: string): unknown {
  const v = file.metadata.get(key);
  return v === undefined ? undefined : unwrap(v.type === 'array' ? v : v.value);
}

function unwrap(v: GGUFPlain): unknown {
  return typeof v === 'object' ? v.value.map(unwrap) : v;
}

// ---------------------------------------------------------------------------------------
// Writing

export interface GGUFTensorInput {
  name: string;
  dims: number[];
  /** F32 (0, the default) with Float32Array data, or I64 (27) with BigInt64Array data. */
  type?: number;
  data: Float32Array | BigInt64Array;
}

export interface GGUFWriteInput {
  metadata: Map<string, GGUFValue> | Iterable<readonly [string, GGUFValue]>;
  tensors: GGUFTensorInput[];
}

/** Growable little-endian byte sink for the header. */
class ByteSink {
  buf = Buffer.alloc(1 << 16);
  len = 0;
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  u32(v: number): void { this.room(4); this.buf.writeUInt32LE(v, this.len); this.len += 4; }
  u64(v: number | bigint): void { this.room(8); this.buf.writeBigUInt64LE(BigInt(v), this.len); this.len += 8; }
  string(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.u64(n);
    this.room(n);
    this.buf.write(s, this.len, 'utf8');
    this.len += n;
  }
  plain(type: GGUFTypeName, v: GGUFPlain, key: string): void {
    const bad = (): never => { throw new TypeError(`GGUF key ${key}: value ${String(v)} is not a ${type}`); };
    if (type === 'string') return typeof v === 'string' ? this.string(v) : bad();
    if (type === 'array') {
      if (typeof v !== 'object') return bad();
      this.u32(GGUF_TYPE[v.itemType]);
      this.u64(v.value.length);
      for (const item of v.value) this.plain(v.itemType, item, key);
      return;
    }
    const size = SCALAR_SIZE[type];
    this.room(size);
    const b = this.buf, p = this.len;
    if (type === 'uint64' || type === 'int64') {
      if (typeof v !== 'bigint') bad();
      if (type === 'uint64') b.writeBigUInt64LE(v as bigint, p); else b.writeBigInt64LE(v as bigint, p);
    } else if (type === 'bool') {
      if (typeof v !== 'boolean') bad();
      b.writeUInt8(v ? 1 : 0, p);
    } else {
      if (typeof v !== 'number') bad();
      const n = v as number;
      switch (type) {
        case 'uint8': b.writeUInt8(n, p); break;
        case 'int8': b.writeInt8(n, p); break;
        case 'uint16': b.writeUInt16LE(n, p); break;
        case 'int16': b.writeInt16LE(n, p); break;
        case 'uint32': b.writeUInt32LE(n, p); break;
        case 'int32': b.writeInt32LE(n, p); break;
        case 'float32': b.writeFloatLE(n, p); break;
        case 'float64': b.writeDoubleLE(n, p); break;
      }
    }
    this.len += size;
  }
  pad(alignment: number): void {
    const n = alignUp(this.len, alignment) - this.len;
    this.room(n);
    this.buf.fill(0, this.len, this.len + n);
    this.len += n;
  }
}

/**
 * Writes a GGUF v3 file: the metadata in the given order, then the tensors, each aligned to
 * `general.alignment` (default 32). Written to a temporary file and renamed into place, so a
 * reader never sees half a file.
 */
export async function writeGGUF(path: string, input: GGUFWriteInput): Promise<void> {
  const metadata = [...(input.metadata instanceof Map ? input.metadata.entries() : input.metadata)];
  const alignEntry = metadata.find(([k]) => k === 'general.alignment')?.[1];
  const alignment = alignEntry && typeof alignEntry.value === 'number' ? alignEntry.value : DEFAULT_ALIGNMENT;

  const sink = new ByteSink();
  sink.u32(MAGIC);
  sink.u32(3);
  sink.u64(input.tensors.length);
  sink.u64(metadata.length);
  for (const [key, value] of metadata) {
    sink.string(key);
    sink.u32(GGUF_TYPE[value.type]);
    sink.plain(value.type, value.type === 'array' ? value : value.value, key);
  }
  let offset = 0;
  for (const t of input.tensors) {
    const type = t.type ?? GGML_TYPE_F32;
    const i64 = type === GGML_TYPE_I64 && t.data instanceof BigInt64Array;
    if (!(type === GGML_TYPE_F32 && t.data instanceof Float32Array) && !i64) throw new TypeError(`tensor ${t.name}: only F32 (type 0, Float32Array) or I64 (type 27, BigInt64Array) can be written`);
    const elements = t.dims.reduce((a, b) => a * b, 1);
    if (elements !== t.data.length) throw new TypeError(`tensor ${t.name}: dims ${t.dims.join('x')} hold ${elements} values, data has ${t.data.length}`);
    sink.string(t.name);
    sink.u32(t.dims.length);
    for (const d of t.dims) sink.u64(d);
    sink.u32(type);
    sink.u64(offset);
    offset = alignUp(offset + t.data.byteLength, alignment);
  }
  sink.pad(alignment);

  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const handle = await open(tmp, 'w');
  try {
    await handle.write(sink.buf, 0, sink.len);
    const zeros = Buffer.alloc(alignment);
    for (const t of input.tensors) {
      const bytes = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
      await handle.write(bytes);
      const pad = alignUp(bytes.length, alignment) - bytes.length;
      if (pad > 0) await handle.write(zeros, 0, pad);
    }
    await handle.close();
    await rename(tmp, path);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw error;
  }
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

// ---------------------------------------------------------------------------------------
// Model facts

export interface GGUFModelInfo {
  architecture: string | undefined;
  name: string | undefined;
  contextLength: number | undefined;
  slidingWindow: number | undefined;
  chatTemplate: string | undefined;
  blockCount: number | undefined;
  embeddingLength: number | undefined;
  /** Largest per-layer value when the file stores one per layer. */
  headCount: number | undefined;
  headCountKv: number | undefined;
  /** Per-head K and V widths when stored; otherwise embeddingLength / headCount. */
  keyLength: number | undefined;
  valueLength: number | undefined;
  vocabSize: number | undefined;
  fileSize: number;
}

/** The facts the engine needs to size a context (and its KV cache) for a model. */
export function ggufModelInfo(file: GGUFFile): GGUFModelInfo {
  const str = (key: string): string | undefined => {
    const v = ggufValue(file, key);
    return typeof v === 'string' ? v : undefined;
  };
  const num = (key: string): number | undefined => {
    const v = ggufValue(file, key);
    if (typeof v === 'number') return v;
    if (typeof v === 'bigint') return Number(v);
    if (Array.isArray(v)) {
      const nums = v.filter((x): x is number => typeof x === 'number');
      return nums.length > 0 ? Math.max(...nums) : undefined;
    }
    return undefined;
  };
  const arch = str('general.architecture');
  const a = (suffix: string): number | undefined => (arch === undefined ? undefined : num(`${arch}.${suffix}`));
  const embeddingLength = a('embedding_length');
  const headCount = a('attention.head_count');
  const perHead = embeddingLength !== undefined && headCount ? embeddingLength / headCount : undefined;
  const tokens = file.metadata.get('tokenizer.ggml.tokens');
  return {
    architecture: arch,
    name: str('general.name'),
    contextLength: a('context_length'),
    slidingWindow: a('attention.sliding_window'),
    chatTemplate: str('tokenizer.chat_template'),
    blockCount: a('block_count'),
    embeddingLength,
    headCount,
    headCountKv: a('attention.head_count_kv') ?? headCount,
    keyLength: a('attention.key_length') ?? perHead,
    valueLength: a('attention.value_length') ?? perHead,
    vocabSize: a('vocab_size') ?? (tokens?.type === 'array' ? tokens.value.length : undefined),
    fileSize: file.fileSize,
  };
}

