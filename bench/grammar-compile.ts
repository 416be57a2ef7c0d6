// Compile-time benchmark of the grammar compiler: the built-in JSON grammar and every schema
// of the corpus (fixtures/schemas), front end + passes + automata, no vocabulary.
//
//   npx tsx bench/grammar-compile.ts          # text
//   npx tsx bench/grammar-compile.ts --json   # one JSON object
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../compiler/index.js';
import { dialectOf } from '../compiler/json-schema/dialect.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
/** A fresh ajv of the schema's draft (the corpus has a draft-07 tuple). */
const freshAjv = (schema: unknown): Ajv => (dialectOf(schema) === 'draft-07' ? new Ajv({ strict: false }) : (new Ajv2020({ strict: false }) as unknown as Ajv));

const json = process.argv.includes('--json');
const REPEATS = 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median wall time (ms) of `fn` over a few runs, after one warm-up. */
function time(fn: () => void): number {
  fn();
  const runs: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    fn();
    runs.push(performance.now() - t0);
  }
  return median(runs);
}

const compileOnce = (make: () => Grammar) => () => new GrammarCompiler({ cache: false }).compile(make());

const builtin = compileOnce(() => Grammar.builtinJSON());
const builtinMs = time(builtin);
const builtinCompiled = new GrammarCompiler().compile(Grammar.builtinJSON());

const dir = new URL('../fixtures/schemas/', import.meta.url);
const schemas = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => ({ name: f.replace(/\.json$/, ''), schema: JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as unknown }));
const perSchema = schemas.map(({ name, schema }) => ({ name, ms: time(compileOnce(() => Grammar.fromJSONSchema(schema))) }));
const corpusMs = perSchema.reduce((n, s) => n + s.ms, 0);
// Reference measured in the same run: a fresh ajv (with formats) compiling a validator per schema.
const ajvMs = schemas.reduce((n, { schema }) => n + time(() => addFormats(freshAjv(schema)).compile(schema as object)), 0);
const slowest = [...perSchema].sort((a, b) => b.ms - a.ms).slice(0, 5);

// Matching speed for reference: a ~10 KB JSON document through the built-in grammar.
const doc = JSON.stringify(Array.from({ length: 120 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'], price: i * 1.25, ok: i % 2 === 0 })));
const matchMs = time(() => {
  const m = new GrammarMatcher(builtinCompiled);
  if (!m.acceptString(doc) || !m.isCompleted()) throw new Error('benchmark document rejected');
});

const parseMs = time(() => JSON.parse(doc));

const result = {
  builtinJson: { ms: builtinMs, rules: builtinCompiled.numRules, states: builtinCompiled.numStates, edges: builtinCompiled.numEdges },
  schemaCorpus: { schemas: schemas.length, totalMs: corpusMs, meanMs: corpusMs / schemas.length, medianMs: median(perSchema.map((s) => s.ms)), slowest, ajvCompileTotalMs: ajvMs, ratioToAjv: corpusMs / ajvMs },
  matchBuiltinJson: { bytes: doc.length, ms: matchMs, microsecondsPerByte: (1000 * matchMs) / doc.length, jsonParseMs: parseMs, ratioToJsonParse: matchMs / parseMs },
  node: process.version,
};

if (json) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f = (x: number): string => x.toFixed(2);
  console.log(`grammar compile (median of ${REPEATS}, no vocabulary, ${process.version})`);
  console.log(`  built-in JSON grammar   ${f(builtinMs)} ms  (${result.builtinJson.rules} rules, ${result.builtinJson.states} states, ${result.builtinJson.edges} edges)`);
  console.log(`  schema corpus           ${f(corpusMs)} ms total for ${schemas.length} schemas, mean ${f(result.schemaCorpus.meanMs)} ms, median ${f(result.schemaCorpus.medianMs)} ms`);
  console.log(`    reference: fresh ajv + compile of the same schemas ${f(ajvMs)} ms (ratio ${f(result.schemaCorpus.ratioToAjv)}x)`);
  console.log(`  slowest: ${slowest.map((s) => `${s.name} ${f(s.ms)} ms`).join(', ')}`);
  console.log(`  matching the built-in JSON grammar: ${f(matchMs)} ms for ${doc.length} bytes (${f(result.matchBuiltinJson.microsecondsPerByte)} µs/byte; JSON.parse ${f(parseMs)} ms, ratio ${f(result.matchBuiltinJson.ratioToJsonParse)}x)`);
}
