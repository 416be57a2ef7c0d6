// Bundles the CLI and the engine worker into dist/ (node bin/lmforge.mjs prefers dist/cli.js).
// Dependencies stay external: koffi and the llama.cpp binaries are native and load from node_modules.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const outdir = process.argv[2] ?? 'dist';

await build({
  entryPoints: { cli: 'cli/main.ts', 'engine-worker': 'runtime/engine/engine-worker.ts', 'grammar-worker': 'runtime/engine/grammar-worker.ts', 'mask-worker': 'compiler/mask/mask-worker.ts' },
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  external: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})],
  logLevel: 'warning',
});
console.log(`built ${outdir}/cli.js and its workers`);
