// Reads one file out of a zip archive (a Python wheel, say) without unpacking the rest:
// find the central directory from the end record, locate the entry, stream its bytes through
// inflate when deflated. Handles stored (0) and deflate (8) entries and zip64 sizes/offsets.
// The CRC-32 is not checked: callers pin a SHA-256 of what they extract.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import { createHash } from 'node:crypto';

export interface ZipEntry {
  name: string;
  method: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

export interface ExtractedFile {
  size: number;
  sha256: string;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Lists the archive's entries from its central directory. */
export async function listZipEntries(zipPath: string): Promise<ZipEntry[]> {
  const handle = await open(zipPath, 'r');
  try {
    const fileSize = (await handle.stat()).size;
    const read = async (position: number, length: number): Promise<Buffer> => {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buf, 0, length, position);
      if (bytesRead !== length) throw new Error(`${zipPath}: truncated zip`);
      return buf;
    };

    // The end record sits in the last 22 + up to 65535 (comment) bytes.
    const tailLength = Math.min(fileSize, 22 + 0xffff);
    const tail = await read(fileSize - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === EOCD) { at = i; break; }
    if (at < 0) throw new Error(`${zipPath}: not a zip file (no end of central directory)`);
    let count = tail.readUInt16LE(at + 10);
    let cdSize = tail.readUInt32LE(at + 12);
    let cdOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      const locatorAt = fileSize - tailLength + at - 20;
      const locator = await read(locatorAt, 20);
      if (locator.readUInt32LE(0) !== ZIP64_LOCATOR) throw new Error(`${zipPath}: zip64 locator missing`);
      const record = await read(Number(locator.readBigUInt64LE(8)), 56);
      if (record.readUInt32LE(0) !== ZIP64_EOCD) throw new Error(`${zipPath}: zip64 end record missing`);
      count = Number(record.readBigUInt64LE(32));
      cdSize = Number(record.readBigUInt64LE(40));
      cdOffset = Number(record.readBigUInt64LE(48));
    }

    const cd = await read(cdOffset, cdSize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let i = 0; i < count; i++) {
      if (cd.readUInt32LE(p) !== CENTRAL) throw new Error(`${zipPath}: bad central directory entry ${i}`);
      const nameLength = cd.readUInt16LE(p + 28);
      const extraLength = cd.readUInt16LE(p + 30);
      const commentLength = cd.readUInt16LE(p + 32);
      const entry: ZipEntry = {
        name: cd.toString('utf8', p + 46, p + 46 + nameLength),
        method: cd.readUInt16LE(p + 10),
        crc32: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localHeaderOffset: cd.readUInt32LE(p + 42),
      };
      applyZip64Extra(entry, cd.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength));
      entries.push(entry);
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await handle.close();
  }
}

/** Values saturated at 0xffffffff live, in this order, in the zip64 extra field (id 1). */
function applyZip64Extra(entry: ZipEntry, extra: Buffer): void {
  for (let q = 0; q + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(q);
    const length = extra.readUInt16LE(q + 2);
    if (id === 0x0001) {
      let r = q + 4;
      const next = (): number => { const v = Number(extra.readBigUInt64LE(r)); r += 8; return v; };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next();
      return;
    }
    q += 4 + length;
  }
}

/**
 * Extracts `entryName` to `outPath`, returning its size and SHA-256 (computed on the way, so
 * the caller need not read the file again). `onBytes` sees the running uncompressed count.
 */
export async function extractZipEntry(
  zipPath: string,
  entryName: string,
  outPath: string,
  onBytes?: (bytes: number) => void,
): Promise<ExtractedFile> {
  const hash = createHash('sha256');
  const handle = await open(outPath, 'w');
  try {
    const size = await streamZipEntry(zipPath, entryName, async (chunk, total) => {
      hash.update(chunk);
      await handle.write(chunk);
      onBytes?.(total);
    });
    return { size, sha256: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}

/**
 * Hands the entry's uncompressed bytes to `sink` a chunk at a time (with the running count),
 * in order, each after the previous one's promise settles; returns the entry's size.
 */
export async function streamZipEntry(
  zipPath: string,
  entryName: string,
  sink: (chunk: Buffer, total: number) => Promise<void> | void,
): Promise<number> {
  const entries = await listZipEntries(zipPath);
  const entry = entries.find((e) => e.name === entryName);
  if (!entry) throw new Error(`${zipPath} has no entry ${entryName}`);
  if (entry.method !== 0 && entry.method !== 8) throw new Error(`${entryName}: unsupported zip compression method ${entry.method}`);

  // The local header repeats name and extra with its own lengths; the data follows them.
  const handle = await open(zipPath, 'r');
  let dataStart: number;
  try {
    const header = Buffer.alloc(30);
    await handle.read(header, 0, 30, entry.localHeaderOffset);
    if (header.readUInt32LE(0) !== LOCAL) throw new Error(`${zipPath}: bad local header for ${entryName}`);
    dataStart = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    await handle.close();
  }

  let size = 0;
  const drain = async (source: AsyncIterable<Buffer>): Promise<void> => {
    for await (const chunk of source) {
      size += chunk.length;
      await sink(chunk, size);
    }
  };
  // createReadStream reads to the end of the file when end < start, so an empty entry gets
  // an empty source instead.
  const input = entry.compressedSize === 0
    ? Readable.from([])
    : createReadStream(zipPath, { start: dataStart, end: dataStart + entry.compressedSize - 1 });
  if (entry.method === 8) await pipeline(input, createInflateRaw(), drain);
  else await pipeline(input, drain);
  if (size !== entry.size) throw new Error(`${entryName}: extracted ${size} bytes, the zip says ${entry.size}`);
  return size;
}
