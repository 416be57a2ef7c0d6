// The byte bound on an on-disk grammar cache folder. Servers store a file for each new output
// format (~16 KB) and compile-grammar adds its own; nothing removed them (an audit counted 10 GB
// in 17 hours at 10 new formats a second). Past the bound the least recently used files go:
// GrammarCache sets a file's mtime when it reads it, so the order is the files' mtimes.
//
// Several processes share the folder. Each keeps its own estimate of the total (one scan, then
// what it wrote itself) and scans again once it has written a sixteenth of the bound since, so
// the others' files are counted within that much; a file another process removed first is
// simply gone. The scan and the removals are asynchronous, a few files at a time, so a server's
// event loop is never held for long.
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * 1 GiB: ~65,000 of the server's typical 16 KB formats (a tool or schema format), weeks of
 * distinct formats for most servers and hundreds of large (enum) ones, yet little beside the
 * models in the same home folder.
 */
export const DEFAULT_GRAMMAR_CACHE_MAX_BYTES = 2 ** 30;
/** A pass prunes below the bound, so that the writes after it do not prune again at once. */
const PRUNE_TO = 0.8;
/** A temporary file this old was left by a writer that died, not one writing now. */
export const STALE_TMP_MS = 60 * 60 * 1000;
/** Files looked at at once: a scan of tens of thousands must not hold the fs thread pool from the server's reads. */
const STAT_BATCH = 32;
/** The writers' temporary files (`<name>.lmgrammar.<pid>.tmp`); nothing else in the folder is touched. */
const TEMPORARY = /\.lmgrammar\.\d+\.tmp$/;

interface StoredFile {
  path: string;
  bytes: number;
  usedMs: number;
}

export class GrammarCacheBound {
  /** Bytes of artifacts in the folder as last scanned, plus what this process wrote since; unknown before the first scan. */
  private estimate: number | undefined;
  private writtenSinceScan = 0;
  private pass: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /** Counts `bytes` just stored; scans and prunes the folder in the background when it may be over the bound. */
  written(bytes: number): void {
    this.writtenSinceScan += bytes;
    if (this.estimate !== undefined) this.estimate += bytes;
    if (this.pass) return; // it counts these bytes when it ends, and prunes again if they put the folder over
    const due = this.estimate === undefined || this.estimate > this.maxBytes || this.writtenSinceScan >= this.maxBytes / 16;
    if (!due) return;
    this.pass = this.pruneWhileOver()
      .catch(() => undefined) // a folder that cannot be pruned is still a cache
      .finally(() => (this.pass = undefined));
  }

  /** Settles once no pass runs (for a process about to exit, and for tests). */
  async settled(): Promise<void> {
    while (this.pass) await this.pass;
  }

  /** Prunes, and again while writes made during a pass leave the folder over the bound. */
  private async pruneWhileOver(): Promise<void> {
    do await this.prune();
    while (this.writtenSinceScan > 0 && this.estimate! > this.maxBytes);
  }

  private async prune(): Promise<void> {
    this.writtenSinceScan = 0;
    const files = await this.scan(Date.now());
    let total = files.reduce((sum, file) => sum + file.bytes, 0);
    if (total > this.maxBytes) {
      // Least recently used first. The newest file stays whatever its size: it is the one just
      // written, which its writer is about to use (or print).
      files.sort((a, b) => a.usedMs - b.usedMs);
      for (const file of files.slice(0, -1)) {
        if (total <= this.maxBytes * PRUNE_TO) break;
        // Already gone (another process pruned it) is as good as removed; a file that cannot be removed still counts.
        if (await removed(file.path)) total -= file.bytes;
      }
    }
    // Files written while the pass ran may be counted twice: an estimate over the bound only scans again sooner.
    this.estimate = total + this.writtenSinceScan;
  }

  /** The folder's artifacts; removes the temporary files writers that died left behind. */
  private async scan(now: number): Promise<StoredFile[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const files: StoredFile[] = [];
    for (let i = 0; i < names.length; i += STAT_BATCH) {
      await Promise.all(
        names.slice(i, i + STAT_BATCH).map(async (name) => {
          const path = join(this.dir, name);
          const info = await stat(path).catch(() => undefined); // removed since the listing
          if (!info?.isFile()) return;
          if (name.endsWith('.lmgrammar')) files.push({ path, bytes: info.size, usedMs: info.mtimeMs });
          else if (TEMPORARY.test(name) && now - info.mtimeMs > STALE_TMP_MS) await removed(path);
        }),
      );
    }
    return files;
  }
}

/** Whether the file is gone now: removed, or removed by someone else first. */
async function removed(path: string): Promise<boolean> {
  return unlink(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}
