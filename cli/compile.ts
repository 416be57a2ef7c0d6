// `lmforge compile MODEL`: checks a model before it is served and writes a compiled folder
// that `serve DIR` takes as it is; `lmforge compile --check FILES|FOLDERS` validates grammar
// definitions for CI (with --model, each compiles against that model's vocabulary).
//
//   lmforge compile smollm2                       # checks, then writes dist/<model>/
//   lmforge compile model.gguf --out build/m --json
//   lmforge compile --check grammars/ --model smollm2
import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import type { CAC } from 'cac';
import { BUILTIN_TEMPLATE_NAMES } from '../runtime/chat-format/builtin-templates.js';
import { formatCheckLine } from '../runtime/models/check/check-line.js';
import { checkModel, type ModelCheck } from '../runtime/models/check/check-model.js';
import { CompiledFolderError, writeCompiledFolder } from '../runtime/models/compiled-folder.js';
import { resolveModel } from '../runtime/models/resolve-model.js';
import { knownModels } from '../runtime/models/known-models.js';
import { givenTemplateOf } from './chat-template-option.js';
import { UsageError } from './cli-error.js';
import { UserFacingError } from '../compiler/lmforge-error.js';
import { modelVocabulary, runCompileGrammar } from './compile-grammar.js';

export interface CompileFlags {
  out?: string;
  json?: boolean;
  check?: boolean;
  model?: string;
  chatTemplate?: string;
}

export interface CompileIo {
  log(line: string): void;
  error(line: string): void;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const DEFINITION_EXTENSIONS = new Set(['.json', '.ebnf', '.gbnf', '.regex']);

/** The folder `--out` defaults to: dist/<GGUF stem>, where `serve <stem>` finds it (resolve-model.ts). */
export function defaultOutDir(ggufPath: string, cwd: string): string {
  return resolve(cwd, 'dist', basename(ggufPath).replace(/\.gguf$/i, ''));
}

/** Checks the model and, when every check passes, writes the compiled folder. Returns the exit status. */
export async function runCompileModel(spec: string, flags: CompileFlags, io: CompileIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const chatTemplate = flags.chatTemplate !== undefined ? givenTemplateOf(String(flags.chatTemplate)) : undefined;
  const model = await resolveModel(spec, { env: io.env ?? process.env, cwd });
  const check = await checkModel(model.ggufPath, { ...(chatTemplate ? { chatTemplate } : {}), ...(io.env ? { env: io.env } : {}) });
  const out = flags.out !== undefined ? resolve(cwd, String(flags.out)) : defaultOutDir(model.ggufPath, cwd);
  // The checks are printed before the folder is written, so a folder that cannot be written
  // still leaves them on screen.
  if (!flags.json) for (const line of check.lines) (line.status === 'fail' ? io.error : io.log)(formatCheckLine(line));
  let written: { folder: string } | { error: string } | undefined;
  if (check.passed) written = await writeFolder(model.ggufPath, check, out);
  if (flags.json) {
    io.log(JSON.stringify({ model: model.ggufPath, passed: check.passed, checks: check.lines, ...written }, null, 2));
  } else if (written && 'error' in written) {
    io.error(`not compiled: ${written.error}`);
  } else {
    io.log(written ? `compiled: ${written.folder} (serve it with: lmforge serve ${shellWord(written.folder)})` : `not compiled: ${check.lines.filter((l) => l.status === 'fail').length} check(s) failed`);
  }
  return written && 'folder' in written ? 0 : 1;
}

/** A path as a shell reads it back: quoted when it holds a space or another special character, so the hint pastes. */
export function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** The compiled folder, or why it could not be written there (a file system's refusal is the user's to mend, not a bug). */
async function writeFolder(ggufPath: string, check: ModelCheck, out: string): Promise<{ folder: string } | { error: string }> {
  try {
    await writeCompiledFolder(ggufPath, check, out);
    return { folder: out };
  } catch (error) {
    if (error instanceof CompiledFolderError) return { error: error.message };
    if (typeof (error as NodeJS.ErrnoException).code === 'string' && (error as NodeJS.ErrnoException).syscall) return { error: `cannot write ${out}: ${(error as Error).message}` };
    throw error;
  }
}

/** An input that could not be read as definitions, reported as a failed result. */
interface Unreadable {
  input: string;
  message: string;
}

/** Files of grammar definitions: the files named, and those of each folder named (one level); and the paths that hold none. */
export function definitionFiles(paths: string[], cwd: string): { files: string[]; unreadable: Unreadable[] } {
  const files: string[] = [];
  const unreadable: Unreadable[] = [];
  for (const path of paths) {
    const full = resolve(cwd, path);
    const info = statSync(full, { throwIfNoEntry: false });
    if (!info) {
      unreadable.push({ input: path, message: 'no such file or folder' });
    } else if (!info.isDirectory()) {
      files.push(full);
    } else {
      const inside = readdirSync(full).filter((name) => DEFINITION_EXTENSIONS.has(extname(name).toLowerCase())).sort();
      if (inside.length === 0) unreadable.push({ input: path, message: `a folder with no definition files (${[...DEFINITION_EXTENSIONS].join(', ')})` });
      for (const name of inside) {
        // A folder named like a definition (sub.json), or a link to nothing, is one failed result, not the run's end.
        const entry = statSync(join(full, name), { throwIfNoEntry: false });
        if (entry?.isFile()) files.push(join(full, name));
        else unreadable.push({ input: join(full, name), message: entry ? 'a folder, not a definition file (folders are read one level deep)' : 'a link to nothing' });
      }
    }
  }
  // A file named again, or inside a folder named too, is checked once.
  return { files: [...new Set(files)], unreadable: unreadable.filter((u, i) => unreadable.findIndex((v) => v.input === u.input) === i) };
}

/**
 * `compile --check`: each definition compiles (against the model's vocabulary with --model).
 * A path that holds none is one failed result, as a definition that does not compile is, so the
 * others are still checked and --json still prints its report. Returns the exit status.
 */
export async function runCompileCheck(paths: string[], flags: CompileFlags, io: CompileIo): Promise<number> {
  if (paths.length === 0) throw new UsageError('compile --check needs files or folders of definitions (structural tags, JSON schemas, .regex, .ebnf)');
  const { files, unreadable } = definitionFiles(paths, io.cwd ?? process.cwd());
  const results: { input: string; ok: boolean; message: string }[] = [];
  const quiet = flags.json === true;
  let vocabulary: Awaited<ReturnType<typeof modelVocabulary>> | undefined;
  try {
    vocabulary = flags.model !== undefined ? await modelVocabulary(String(flags.model), io.env) : undefined;
  } catch (error) {
    if (!quiet || !(error instanceof UserFacingError)) throw error;
    // --json always prints its report: a model that cannot be read is its error, as compile MODEL --json writes it.
    io.log(JSON.stringify({ passed: false, model: String(flags.model), error: error.message, results }, null, 2));
    return 1;
  }
  for (const { input, message } of unreadable) {
    results.push({ input, ok: false, message });
    if (!quiet) io.error(`lmforge: ${input}: ${message}`);
  }
  const compiled =
    files.length === 0
      ? 0
      : runCompileGrammar(files, { check: true }, {
          log: (line) => !quiet && io.log(line),
          error: (line) => !quiet && io.error(line),
          result: (outcome) => results.push(outcome),
          ...(io.env ? { env: io.env } : {}),
        }, vocabulary);
  const status = unreadable.length > 0 ? 1 : compiled;
  if (quiet) io.log(JSON.stringify({ passed: status === 0, ...(flags.model !== undefined ? { model: String(flags.model) } : {}), results }, null, 2));
  else io.log(`${results.filter((r) => r.ok).length} of ${results.length} definitions compiled${flags.model !== undefined ? ` against ${flags.model}'s vocabulary` : ''}`);
  return status;
}

export function registerCompile(cli: CAC): void {
  cli
    .command('compile [...inputs]', 'Check a model and compile it into a folder that `serve` loads without compiling (or, with --check, validate grammar definitions)')
    .usage(
      `compile MODEL [--out DIR] [--json]     (MODEL: a GGUF file, a model folder, a name on the model search path, or a known model: ${knownModels.map((m) => m.name).join(', ')})\n` +
        '  lmforge compile --check FILES|FOLDERS [--model MODEL] [--json]\n\n' +
        'Each check prints one line (ok, warn or FAIL, with what to do): the GGUF header and tensor table, the architecture\n' +
        'against the pinned llama.cpp, the vocabulary, the chat template, the tool-call format and reasoning markers, the\n' +
        'context length, and what each --mode would take in memory on this machine. When none fails it writes DIR\n' +
        '(default dist/<model>, which `lmforge serve <model>` finds):\n' +
        '  <model>.gguf          a link to the GGUF (a copy where links cannot be made)\n' +
        '  lmforge-config.json   what the checks resolved: template, tool format, reasoning, stop tokens, default sampling,\n' +
        '                        context, engine limits per mode; and the artifacts\' lmforge version, vocabulary and\n' +
        '                        checksums (serve takes the GGUF\'s name, a --chat-template given here and the artifacts)\n' +
        '  artifacts/            the vocabulary tables the mask engine needs and the built-in JSON grammar with its masks\n' +
        '                        and the token sets of the model\'s tool-call family (its grammar depends on each\n' +
        '                        request\'s tools: compiled on first use, see the README)\n' +
        '  report.txt, report.json   the checks\n' +
        '`lmforge serve DIR` loads the artifacts instead of building them; artifacts of another lmforge version or of another\n' +
        'vocabulary, or changed since, are rebuilt (serve says so in one line), never used. Exit status: 0 when no check\n' +
        'failed and the folder was written, else 1.\n' +
        'compile-grammar stays as the command that writes grammar artifacts with every JSON option; compile --check is its CI form.',
    )
    .option('--out <dir>', 'The compiled folder (default: dist/<GGUF name>)')
    .option('--json', 'Print the report as JSON')
    .option('--chat-template <template>', `A Jinja file or a built-in template (${BUILTIN_TEMPLATE_NAMES.join(', ')}) to check and record instead of the model's own`)
    .option('--check', 'Validate grammar definition files or folders (structural tags, JSON schemas, .regex, .ebnf/.gbnf) instead of a model: `ok FILE` on stdout, `lmforge: FILE: reason` on stderr')
    .option('--model <model>', 'With --check: also compile each definition against this model\'s vocabulary')
    .example('lmforge compile smollm2')
    .example('lmforge compile gemma-3-270m-q4_k_m.gguf --chat-template plain --out dist/gemma')
    .example('lmforge compile --check grammars/ --model smollm2 --json')
    .action(async (inputs: string[], flags: CompileFlags) => {
      const io: CompileIo = { log: (line) => console.log(line), error: (line) => console.error(line) };
      let status: number;
      if (flags.check) {
        if (flags.chatTemplate !== undefined || flags.out !== undefined) throw new UsageError(`${flags.chatTemplate !== undefined ? '--chat-template' : '--out'} goes with compile MODEL; --check validates definitions and writes nothing`);
        status = await runCompileCheck(inputs, flags, io);
      } else {
        if (inputs.length !== 1) throw new UsageError('compile takes one MODEL (a GGUF file, a model folder or a name); for definition files use --check');
        if (flags.model !== undefined) throw new UsageError('--model goes with --check; give the model to compile as MODEL');
        status = await runCompileModel(inputs[0]!, flags, io);
      }
      if (status !== 0) process.exitCode = status;
    });
}
