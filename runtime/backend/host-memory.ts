// How much memory the host (the CPU device) has for a model: total and available RAM from
// /proc/meminfo, bounded by the process's cgroup limit (v2 memory.max or v1
// memory.limit_in_bytes) and by $LMFORGE_MEMORY_LIMIT_BYTES. ggml reports the CPU's free
// memory as equal to its total, so sizing a KV cache from ggml's figure takes all of RAM.
import { readFileSync } from 'node:fs';
import { freemem, totalmem } from 'node:os';
import { join } from 'node:path';
import { UserFacingError } from '../../compiler/lmforge-error.js';

export interface HostMemory {
  /** RAM this process may use at all: physical memory, or a smaller limit. */
  totalBytes: number;
  /** Of that, what is free or reclaimable now (MemAvailable, or the limit minus the cgroup's use). */
  availableBytes: number;
  /** What bounded the figures, for messages: "RAM", "cgroup memory.max", "LMFORGE_MEMORY_LIMIT_BYTES". */
  source: string;
}

/** Environment variable that fixes the memory figure (tests, or a limit the user wants kept). */
export const MEMORY_LIMIT_ENV = 'LMFORGE_MEMORY_LIMIT_BYTES';

export class MemoryLimitError extends UserFacingError {
  override name = 'MemoryLimitError';
}

export interface HostMemoryOptions {
  /** Folder that holds proc/ and sys/ (tests point it at a fake tree); default "/". */
  root?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The host's memory as this process sees it. $LMFORGE_MEMORY_LIMIT_BYTES, when set, counts as
 * a limit that is entirely available (so a test gets the same figures on every machine).
 */
export function readHostMemory(options: HostMemoryOptions = {}): HostMemory {
  const root = options.root ?? '/';
  const env = options.env ?? process.env;
  const meminfo = readMeminfo(root);
  let totalBytes = meminfo?.totalBytes ?? totalmem();
  let availableBytes = meminfo?.availableBytes ?? freemem();
  let source = 'RAM';
  const cgroup = readCgroupLimit(root);
  if (cgroup && cgroup.limitBytes < totalBytes) {
    totalBytes = cgroup.limitBytes;
    source = `cgroup ${cgroup.file}`;
  }
  if (cgroup) availableBytes = Math.min(availableBytes, Math.max(0, cgroup.limitBytes - cgroup.usedBytes));
  const raw = env[MEMORY_LIMIT_ENV];
  if (raw !== undefined && raw !== '') {
    const limit = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(limit) || limit <= 0) {
      throw new MemoryLimitError(`${MEMORY_LIMIT_ENV}=${raw} is not valid: it must be a whole number of bytes > 0`);
    }
    totalBytes = limit;
    availableBytes = limit;
    source = MEMORY_LIMIT_ENV;
  }
  return { totalBytes, availableBytes: Math.min(availableBytes, totalBytes), source };
}

/** MemTotal and MemAvailable in bytes, or undefined where /proc/meminfo is missing (not Linux). */
export function readMeminfo(root: string): { totalBytes: number; availableBytes: number } | undefined {
  const text = readText(join(root, 'proc', 'meminfo'));
  if (text === undefined) return undefined;
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : undefined;
  };
  const totalBytes = field('MemTotal');
  if (totalBytes === undefined) return undefined;
  // Kernels before 3.14 have no MemAvailable: free plus page cache is the old estimate.
  const availableBytes = field('MemAvailable') ?? (field('MemFree') ?? 0) + (field('Cached') ?? 0);
  return { totalBytes, availableBytes };
}

interface CgroupLimit {
  limitBytes: number;
  /** Memory charged to the cgroup now, less the file cache it could drop. */
  usedBytes: number;
  /** The file that set the limit, relative to the cgroup folder. */
  file: string;
}

/**
 * The tightest memory limit among this process's cgroup and its ancestors, v2 or v1, or
 * undefined when there is none. Inside a container the cgroup namespace makes the process's
 * own cgroup the root of /sys/fs/cgroup, so the root folder counts as well.
 */
export function readCgroupLimit(root: string): CgroupLimit | undefined {
  const membership = readText(join(root, 'proc', 'self', 'cgroup')) ?? '';
  const folders: { dir: string; max: string; current: string }[] = [];
  const unified = /^0::(\/.*)$/m.exec(membership)?.[1];
  const v2Base = join(root, 'sys', 'fs', 'cgroup');
  if (unified !== undefined) {
    for (const path of ancestors(unified)) folders.push({ dir: join(v2Base, path), max: 'memory.max', current: 'memory.current' });
  }
  const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(\/.*)$/m.exec(membership)?.[1];
  const v1Base = join(root, 'sys', 'fs', 'cgroup', 'memory');
  if (v1 !== undefined) {
    for (const path of ancestors(v1)) folders.push({ dir: join(v1Base, path), max: 'memory.limit_in_bytes', current: 'memory.usage_in_bytes' });
  }
  let best: CgroupLimit | undefined;
  for (const folder of folders) {
    const limitBytes = parseLimit(readText(join(folder.dir, folder.max)));
    if (limitBytes === undefined || (best && best.limitBytes <= limitBytes)) continue;
    const current = Number(readText(join(folder.dir, folder.current))?.trim() ?? 0) || 0;
    const stat = readText(join(folder.dir, 'memory.stat')) ?? '';
    const inactiveFile = Number(/^(?:total_)?inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
    best = { limitBytes, usedBytes: Math.max(0, current - inactiveFile), file: folder.max };
  }
  return best;
}

/** A limit file's value in bytes; "max" and v1's "no limit" (close to 2^63) are no limit. */
function parseLimit(text: string | undefined): number | undefined {
  const value = text?.trim();
  if (!value || value === 'max' || !/^\d+$/.test(value)) return undefined;
  const bytes = Number(value);
  return bytes >= 2 ** 60 ? undefined : bytes;
}

/** "/a/b" → ["/a/b", "/a", "/"]. */
function ancestors(path: string): string[] {
  const parts = path.split('/').filter(Boolean);
  return Array.from({ length: parts.length + 1 }, (_, i) => '/' + parts.slice(0, parts.length - i).join('/'));
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
