// Just enough of a 64-bit little-endian ELF shared library to judge it before loading it: where
// a section lies, and which libraries it needs (DT_NEEDED). Reads by position, never the whole
// file (a CUDA library is 150-400 MB).
import { closeSync, openSync, readSync } from 'node:fs';
import { UserFacingError } from '../../../compiler/lmforge-error.js';

export interface SectionRange {
  offset: number;
  size: number;
}

export class ElfError extends UserFacingError {
  override name = 'ElfError';
}

const DT_NULL = 0n;
const DT_NEEDED = 1n;

export class ElfFile {
  private readonly sections = new Map<string, SectionRange>();

  private constructor(
    readonly path: string,
    private readonly fd: number,
  ) {}

  /** The sonames `path` links against, in order (opens and closes the file). */
  static neededLibrariesOf(path: string): string[] {
    const elf = ElfFile.open(path);
    try {
      return elf.neededLibraries();
    } finally {
      elf.close();
    }
  }

  /** Opens the file and reads its section table; close() when done. */
  static open(path: string): ElfFile {
    const elf = new ElfFile(path, openSync(path, 'r'));
    try {
      elf.readSectionTable();
    } catch (error) {
      elf.close();
      throw error;
    }
    return elf;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** `length` bytes at `offset`; throws on a short read (a truncated file). */
  read(offset: number, length: number): Buffer {
    const buffer = Buffer.alloc(length);
    const got = readSync(this.fd, buffer, 0, length, offset);
    if (got < length) throw new ElfError(`${this.path}: truncated at byte ${offset + got} (wanted ${length} bytes at ${offset})`);
    return buffer;
  }

  section(name: string): SectionRange | undefined {
    return this.sections.get(name);
  }

  /** The sonames of the libraries it links against, in order. */
  neededLibraries(): string[] {
    const dynamic = this.section('.dynamic');
    const strings = this.section('.dynstr');
    if (!dynamic || !strings) return [];
    const table = this.read(dynamic.offset, dynamic.size);
    const names = this.read(strings.offset, strings.size);
    const needed: string[] = [];
    for (let at = 0; at + 16 <= table.length; at += 16) {
      const tag = table.readBigInt64LE(at);
      if (tag === DT_NULL) break;
      if (tag !== DT_NEEDED) continue;
      const start = Number(table.readBigUInt64LE(at + 8));
      needed.push(names.toString('latin1', start, names.indexOf(0, start)));
    }
    return needed;
  }

  private readSectionTable(): void {
    const ident = this.read(0, 64);
    if (ident.readUInt32BE(0) !== 0x7f454c46) throw new ElfError(`${this.path} is not an ELF file`);
    if (ident[4] !== 2 || ident[5] !== 1) throw new ElfError(`${this.path} is not a 64-bit little-endian ELF file`);
    const tableOffset = Number(ident.readBigUInt64LE(0x28));
    const entrySize = ident.readUInt16LE(0x3a);
    const count = ident.readUInt16LE(0x3c);
    const namesIndex = ident.readUInt16LE(0x3e);
    const table = this.read(tableOffset, entrySize * count);
    const at = (i: number) => ({
      nameOffset: table.readUInt32LE(i * entrySize),
      offset: Number(table.readBigUInt64LE(i * entrySize + 0x18)),
      size: Number(table.readBigUInt64LE(i * entrySize + 0x20)),
    });
    const namesSection = at(namesIndex);
    const names = this.read(namesSection.offset, namesSection.size);
    for (let i = 0; i < count; i++) {
      const { nameOffset, offset, size } = at(i);
      this.sections.set(names.toString('latin1', nameOffset, names.indexOf(0, nameOffset)), { offset, size });
    }
  }
}
