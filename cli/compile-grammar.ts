// `lmforge compile-grammar`: compiles EBNF, regex and JSON-schema inputs and writes versioned
// artifacts into the content-addressed cache ($LMFORGE_HOME/grammars, or --out DIR).
//
//   lmforge compile-grammar --check grammars/*.json grammars/*.ebnf
//   lmforge compile-grammar --json-schema tool.json --style qwen_xml --out build/grammars
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { CAC } from 'cac';
import { defaultGrammarCacheDir, Grammar, GrammarCache, GrammarCompiler, type JsonSchemaOptions, type JsonSchemaStyle } from '../compiler/index.js';

export interface CompileGrammarFlags {
  ebnf?: string;
  root?: string;
  regex?: string | number;
  jsonSchema?: string;
  anyWhitespace?: boolean;
  maxWhitespaceCount?: number;
  indent?: number;
  itemSeparator?: string;
  keySeparator?: string;
  strictMode?: boolean;
  anyOrder?: boolean;
  style?: string;
  out?: string;
  check?: boolean;
}

class CompileGrammarUsageError extends Error {
  override name = 'UsageError';
  readonly userFacing = true;
}

const STYLES = ['json', 'qwen_xml', 'minimax_xml', 'deepseek_xml', 'glm_xml'];

interface Input {
  label: string;
  load(): Grammar;
}

function schemaOptions(flags: CompileGrammarFlags): JsonSchemaOptions {
  if (flags.style !== undefined && !STYLES.includes(flags.style)) {
    throw new CompileGrammarUsageError(`--style must be one of ${STYLES.join(', ')}, not '${flags.style}'`);
  }
  const options: JsonSchemaOptions = {
    anyWhitespace: flags.anyWhitespace !== false,
    strictMode: flags.strictMode !== false,
    anyOrder: flags.anyOrder === true,
    style: (flags.style ?? 'json') as JsonSchemaStyle,
  };
  if (flags.maxWhitespaceCount !== undefined) options.maxWhitespaceCount = Number(flags.maxWhitespaceCount);
  if (flags.indent !== undefined) options.indent = Number(flags.indent);
  if (flags.itemSeparator !== undefined || flags.keySeparator !== undefined) {
    options.separators = [String(flags.itemSeparator ?? ','), String(flags.keySeparator ?? ':')];
  }
  return options;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function inputsOf(files: string[], flags: CompileGrammarFlags, options: JsonSchemaOptions): Input[] {
  const inputs: Input[] = [];
  if (flags.ebnf !== undefined) {
    const path = String(flags.ebnf);
    inputs.push({ label: path, load: () => Grammar.fromEBNF(readFileSync(path, 'utf8'), flags.root === undefined ? {} : { root: String(flags.root) }) });
  }
  if (flags.regex !== undefined) {
    const pattern = String(flags.regex);
    inputs.push({ label: `regex ${JSON.stringify(pattern)}`, load: () => Grammar.fromRegex(pattern) });
  }
  if (flags.jsonSchema !== undefined) {
    const path = String(flags.jsonSchema);
    inputs.push({ label: path, load: () => Grammar.fromJSONSchema(readJson(path), options) });
  }
  for (const file of files) {
    const ext = extname(file).toLowerCase();
    if (ext === '.ebnf' || ext === '.gbnf') {
      inputs.push({ label: file, load: () => Grammar.fromEBNF(readFileSync(file, 'utf8')) });
    } else {
      inputs.push({
        label: file,
        load: () => {
          const json = readJson(file);
          if (json && typeof json === 'object' && (json as { type?: unknown }).type === 'structural_tag') {
            throw new Error('structural tags are not supported yet');
          }
          return Grammar.fromJSONSchema(json, options);
        },
      });
    }
  }
  return inputs;
}

export interface CompileGrammarIo {
  log(line: string): void;
  error(line: string): void;
  env?: NodeJS.ProcessEnv;
}

/** Runs the command; returns the exit status (0 when every input compiled). */
export function runCompileGrammar(files: string[], flags: CompileGrammarFlags, io: CompileGrammarIo): number {
  const options = schemaOptions(flags);
  const inputs = inputsOf(files, flags, options);
  if (inputs.length === 0) throw new CompileGrammarUsageError('compile-grammar needs --ebnf, --regex, --json-schema or input files');
  const cache = new GrammarCache(flags.out !== undefined ? String(flags.out) : defaultGrammarCacheDir(io.env));
  const compiler = new GrammarCompiler();
  let failed = 0;
  for (const input of inputs) {
    try {
      const compiled = compiler.compile(input.load());
      if (flags.check) {
        io.log(`ok ${input.label} (${compiled.numRules} rules, ${compiled.numStates} states)`);
        continue;
      }
      io.log(`${input.label} -> ${cache.write(compiled)}`);
    } catch (error) {
      failed++;
      const message = error instanceof Error ? error.message : String(error);
      io.error(`lmforge: ${input.label}: ${message.split('\n')[0]}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

export function registerCompileGrammar(cli: CAC): void {
  cli
    .command('compile-grammar [...files]', 'Compile grammars (EBNF, regex, JSON schema files) into the grammar cache')
    .option('--ebnf <file>', 'An EBNF grammar file')
    .option('--root <name>', 'Root rule of the --ebnf grammar (default: root)')
    .option('--regex <pattern>', 'A regular expression (ECMAScript syntax, whole-string match)')
    .option('--json-schema <file>', 'A JSON schema file')
    .option('--no-any-whitespace', 'JSON: no free whitespace (fixed separators, or --indent)')
    .option('--max-whitespace-count <n>', 'JSON: longest whitespace run')
    .option('--indent <n>', 'JSON: pretty-print with this indent (with --no-any-whitespace)')
    .option('--item-separator <text>', 'JSON: separator between items')
    .option('--key-separator <text>', 'JSON: separator between a key and its value')
    .option('--no-strict-mode', 'JSON: allow properties and items the schema does not declare')
    .option('--any-order', 'JSON: object properties in any order')
    .option('--style <style>', `JSON: ${STYLES.join(' | ')}`)
    .option('--out <dir>', 'Artifact folder (default: $LMFORGE_HOME/grammars)')
    .option('--check', 'Only validate; write nothing')
    .example('lmforge compile-grammar --check grammars/*.json grammars/*.ebnf')
    .action((files: string[], flags: CompileGrammarFlags) => {
      const status = runCompileGrammar(files, flags, { log: (l) => console.log(l), error: (l) => console.error(l) });
      if (status !== 0) process.exitCode = status;
    });
}
