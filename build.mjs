// Builds dist/ for the package: tsc compiles cli/, compiler/ and runtime/ (tsconfig.build.json)
// to JavaScript with declarations, one file per source file, so each worker's .js lands beside
// the module that starts it (compiler/workers/worker-entry.ts) and `exports` points into it.
// The web chat page (ui/: plain ES modules, HTML and CSS) is copied as it is to dist/ui/, two
// folders above dist/runtime/server/ as ui/ is above runtime/server/ (runtime/server/chat-page.ts).
// `npm pack` runs this (prepack); in a checkout bin/lmforge.mjs runs the sources instead.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(`${root}dist`, { recursive: true, force: true }); // nothing of a deleted source stays behind
const started = performance.now();
const result = spawnSync(process.execPath, [tsc, '-p', `${root}tsconfig.build.json`], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
cpSync(`${root}ui`, `${root}dist/ui`, { recursive: true });
console.log(`built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
