import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cac } from 'cac';
import { registerCompileGrammar, runCompileGrammar } from '../../cli/compile-grammar.js';
import { ARTIFACT_FORMAT_VERSION, deserializeCompiledGrammar, Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { GrammarCache, defaultGrammarCacheDir } from '../../compiler/node.js';
import { startCli } from '../helpers/cli-process.js';

const test = suite('compile-grammar');
let dir = '';

test.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'lmforge-cg-'));
  writeFileSync(join(dir, 'a.ebnf'), 'root ::= "a"+');
  writeFileSync(join(dir, 'tool.json'), JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }));
  writeFileSync(join(dir, 'bad-schema.json'), JSON.stringify({ type: 'array', items: { type: 'object' }, uniqueItems: true }));
  writeFileSync(join(dir, 'bad.ebnf'), 'root ::= "a" |* "b"');
  writeFileSync(join(dir, 'broken.json'), '{ not json');
  writeFileSync(join(dir, 'stag.json'), JSON.stringify({ type: 'structural_tag', format: { type: 'const_string', value: 'x' } }));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

function run(files: string[], flags: Record<string, unknown>) {
  const out: string[] = [];
  const err: string[] = [];
  const status = runCompileGrammar(files, flags, { log: (l) => out.push(l), error: (l) => err.push(l), env: { LMFORGE_HOME: join(dir, 'home') } });
  return { status, out, err };
}

test('compiles every kind of input into content-addressed, loadable artifacts', () => {
  const out = join(dir, 'out');
  const r = run([join(dir, 'a.ebnf'), join(dir, 'tool.json')], { out, regex: '[0-9]{3}', jsonSchema: join(dir, 'tool.json'), style: 'qwen_xml' });
  assert.is(r.status, 0, r.err.join('\n'));
  assert.is(r.out.length, 4);
  const files = readdirSync(out);
  assert.is(files.length, 3, 'schema flags apply to every schema input: the same schema twice is one artifact');
  assert.ok(files.every((f) => new RegExp(`^v${ARTIFACT_FORMAT_VERSION}-[0-9a-f]{64}\\.lmgrammar$`).test(f)));
  const regexArtifact = r.out.find((l) => l.startsWith('regex'))!.split(' -> ')[1]!;
  const m = new GrammarMatcher(deserializeCompiledGrammar(readFileSync(regexArtifact)));
  assert.ok(m.acceptString('123') && m.isCompleted());
  const again = run([join(dir, 'a.ebnf')], { out });
  assert.is(again.status, 0);
  assert.is(readdirSync(out).length, 3, 'the same grammar maps to the same file');
});

test('one error line per failing input, exit status 1, the rest still compiles', () => {
  const r = run([join(dir, 'bad-schema.json'), join(dir, 'a.ebnf'), join(dir, 'bad.ebnf'), join(dir, 'broken.json'), join(dir, 'missing.json'), join(dir, 'stag.json')], { check: true });
  assert.is(r.status, 1);
  assert.is(r.err.length, 4);
  assert.match(r.err[0]!, /bad-schema\.json: \/uniqueItems: the keyword 'uniqueItems' can be enforced only for items that are scalars/);
  assert.match(r.err[1]!, /bad\.ebnf: line 1, column 15: the repetition/);
  assert.match(r.err[2]!, /broken\.json: .*JSON/);
  assert.match(r.err[3]!, /missing\.json: ENOENT/);
  // A structural tag compiles beside them.
  assert.is(r.out.length, 2);
  assert.match(r.out[0]!, /^ok .*a\.ebnf/);
  assert.match(r.out[1]!, /^ok .*stag\.json/);
});

test('--check writes nothing; the default cache is $LMFORGE_HOME/grammars', () => {
  const r = run([join(dir, 'a.ebnf')], { check: true });
  assert.is(r.status, 0);
  assert.throws(() => readdirSync(join(dir, 'home')));
  const w = run([join(dir, 'a.ebnf')], {});
  assert.is(w.status, 0);
  assert.is(readdirSync(join(dir, 'home', 'grammars')).length, 1);
  assert.is(defaultGrammarCacheDir({ LMFORGE_HOME: '/x' }), join('/x', 'grammars'));
  assert.match(defaultGrammarCacheDir({}), /\.cache[/\\]lmforge[/\\]grammars$/);
});

test("the default cache keeps serve's bound (1 GiB, least recently used removed); a folder given with --out is never pruned", async () => {
  // Sparse files: sizes past the bound that take no disk.
  const fill = (folder: string) => {
    mkdirSync(folder, { recursive: true });
    for (const [name, mebibytes, ageSeconds] of [['spec-old', 700, 300], ['spec-newer', 400, 200]] as const) {
      const path = join(folder, `${name}.lmgrammar`);
      writeFileSync(path, '');
      truncateSync(path, mebibytes * 2 ** 20);
      const at = Date.now() / 1000 - ageSeconds;
      utimesSync(path, at, at);
    }
  };
  const home = join(dir, 'home');
  fill(join(home, 'grammars'));
  fill(join(dir, 'out'));
  for (const args of [[], ['--out', join(dir, 'out')]]) {
    const run = startCli(['compile-grammar', '--regex', '[0-9]+', ...args], { LMFORGE_HOME: home });
    assert.is(await run.exit, 0, run.stderr());
  }
  const names = (folder: string) => readdirSync(folder).map((name) => name.replace(/^v.*/, 'compiled')).sort();
  assert.equal(names(join(home, 'grammars')), ['compiled', 'spec-newer.lmgrammar'], 'the least recently used file went, as the command ended');
  assert.equal(names(join(dir, 'out')), ['compiled', 'spec-newer.lmgrammar', 'spec-old.lmgrammar']);
});

test('the grammar cache reads back what it wrote', () => {
  const cache = new GrammarCache(join(dir, 'cache'));
  const compiled = new GrammarCompiler().compile(Grammar.fromRegex('x+'));
  assert.is(cache.read(compiled.hash), null);
  const path = cache.write(compiled);
  assert.is(cache.write(compiled), path);
  assert.is(cache.read(compiled.hash)?.toString(), compiled.toString());
});

test('everything in grammars/ compiles (what CI checks)', () => {
  const root = new URL('../../grammars/', import.meta.url);
  const files = readdirSync(root).map((f) => join(root.pathname, f));
  assert.ok(files.length >= 2);
  const r = run(files, { check: true });
  assert.is(r.status, 0, r.err.join('\n'));
  assert.is(r.out.length, files.length);
});

test('a folder stands for the grammar files in it; one with none is a usage error naming it', () => {
  const root = new URL('../../grammars/', import.meta.url).pathname;
  const r = run([root], { check: true });
  assert.is(r.status, 0, r.err.join('\n'));
  assert.is(r.out.length, readdirSync(root).length);
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  writeFileSync(join(empty, 'notes.txt'), 'x');
  assert.throws(() => run([empty], {}), (e: unknown) => (e as { userFacing?: boolean }).userFacing === true && /empty is a folder with no grammar files \(\.ebnf, \.gbnf, \.regex, \.json\) in it/.test((e as Error).message));
});

test('usage errors are user-facing', () => {
  assert.throws(() => run([], {}), (e: unknown) => (e as { userFacing?: boolean }).userFacing === true && /needs --ebnf/.test((e as Error).message));
  assert.throws(() => run([join(dir, 'tool.json')], { style: 'yaml' }), (e: unknown) => (e as { userFacing?: boolean }).userFacing === true);
});

test('registered on a cac instance: flags parse and failures set the exit status', async () => {
  const cli = cac('lmforge');
  registerCompileGrammar(cli);
  const logs: string[] = [];
  const errors: string[] = [];
  const { log, error } = console;
  console.log = (l: string) => logs.push(l);
  console.error = (l: string) => errors.push(l);
  const before = process.exitCode;
  try {
    cli.parse(['node', 'lmforge', 'compile-grammar', '--check', '--no-any-whitespace', '--indent', '2', '--max-whitespace-count', '3', join(dir, 'tool.json'), join(dir, 'bad.ebnf')], { run: false });
    await cli.runMatchedCommand();
    assert.is(process.exitCode, 1);
  } finally {
    console.log = log;
    console.error = error;
    process.exitCode = before;
  }
  assert.is(logs.length, 1);
  assert.is(errors.length, 1);
});

test('--max-whitespace-count bounds JSON schemas and the json_schema nodes of structural tags; a bad count is a usage error', () => {
  writeFileSync(join(dir, 'stag-schema.json'), JSON.stringify({ type: 'structural_tag', format: { type: 'json_schema', json_schema: { type: 'object' } } }));
  const out = join(dir, 'out');
  const r = run([join(dir, 'tool.json'), join(dir, 'stag-schema.json')], { out, maxWhitespaceCount: '1' });
  assert.is(r.status, 0, r.err.join('\n'));
  const accepts = (line: string, text: string) => {
    const m = new GrammarMatcher(deserializeCompiledGrammar(readFileSync(line.split(' -> ')[1]!)));
    return m.acceptString(text) && m.isCompleted();
  };
  assert.ok(accepts(r.out[0]!, '{ "city": "x"}'));
  assert.not.ok(accepts(r.out[0]!, '{  "city": "x"}'));
  assert.ok(accepts(r.out[1]!, '{"k":\n1}'));
  assert.not.ok(accepts(r.out[1]!, '{"k":\n\n1}'));
  for (const bad of ['-1', '2.5', 'x']) {
    assert.throws(() => run([join(dir, 'tool.json')], { maxWhitespaceCount: bad }), (e: unknown) => (e as { userFacing?: boolean }).userFacing === true && /--max-whitespace-count must be a whole number/.test((e as Error).message));
  }
});

test('--indent is a whole number of spaces up to 64, with --no-any-whitespace (abc and 1.5 were taken, and without it the indent was dropped unsaid)', () => {
  const usage = (flags: Record<string, unknown>, message: RegExp) =>
    assert.throws(() => run([join(dir, 'tool.json')], flags), (e: unknown) => (e as { userFacing?: boolean }).userFacing === true && message.test((e as Error).message));
  for (const bad of ['abc', '1.5', '-3', '65']) usage({ anyWhitespace: false, indent: bad }, /--indent must be a whole number of spaces from 0 to 64/);
  usage({ indent: '2' }, /--indent lays out JSON only with --no-any-whitespace/);
  assert.is(run([join(dir, 'tool.json')], { anyWhitespace: false, indent: '2' }).status, 0);
  // The library refuses it too, by its own name.
  assert.throws(() => Grammar.fromJSONSchema({ type: 'object' }, { anyWhitespace: false, indent: Number.NaN }), /indent must be a whole number of spaces from 0 to 64, not NaN/);
});

test.run();
