// The relative imports between the repository's TypeScript files, for the tests that keep the
// tree's arrows pointing one way (test/compiler/import-cycles.test.ts, test/layers.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Every .ts file under a folder, at any depth. */
export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

/** Relative imports, re-exports and dynamic imports of a file, as absolute .ts paths (type-only ones too). */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/gms)) out.push(resolve(dirname(file), (m[1] ?? m[2])!.replace(/\.js$/, '.ts')));
  return out;
}

/** Every cycle's files, as found by a depth-first search (one per back edge). */
export function importCycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((g) => files.includes(g))]));
  const state = new Map<string, 1 | 2>(); // 1: on the path, 2: done
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (f: string): void => {
    state.set(f, 1);
    path.push(f);
    for (const g of graph.get(f)!) {
      if (state.get(g) === 1) cycles.push(path.slice(path.indexOf(g)));
      else if (!state.has(g)) visit(g);
    }
    path.pop();
    state.set(f, 2);
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}
