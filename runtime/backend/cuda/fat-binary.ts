// Reads which GPU code a CUDA library carries: the entries of its `.nv_fatbin` ELF section.
// Each entry is machine code (SASS, a cubin) for one sm_XY, or PTX for one compute_XY that the
// driver can compile at load time if it knows that PTX ISA version. Only headers are read (a
// few thousand positioned reads), never the 100+ MB of code.
//
//   const entries = readFatBinary('/path/libggml-cuda.so');   // [{ kind: 'sass', arch: 86 }, …]
//   summarizeFatBinary(entries)   // { sass: [86, 89, 120, 121], ptx: [{ arch: 75, isa: '9.1' }, …] }
//
// Layout (little-endian), as nvcc writes it: the section is a run of fat binaries, each a
// 16-byte header (magic 0xBA55ED50, u16 version, u16 header size, u64 size of its entries)
// followed by entries, each a header (u16 kind: 1 PTX, 2 ELF/SASS; u16 version; u32 header
// size; u64 payload size; …; u16 minor and u16 major at 24: the PTX ISA for PTX entries; u32
// arch at 28) and its payload.
import { ElfFile, type SectionRange } from './elf-file.js';
import { UserFacingError } from '../../../compiler/lmforge-error.js';

export interface FatBinaryEntry {
  kind: 'sass' | 'ptx';
  /** Compute capability as major × 10 + minor: 90 for sm_90 / compute_90. */
  arch: number;
  /** PTX only: the PTX ISA version the code was written in ("9.1"), which the driver must know. */
  ptxIsa?: string;
}

export interface FatBinarySummary {
  /** Architectures with machine code, ascending. */
  sass: number[];
  /** Architectures with PTX, ascending, each with the newest PTX ISA among its entries. */
  ptx: { arch: number; isa: string }[];
}

export class FatBinaryError extends UserFacingError {
  override name = 'FatBinaryError';
}

const FATBIN_MAGIC = 0xba55ed50;
const KIND_PTX = 1;
const KIND_SASS = 2;

export function readFatBinary(path: string): FatBinaryEntry[] {
  const elf = ElfFile.open(path);
  try {
    const section = elf.section('.nv_fatbin');
    if (!section) throw new FatBinaryError(`${path} has no .nv_fatbin section: it holds no CUDA code`);
    return readEntries(elf, section);
  } finally {
    elf.close();
  }
}

function readEntries(elf: ElfFile, section: SectionRange): FatBinaryEntry[] {
  const entries: FatBinaryEntry[] = [];
  const start = section.offset;
  const end = start + section.size;
  let at = start;
  while (at + 16 <= end) {
    const header = elf.read(at, 16);
    const magic = header.readUInt32LE(0);
    if (magic !== FATBIN_MAGIC) {
      // Fat binaries are 8-byte aligned; anything else between them is padding.
      if (magic === 0) {
        at += 8;
        continue;
      }
      throw new FatBinaryError(`${elf.path}: no fat binary header at section offset ${at - start} (magic 0x${magic.toString(16)})`);
    }
    const headerSize = header.readUInt16LE(6);
    const entriesEnd = at + headerSize + Number(header.readBigUInt64LE(8));
    if (entriesEnd > end) throw new FatBinaryError(`${elf.path}: a fat binary at section offset ${at - start} runs past the section's end`);
    let entry = at + headerSize;
    while (entry + 32 <= entriesEnd) {
      const head = elf.read(entry, 32);
      const kind = head.readUInt16LE(0);
      const entryHeaderSize = head.readUInt32LE(4);
      const payload = Number(head.readBigUInt64LE(8));
      const arch = head.readUInt32LE(28);
      if (kind === KIND_SASS) entries.push({ kind: 'sass', arch });
      else if (kind === KIND_PTX) entries.push({ kind: 'ptx', arch, ptxIsa: `${head.readUInt16LE(26)}.${head.readUInt16LE(24)}` });
      if (entryHeaderSize === 0) throw new FatBinaryError(`${elf.path}: an entry at section offset ${entry - start} has a zero-length header`);
      entry += entryHeaderSize + payload;
    }
    at = entriesEnd;
  }
  return entries;
}

export function summarizeFatBinary(entries: readonly FatBinaryEntry[]): FatBinarySummary {
  const sass = [...new Set(entries.filter((e) => e.kind === 'sass').map((e) => e.arch))].sort((a, b) => a - b);
  const ptx = new Map<number, string>();
  for (const entry of entries) {
    if (entry.kind !== 'ptx') continue;
    const known = ptx.get(entry.arch);
    if (known === undefined || compareVersions(entry.ptxIsa!, known) > 0) ptx.set(entry.arch, entry.ptxIsa!);
  }
  return { sass, ptx: [...ptx].sort(([a], [b]) => a - b).map(([arch, isa]) => ({ arch, isa })) };
}

/** Compares "major.minor" versions. */
export function compareVersions(a: string, b: string): number {
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am !== bm ? am - bm : an - bn;
}
