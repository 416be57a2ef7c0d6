// The compiler's modules form no import cycle, type-only imports included: the public matcher
// uses the row engine and the mask compiler, which use the row engine and the automata, never
// the matcher or the compiled grammar. A depth-first search over the relative imports of
// compiler/**/*.ts, the structural-tag front end included: its lowerer and validator dispatch to
// one file per node family, which call back only through the leaf interfaces of
// lower-context.ts and validate-context.ts.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('import-cycles');
const root = fileURLToPath(new URL('../../compiler/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

/** Relative imports and re-exports of a file, as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)) out.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
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

test('compiler/: no import cycles', () => {
  const files = sources(root);
  assert.ok(files.length > 50, `found ${files.length} modules`);
  assert.ok(importsOf(join(root, 'matcher.ts')).length > 3, 'imports are found');
  const frontEnd = files.filter((f) => f.startsWith(join(root, 'structural-tag')));
  assert.ok(frontEnd.length >= 12 && importsOf(join(root, 'structural-tag', 'lower.ts')).length >= 5, 'the structural-tag front end is in the search');
  const cycles = importCycles(files).map((c) => c.map((f) => relative(root, f)).join(' -> '));
  assert.equal(cycles, []);
});

test('the check finds a cycle when there is one, type-only imports too', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmforge-cycles-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
    writeFileSync(join(dir, 'b.ts'), "import type {\n  C,\n} from './c.js';\nexport const b = 1 as C;\n");
    writeFileSync(join(dir, 'c.ts'), "export type C = number;\nexport { a } from './a.js';\n");
    const files = ['a.ts', 'b.ts', 'c.ts'].map((f) => join(dir, f));
    assert.equal(importCycles(files).map((c) => c.map((f) => relative(dir, f))), [['a.ts', 'b.ts', 'c.ts']]);
    writeFileSync(join(dir, 'c.ts'), 'export type C = number;\n');
    assert.equal(importCycles(files), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
