// llama.cpp's source tree at the pinned release, as the git bundle node-llama-cpp ships (the
// same release as the prebuilt binaries). Fetched with `npm pack` from the npm registry rather
// than installed: node-llama-cpp@3.22.1 lists platform packages that were never published at
// that version, which makes `npm ci` refuse any project that depends on it.
//   const bundle = await llamaSourceBundle(cacheDir);   // cacheDir/llama.cpp-3.22.1.bundle
//   await cloneLlamaSource(bundle, dir);                 // a checkout at the bundle's commit
import { execFile } from 'node:child_process';
import { access, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PINNED_BINARIES_VERSION } from './library.js';

const run = promisify(execFile);
const exists = (path: string) => access(path).then(() => true, () => false);

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

/** Clones the bundle into `dir` unless a checkout is there already; returns its commit. */
export async function cloneLlamaSource(bundle: string, dir: string): Promise<string> {
  if (!(await exists(join(dir, 'CMakeLists.txt')))) {
    await rm(dir, { recursive: true, force: true });
    await run('git', ['clone', '-q', bundle, dir]);
  }
  return (await run('git', ['-C', dir, 'rev-parse', 'HEAD'])).stdout.trim();
}
