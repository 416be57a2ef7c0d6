// `lmforge compile` as users run it (a child process of bin/lmforge.mjs): the report, the
// compiled folder, the exit status, and `compile --check` over a folder of definitions.
import { copyFileSync, existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath, tinyUntemplatedModelPath } from '../../fixtures/paths.js';
import { execFileSync } from 'node:child_process';
import { shellWord } from '../../cli/compile.js';
import { Grammar, GrammarCompiler, GrammarMatcher, TokenizerInfo, artifactVocabulary } from '../../compiler/index.js';
import { toolCallTag } from '../../runtime/chat-format/tool-call-tag.js';
import { TOOL_FORMATS, type ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';
import { grammarVocabularyFromGGUF } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { modelCachePath } from '../../runtime/models/pull-model.js';
import { resolveModel } from '../../runtime/models/resolve-model.js';
import { startCli } from '../helpers/cli-process.js';
import { truncated } from '../models/check/broken-models.js';

const test = suite('lmforge compile (CLI)');
let dir = '';
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'lmforge-compile-'));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, { LMFORGE_HOME: join(dir, 'home') });
  // Never a hang: a run that outlasts this fails the test.
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), 120_000);
  const code = await cli.exit;
  clearTimeout(timer);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

test('compile --help explains the compiled folder', async () => {
  const { code, stdout } = await run(['compile', '--help']);
  assert.is(code, 0);
  for (const part of ['lmforge-config.json', 'artifacts/', 'report.txt', '--out <dir>', '--json', '--check', '--model <model>', 'are rebuilt (serve says so in one line), never used', 'dist/<model>']) {
    assert.ok(stdout.includes(part), `--help mentions ${part}`);
  }
});

test('compiles the tiny model into a folder serve resolves, with the GGUF linked and every fact recorded', async () => {
  const out = join(dir, 'tiny');
  const { code, stdout, stderr } = await run(['compile', tinyModelPath, '--out', out]);
  assert.is(code, 0, stderr);
  assert.match(stdout, /^ok {3}gguf: GGUF v3, \d+ metadata keys, 21 tensors \(F32\)/m);
  assert.match(stdout, new RegExp(`compiled: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(serve it with: lmforge serve `));
  assert.ok(lstatSync(join(out, 'tiny-gpt2.gguf')).isSymbolicLink());
  assert.is(readlinkSync(join(out, 'tiny-gpt2.gguf')), tinyModelPath);
  const config = JSON.parse(readFileSync(join(out, 'lmforge-config.json'), 'utf8'));
  assert.is(config.model_file, 'tiny-gpt2.gguf');
  assert.is(config.tool_format, 'hermes');
  assert.equal(config.reasoning.on, false);
  assert.ok(config.stop_tokens.includes('<|endoftext|>'));
  assert.is(config.context_length, 2048);
  assert.equal(config.engine.interactive.maxNumSequence, 1);
  assert.match(config.chat_template.source, /<\|im_start\|>/);
  // The artifacts are this vocabulary's: the one compile-grammar --model and serve compute.
  const vocabulary = await grammarVocabularyFromGGUF(tinyModelPath);
  assert.is(config.artifacts.vocabulary_fingerprint, vocabulary.fingerprint);
  assert.is(TokenizerInfo.fromCacheBytes(readFileSync(join(out, config.artifacts.vocabulary))).fingerprint, vocabulary.fingerprint);
  assert.is(artifactVocabulary(readFileSync(join(out, config.artifacts.grammars[0].file))), vocabulary.fingerprint);
  assert.ok(readFileSync(join(out, 'report.txt'), 'utf8').includes('ok   architecture: llama'));
  // `serve DIR` finds the GGUF through the config it reads.
  const resolved = await resolveModel(out, { pull: false });
  assert.is(resolved.ggufPath, join(out, 'tiny-gpt2.gguf'));
  assert.is((resolved.config?.artifacts as { vocabulary_fingerprint: string }).vocabulary_fingerprint, vocabulary.fingerprint);
});

test("the folder's vocabulary tables carry the token sets of its tool-call family: a first request with tools walks the vocabulary for none", async () => {
  const out = join(dir, 'tiny-tools');
  const { code, stderr } = await run(['compile', tinyModelPath, '--out', out]);
  assert.is(code, 0, stderr);
  const config = JSON.parse(readFileSync(join(out, 'lmforge-config.json'), 'utf8'));
  const tools = [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  // The grammar the server compiles for such a request (tool-calls.ts), its first masks as a
  // matcher asks for them, with the tables as serve loads them (admission.ts) and as built from the GGUF.
  const firstMasks = (tokenizer: TokenizerInfo): number => {
    const tag = toolCallTag(TOOL_FORMATS[config.tool_format as ToolFormatKey], tools, { mode: 'auto' }, true);
    const matcher = new GrammarMatcher(new GrammarCompiler(tokenizer).compile(Grammar.fromStructuralTag(tag)));
    const mask = new Uint32Array(Math.ceil(tokenizer.vocabSize / 32));
    for (const text of ['Sure', '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa', 'ris"}}\n</tool_call>']) {
      matcher.fillNextTokenBitmask(mask);
      assert.ok(matcher.acceptString(text), text);
    }
    return tokenizer.tokenSetsBuilt;
  };
  assert.ok(firstMasks(await grammarVocabularyFromGGUF(tinyModelPath)) > 0, 'without the folder the sets are built on first use');
  assert.is(firstMasks(TokenizerInfo.fromCacheBytes(readFileSync(join(out, config.artifacts.vocabulary)))), 0);
});

test('--json: the report as one JSON document; a base model says which --chat-template to use', async () => {
  const out = join(dir, 'base');
  const { code, stdout } = await run(['compile', tinyUntemplatedModelPath, '--out', out, '--json']);
  assert.is(code, 0);
  const report = JSON.parse(stdout);
  assert.is(report.passed, true);
  assert.is(report.folder, out);
  const base = report.checks.find((c: { message: string }) => /no chat template/.test(c.message));
  assert.is(base.status, 'warn');
  assert.match(base.fix, /--chat-template plain/);
  // With --chat-template the given one is what the folder records.
  const given = await run(['compile', tinyUntemplatedModelPath, '--out', join(dir, 'base-chatml'), '--chat-template', 'chatml']);
  assert.is(given.code, 0);
  assert.not.match(given.stdout, /no chat template/);
  assert.match(JSON.parse(readFileSync(join(dir, 'base-chatml', 'lmforge-config.json'), 'utf8')).chat_template.note, /chatml, built in \(--chat-template\)/);
});

test('a broken model: one FAIL line on stderr, exit 1, no folder, no stack trace', async () => {
  const broken = await truncated(tinyModelPath, join(dir, 'cut.gguf'), 100_000);
  const out = join(dir, 'broken-out');
  const { code, stdout, stderr } = await run(['compile', broken, '--out', out]);
  assert.is(code, 1);
  const errors = stderr.trim().split('\n');
  assert.is(errors.length, 1, stderr);
  assert.match(errors[0]!, /^FAIL gguf: .*truncated GGUF header.*\(fix: the file is damaged or was cut short/);
  assert.match(stdout, /not compiled: 1 check\(s\) failed/);
  assert.not.ok(existsSync(out));
  const json = await run(['compile', broken, '--out', out, '--json']);
  assert.is(json.code, 1);
  assert.is(JSON.parse(json.stdout).checks[0].status, 'fail');
});

test('the folder is written without harm: through a linked folder the GGUF itself is kept; a file of its name that is not it, or an --out that is a file, is one line after the checks', async () => {
  // OUT/MODEL.gguf is the GGUF itself, reached through a link to its folder: kept, not replaced by a link to itself.
  const real = join(dir, 'real');
  mkdirSync(real);
  copyFileSync(tinyModelPath, join(real, 'tiny-gpt2.gguf'));
  symlinkSync(real, join(dir, 'via-link'));
  const through = await run(['compile', join(dir, 'via-link', 'tiny-gpt2.gguf'), '--out', real]);
  assert.is(through.code, 0, through.stderr);
  assert.ok(lstatSync(join(real, 'tiny-gpt2.gguf')).isFile());
  assert.is(statSync(join(real, 'tiny-gpt2.gguf')).size, statSync(tinyModelPath).size);
  // Another file of the GGUF's name is the user's: refused, left as it was.
  const foreign = join(dir, 'foreign');
  mkdirSync(foreign);
  writeFileSync(join(foreign, 'tiny-gpt2.gguf'), 'mine');
  const refused = await run(['compile', tinyModelPath, '--out', foreign]);
  assert.is(refused.code, 1);
  assert.match(refused.stdout, /^ok {3}gguf: /m, 'the checks are printed before the folder is written');
  assert.match(refused.stderr, /^not compiled: .*foreign\/tiny-gpt2\.gguf exists and is not the GGUF being compiled .*; move it, or choose another --out\n$/);
  assert.is(readFileSync(join(foreign, 'tiny-gpt2.gguf'), 'utf8'), 'mine');
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  const notFolder = await run(['compile', tinyModelPath, '--out', file, '--json']);
  assert.is(notFolder.code, 1);
  assert.match(JSON.parse(notFolder.stdout).error, /a-file exists and is not a folder; choose another --out$/);
  assert.not.match(notFolder.stderr, /internal error|\n {4}at /);
});

test('compile --check --model smollm2 takes the known model from the cache, and says to pull it when it is not there', async () => {
  const defs = join(dir, 'known-defs');
  mkdirSync(defs);
  writeFileSync(join(defs, 'a.ebnf'), 'root ::= "a"+');
  const missing = await run(['compile', '--check', defs, '--model', 'smollm2']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /model "smollm2" is not downloaded \(no .*\); run `lmforge pull smollm2` first/);
  // run() sets LMFORGE_HOME to dir/home: the tiny model stands in for the cached one.
  const cached = modelCachePath('smollm2', join(dir, 'home'));
  mkdirSync(dirname(cached), { recursive: true });
  symlinkSync(tinyModelPath, cached);
  const found = await run(['compile', '--check', defs, '--model', 'smollm2']);
  assert.is(found.code, 0, found.stderr);
  assert.match(found.stdout, /1 of 1 definitions compiled against smollm2's vocabulary/);
});

test('compile --check over a folder of definitions: every file reported, exit 1 on any failure; --model compiles against the vocabulary', async () => {
  const defs = join(dir, 'defs');
  mkdirSync(defs);
  writeFileSync(join(defs, 'tool.json'), JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }));
  writeFileSync(join(defs, 'tag.json'), JSON.stringify({ type: 'structural_tag', format: { type: 'const_string', value: 'x' } }));
  writeFileSync(join(defs, 'digits.regex'), '[0-9]{3}\n');
  writeFileSync(join(defs, 'a.ebnf'), 'root ::= "a"+');
  writeFileSync(join(defs, 'notes.txt'), 'not a definition');
  const good = await run(['compile', '--check', defs, '--model', tinyModelPath, '--json']);
  assert.is(good.code, 0, good.stderr);
  const report = JSON.parse(good.stdout);
  assert.is(report.passed, true);
  assert.equal(report.results.map((r: { input: string }) => r.input.slice(defs.length + 1)), ['a.ebnf', 'digits.regex', 'tag.json', 'tool.json']);
  writeFileSync(join(defs, 'bad.regex'), '[0-9');
  const bad = await run(['compile', '--check', defs]);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /bad\.regex: /);
  assert.match(bad.stdout, /4 of 5 definitions compiled/);
  // A path that holds no definitions is one failed result: the others are still checked, and --json still reports (it printed nothing).
  mkdirSync(join(dir, 'empty'));
  const missing = await run(['compile', '--check', join(dir, 'nosuch.ebnf'), join(dir, 'empty'), join(defs, 'a.ebnf'), '--json']);
  assert.is(missing.code, 1);
  const partial = JSON.parse(missing.stdout);
  assert.is(partial.passed, false);
  assert.equal(partial.results.map((r: { ok: boolean; message: string }) => [r.ok, r.message.replace(/ \(.*/, '')]), [[false, 'no such file or folder'], [false, 'a folder with no definition files'], [true, '1 rules, 2 states']]);
  // A folder named like a definition, or a link to nothing, inside a folder: one failed result each (the run ended with no report).
  const odd = join(dir, 'odd');
  mkdirSync(join(odd, 'sub.json'), { recursive: true });
  symlinkSync(join(dir, 'nowhere'), join(odd, 'dead.json'));
  writeFileSync(join(odd, 'ok.json'), '{"type": "string"}');
  const oddRun = await run(['compile', '--check', odd, '--json']);
  assert.is(oddRun.code, 1, oddRun.stderr);
  assert.equal(JSON.parse(oddRun.stdout).results.map((r: { input: string; ok: boolean }) => [r.input.slice(odd.length + 1), r.ok]), [['dead.json', false], ['sub.json', false], ['ok.json', true]]);
  // Named again, or inside a folder named too, an input is reported once.
  const again = await run(['compile', '--check', odd, join(odd, 'ok.json'), odd, '--json']);
  assert.is(JSON.parse(again.stdout).results.length, 3);
  // A model that cannot be read is the report's error under --json, not a line on stderr alone.
  const noModel = await run(['compile', '--check', odd, '--json', '--model', join(dir, 'no-such-model.gguf')]);
  assert.is(noModel.code, 1);
  assert.match(JSON.parse(noModel.stdout).error, /not found/);
  // A file named that is not a definition file is read as JSON, and its error says so on one line.
  const notes = await run(['compile', '--check', join(defs, 'notes.txt')]);
  assert.is(notes.code, 1);
  assert.match(notes.stderr, /notes\.txt: not valid JSON \(a file not ending in \.ebnf, \.gbnf or \.regex is read as a JSON schema or structural tag\): Unexpected token .* is not valid JSON\n/);
});

test('compile --check --model reads structural tags as the server does: tokens by text resolved, ids checked against the vocabulary, a tag without its type, a schema whose format is a string', async () => {
  const defs = join(dir, 'tag-defs');
  mkdirSync(defs);
  const tag = (format: unknown): string => JSON.stringify({ type: 'structural_tag', format });
  writeFileSync(join(defs, 'by-text.json'), tag({ type: 'sequence', elements: [{ type: 'token', token: 'hello' }, { type: 'const_string', value: '!' }] }));
  writeFileSync(join(defs, 'untyped.json'), JSON.stringify({ format: { type: 'const_string', value: 'Hello, world!' } }));
  writeFileSync(join(defs, 'date-schema.json'), JSON.stringify({ format: 'date' }));
  // The server reads an untyped response_format with any other format as a tag, and says the format must be a node.
  writeFileSync(join(defs, 'list-format.json'), JSON.stringify({ format: [] }));
  writeFileSync(join(defs, 'out-of-range.json'), tag({ type: 'token', token: 99_999_999 }));
  writeFileSync(join(defs, 'excluded-out-of-range.json'), tag({ type: 'exclude_token', exclude_tokens: [99_999_999] }));
  writeFileSync(join(defs, 'end-of-generation.json'), tag({ type: 'token', token: '<|endoftext|>' }));
  const withModel = await run(['compile', '--check', defs, '--model', tinyModelPath, '--json']);
  const outcome = (r: { input: string; ok: boolean; message: string }): [string, boolean, string] => [r.input.slice(defs.length + 1), r.ok, r.ok ? '' : r.message];
  const results = JSON.parse(withModel.stdout).results.map(outcome);
  assert.equal(results.map(([input, ok]: [string, boolean]) => [input, ok]), [
    ['by-text.json', true],
    ['date-schema.json', true],
    ['end-of-generation.json', false],
    ['excluded-out-of-range.json', false],
    ['list-format.json', false],
    ['out-of-range.json', false],
    ['untyped.json', true],
  ]);
  const messages = Object.fromEntries(results.map(([input, , message]: [string, boolean, string]) => [input, message]));
  assert.match(messages['end-of-generation.json'], /end-of-generation/);
  assert.match(messages['out-of-range.json'], /^\/format\/token: .*99999999 is outside the vocabulary \(50257 tokens\)/);
  assert.match(messages['excluded-out-of-range.json'], /99999999 is outside the vocabulary/);
  assert.match(messages['list-format.json'], /^\/format: a format node must be an object, not an array/);
  // Without a model a token by text cannot be resolved, and the message says what to give.
  const without = await run(['compile', '--check', join(defs, 'by-text.json')]);
  assert.is(without.code, 1);
  assert.match(without.stderr, /needs a vocabulary \(give --model, or its id\)/);
});

test("the 'serve it with' hint pastes into a shell: a path with spaces, quotes or other letters is quoted, a plain one kept", () => {
  assert.is(shellWord('dist/SmolLM2-135M-Instruct.Q4_1'), 'dist/SmolLM2-135M-Instruct.Q4_1');
  for (const path of ['/tmp/sp ace/out ü', "it's here", 'a$b`c"d', '*']) {
    assert.is(execFileSync('sh', ['-c', `printf %s ${shellWord(path)}`], { encoding: 'utf8' }), path);
  }
});

test.run();
