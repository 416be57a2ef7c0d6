// The compiler's modules form no import cycle, type-only imports included: the public matcher
// uses the row engine and the mask compiler, which use the row engine and the automata, never
// the matcher or the compiled grammar. A depth-first search over the relative imports of
// compiler/**/*.ts, the structural-tag front end included: its lowerer and validator dispatch to
// one file per node family, which call back only through the leaf interfaces of
// lower-context.ts and validate-context.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { importCycles, importsOf, sources } from '../helpers/import-graph.js';

const test = suite('import-cycles');
const root = fileURLToPath(new URL('../../compiler/', import.meta.url));

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
