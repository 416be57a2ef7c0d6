// Installs a packed lmforge tarball into a scratch project as a user's `npm install` would,
// without the network: the scratch lockfile pins lmforge's dependencies to the exact versions,
// tarball addresses and integrity hashes of this repository's own lockfile, so `npm ci` takes
// them from the npm cache that installing this repository filled (`--prefer-offline` still
// fetches one that is missing there, where a registry is reachable). The optional GPU builds of
// llama.cpp (hundreds of MB) are left out; the CPU build and every other optional package stay.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface LockEntry {
  dev?: boolean;
  [field: string]: unknown;
}

/** `npm ci` of `tarball`, a file in an otherwise empty folder, in that folder. */
export function installTarball(tarball: string): void {
  const dir = dirname(tarball);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const spec = `file:${basename(tarball)}`;
  const packages: Record<string, unknown> = {
    '': { name: 'lmforge-scratch', dependencies: { lmforge: spec } },
    'node_modules/lmforge': {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: { lmforge: 'bin/lmforge.mjs' },
      engines: pkg.engines,
    },
  };
  // What lmforge needs at run time sits where it sits in this repository: at the top of
  // node_modules, beside lmforge, or nested under the package that needs another version.
  const gpuBuilds = new Set(Object.keys(pkg.optionalDependencies ?? {}).map((name) => `node_modules/${name}`));
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path.startsWith('node_modules/') && !entry.dev && !gpuBuilds.has(path)) packages[path] = entry;
  }
  // The repository's policy on install scripts too: koffi's would compile it from source
  // (a minute), where its prebuilt binary package serves.
  const scratch = { name: 'lmforge-scratch', private: true, type: 'module', dependencies: { lmforge: spec }, allowScripts: pkg.allowScripts };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(scratch, null, 2));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'lmforge-scratch', lockfileVersion: 3, requires: true, packages }, null, 2));
  const npm = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
  if (npm.status !== 0) throw new Error(`npm ci of the packed tarball failed:\n${npm.stdout}\n${npm.stderr}`);
}
