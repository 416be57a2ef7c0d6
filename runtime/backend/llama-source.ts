// llama.cpp's source tree at the pinned release, as the git bundle node-llama-cpp ships (the
// same release as the prebuilt binaries). Fetched with `npm pack` from the npm registry rather
// than installed: node-llama-cpp@3.22.1 lists platform packages that were never published at
// that version, which makes `npm ci` refuse any project that depends on it.
//   const commit = await pinnedLlamaSource(cacheDir, dir);   // the checkout in dir, cloned if absent
//   const bundle = await llamaSourceBundle(cacheDir);         // cacheDir/llama.cpp-3.22.1.bundle
//   await cloneLlamaSource(bundle, dir);                      // a checkout at the bundle's commit
// A checkout may also come as a plain tree without git's history (unpacked from a tarball on a
// machine with neither git nor a network): SOURCE_COMMIT_FILE at its root names its commit.
import { UserFacingError } from '../../compiler/lmforge-error.js';
import { execFile } from 'node:child_process';
import { access, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PINNED_BINARIES_VERSION } from './library.js';

const run = promisify(execFile);
const exists = (path: string) => access(path).then(() => true, () => false);

/** In a source tree without `.git`, the file holding the commit it was exported from. */
export const SOURCE_COMMIT_FILE = '.lmforge-source-commit';

export class LlamaSourceError extends UserFacingError {
  override name = 'LlamaSourceError';
}

/** The bundle's path in `cacheDir`, fetched on first use. */
export async function llamaSourceBundle(cacheDir: string): Promise<string> {
  const bundlePath = join(cacheDir, `llama.cpp-${PINNED_BINARIES_VERSION}.bundle`);
  if (await exists(bundlePath)) return bundlePath;
  await mkdir(cacheDir, { recursive: true });
  const work = join(cacheDir, `pack-${process.pid}-${Date.now()}`);
  await mkdir(work);
  try {
    const { stdout } = await run('npm', ['pack', `node-llama-cpp@${PINNED_BINARIES_VERSION}`, '--silent', '--pack-destination', work]);
    const tarball = join(work, stdout.trim().split('\n').at(-1)!);
    await run('tar', ['-xzf', tarball, '-C', work, 'package/llama/gitRelease.bundle']);
    await rename(join(work, 'package', 'llama', 'gitRelease.bundle'), bundlePath);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return bundlePath;
}

/** The checkout in `dir` (cloned from the bundle in `cacheDir` when there is none); returns its commit. */
export async function pinnedLlamaSource(cacheDir: string, dir: string): Promise<string> {
  // An existing tree needs neither the bundle nor git: the build machine may have no network.
  return (await checkoutCommit(dir)) ?? cloneLlamaSource(await llamaSourceBundle(cacheDir), dir);
}

/** Clones the bundle into `dir` unless a checkout is there already; returns its commit. */
export async function cloneLlamaSource(bundle: string, dir: string): Promise<string> {
  const existing = await checkoutCommit(dir);
  if (existing) return existing;
  await rm(dir, { recursive: true, force: true });
  await run('git', ['clone', '-q', bundle, dir]);
  return (await checkoutCommit(dir))!;
}

/** The commit of the source tree in `dir` (git's HEAD, else SOURCE_COMMIT_FILE), or undefined when there is no tree. */
export async function checkoutCommit(dir: string): Promise<string | undefined> {
  if (!(await exists(join(dir, 'CMakeLists.txt')))) return undefined;
  if (await exists(join(dir, '.git'))) return (await run('git', ['-C', dir, 'rev-parse', 'HEAD'])).stdout.trim();
  const recorded = (await readFile(join(dir, SOURCE_COMMIT_FILE), 'utf8').catch(() => '')).trim();
  if (!/^[0-9a-f]{40}$/.test(recorded)) {
    throw new LlamaSourceError(`${dir} holds a llama.cpp tree with neither git's history nor a ${SOURCE_COMMIT_FILE} naming its commit: remove the folder to fetch the pinned source again`);
  }
  return recorded;
}
