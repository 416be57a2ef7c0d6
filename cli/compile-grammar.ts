// `lmforge compile-grammar`: compiles EBNF, regex and JSON-schema inputs and writes versioned
// artifacts into the content-addressed cache ($LMFORGE_HOME/grammars, or --out DIR). With
// --model, the artifacts carry every token mask for that model's vocabulary.
//
//   lmforge compile-grammar --check grammars/*.json grammars/*.ebnf
//   lmforge compile-grammar --json-schema tool.json --style qwen_xml --out build/grammars
//   lmforge compile-grammar --model smollm2 grammars/json.ebnf
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { CAC } from 'cac';
import { Grammar, GrammarCompiler, GrammarError, type JsonSchemaOptions, type JsonSchemaStyle, TokenizerInfo } from '../compiler/index.js';
import { DEFAULT_GRAMMAR_CACHE_MAX_BYTES, GrammarCache, defaultGrammarCacheDir } from '../compiler/node.js';
import { grammarVocabularyFromGGUF } from '../runtime/engine/worker/grammar-vocabulary.js';
import { resolveModel } from '../runtime/models/resolve-model.js';
import { type SpecVocabulary, specVocabularyOf } from '../runtime/grammar-service/grammar-spec.js';
import { UserFacingError } from '../compiler/lmforge-error.js';
import { MAX_INDENT } from '../compiler/json-schema/options.js';
import { numberAsTyped } from './option-values.js';

export interface CompileGrammarFlags {
  ebnf?: string;
  root?: string;
  regex?: string | number;
  jsonSchema?: string;
  anyWhitespace?: boolean;
  maxWhitespaceCount?: number | string;
  indent?: number | string;
  itemSeparator?: string;
  keySeparator?: string;
  strictMode?: boolean;
  anyOrder?: boolean;
  style?: string;
  out?: string;
  check?: boolean;
  model?: string;
}

class CompileGrammarUsageError extends UserFacingError {
  override name = 'UsageError';
}

const STYLES = ['json', 'qwen_xml', 'minimax_xml', 'deepseek_xml', 'glm_xml', 'cohere_xml', 'kimi_k3_xml'];

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
  if (flags.maxWhitespaceCount !== undefined) {
    const count = numberAsTyped(flags.maxWhitespaceCount);
    if (!Number.isSafeInteger(count)) throw new CompileGrammarUsageError(`--max-whitespace-count must be a whole number of at least 0, not '${flags.maxWhitespaceCount}'`);
    options.maxWhitespaceCount = count;
  }
  if (flags.indent !== undefined) {
    const indent = numberAsTyped(flags.indent);
    if (!(indent <= MAX_INDENT)) throw new CompileGrammarUsageError(`--indent must be a whole number of spaces from 0 to ${MAX_INDENT}, not '${flags.indent}'`);
    // Free whitespace already takes any layout: an indent there would be dropped unsaid.
    if (options.anyWhitespace) throw new CompileGrammarUsageError('--indent lays out JSON only with --no-any-whitespace (free whitespace already takes any indent)');
    options.indent = indent;
  }
  if (flags.itemSeparator !== undefined || flags.keySeparator !== undefined) {
    // As xgrammar's: free whitespace writes its own separators, and these would be dropped unsaid.
    if (options.anyWhitespace) throw new CompileGrammarUsageError(`${flags.itemSeparator !== undefined ? '--item-separator' : '--key-separator'} lays out JSON only with --no-any-whitespace (free whitespace takes any spacing around ',' and ':')`);
    options.separators = [String(flags.itemSeparator ?? ','), String(flags.keySeparator ?? ':')];
  }
  return options;
}

/** A definition file's JSON; a file with another ending is read as JSON too, and its error says so. */
function readJson(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    const why = (error as Error).message.replace(/\s+/g, ' ');
    const read = extname(path).toLowerCase() === '.json' ? '' : ' (a file not ending in .ebnf, .gbnf or .regex is read as a JSON schema or structural tag)';
    throw new GrammarError(`not valid JSON${read}: ${why}`);
  }
}

/**
 * Whether a definition file holds a structural tag: its `type` says so, or it has none and a
 * `format` that is not a string, as the server reads a response_format (its error then says
 * the format must be a node); a JSON schema's `format` is a string.
 */
function isStructuralTag(json: unknown): boolean {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return false;
  const { type, format } = json as { type?: unknown; format?: unknown };
  return type === 'structural_tag' || (type === undefined && 'format' in json && typeof format !== 'string');
}

/** What the server resolves a structural tag's tokens against, from the model's vocabulary (tokens by their text, ids in range, no end-of-generation token as output). */
function structuralTagVocabulary(vocabulary: TokenizerInfo): SpecVocabulary {
  // As the server's Buffer decoding: a leading BOM is part of a token's text.
  const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
  const texts = Array.from({ length: vocabulary.numTokens }, (_, id) => utf8.decode(vocabulary.bytes.subarray(vocabulary.offsets[id]!, vocabulary.offsets[id + 1]!)));
  return specVocabularyOf(texts, vocabulary.stopTokens);
}

function inputsOf(files: string[], flags: CompileGrammarFlags, options: JsonSchemaOptions, vocabulary?: TokenizerInfo): Input[] {
  // Built once, on the first structural tag: a large vocabulary's texts are not free.
  let tagVocabulary: SpecVocabulary | undefined;
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
  for (const file of files.flatMap(grammarFilesOf)) {
    const ext = extname(file).toLowerCase();
    if (ext === '.ebnf' || ext === '.gbnf') {
      inputs.push({ label: file, load: () => Grammar.fromEBNF(readFileSync(file, 'utf8')) });
    } else if (ext === '.regex') {
      // One pattern, the file's text without its final line break.
      inputs.push({ label: file, load: () => Grammar.fromRegex(readFileSync(file, 'utf8').replace(/\r?\n$/, '')) });
    } else {
      inputs.push({
        label: file,
        load: () => {
          const json = readJson(file);
          if (isStructuralTag(json)) {
            if (vocabulary) tagVocabulary ??= structuralTagVocabulary(vocabulary);
            // --max-whitespace-count bounds the json_schema nodes that set no bound of their own.
            return Grammar.fromStructuralTag(json, { ...tagVocabulary, ...(options.maxWhitespaceCount !== undefined ? { maxWhitespaceCount: options.maxWhitespaceCount } : {}) });
          }
          return Grammar.fromJSONSchema(json, options);
        },
      });
    }
  }
  return inputs;
}

const GRAMMAR_FILE_ENDINGS = ['.ebnf', '.gbnf', '.regex', '.json'];

/** A folder stands for the grammar files in it; a folder without any is left to fail as one, by name. */
function grammarFilesOf(path: string): string[] {
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    return [path]; // missing: its read says so
  }
  if (!folder) return [path];
  const inside = readdirSync(path).filter((name) => GRAMMAR_FILE_ENDINGS.includes(extname(name).toLowerCase())).sort();
  if (inside.length === 0) throw new CompileGrammarUsageError(`${path} is a folder with no grammar files (${GRAMMAR_FILE_ENDINGS.join(', ')}) in it`);
  return inside.map((name) => join(path, name));
}

export interface CompileGrammarIo {
  log(line: string): void;
  error(line: string): void;
  env?: NodeJS.ProcessEnv;
  /** Each input's outcome, for a machine-readable report (`lmforge compile --check --json`). */
  result?(outcome: { input: string; ok: boolean; message: string }): void;
}

/**
 * The vocabulary of a model (MODEL as `serve` takes it), read from its GGUF as the server
 * reads it from llama.cpp, so the artifacts' vocabulary fingerprint is the one `serve` looks for.
 */
export async function modelVocabulary(spec: string, env: NodeJS.ProcessEnv = process.env): Promise<TokenizerInfo> {
  const { ggufPath } = await resolveModel(spec, { env, pull: false });
  return grammarVocabularyFromGGUF(ggufPath);
}

/**
 * Runs the command; returns the exit status (0 when every input compiled). With a vocabulary
 * (from --model, see `modelVocabulary`) every token mask is computed and stored.
 */
export function runCompileGrammar(files: string[], flags: CompileGrammarFlags, io: CompileGrammarIo, vocabulary?: TokenizerInfo): number {
  const options = schemaOptions(flags);
  const inputs = inputsOf(files, flags, options, vocabulary);
  if (inputs.length === 0) throw new CompileGrammarUsageError('compile-grammar needs --ebnf, --regex, --json-schema or input files');
  // The shared cache keeps serve's bound (its default: the files past it are the least recently
  // used, removed as the process ends); a folder given with --out is a build's output, never pruned.
  const cache = flags.out !== undefined ? new GrammarCache(String(flags.out), { maxBytes: Infinity }) : new GrammarCache(defaultGrammarCacheDir(io.env));
  const compiler = vocabulary ? new GrammarCompiler(vocabulary) : new GrammarCompiler();
  let failed = 0;
  for (const input of inputs) {
    try {
      const compiled = compiler.compile(input.load(), { eager: vocabulary !== undefined });
      const summary = `${compiled.numRules} rules, ${compiled.numStates} states`;
      io.result?.({ input: input.label, ok: true, message: summary });
      if (flags.check) {
        io.log(`ok ${input.label} (${summary})`);
        continue;
      }
      io.log(`${input.label} -> ${cache.write(compiled)}`);
    } catch (error) {
      failed++;
      let message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
      // The compiler's advice is the library's; here the vocabulary comes from a model.
      if (!vocabulary) message = message.replace('(compile with a tokenizer, or give its id)', '(give --model, or its id)');
      io.result?.({ input: input.label, ok: false, message });
      io.error(`lmforge: ${input.label}: ${message}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

export function registerCompileGrammar(cli: CAC): void {
  cli
    .command('compile-grammar [...files]', 'Compile grammars (EBNF, regex, JSON schema, structural tag files) into artifacts for the lmforge/grammar library (serve caches its own per request)')
    .option('--ebnf <file>', 'An EBNF grammar file')
    .option('--root <name>', 'Root rule of the --ebnf grammar (default: root)')
    .option('--regex <pattern>', 'A regular expression (ECMAScript syntax, whole-string match)')
    .option('--json-schema <file>', 'A JSON schema file')
    .option('--no-any-whitespace', 'JSON: no free whitespace (fixed separators, or --indent)')
    .option('--max-whitespace-count <n>', 'JSON: longest whitespace run, in characters (also json_schema nodes of structural tags without their own bound)')
    .option('--indent <n>', 'JSON: pretty-print with this indent (with --no-any-whitespace)')
    .option('--item-separator <text>', 'JSON: separator between items')
    .option('--key-separator <text>', 'JSON: separator between a key and its value')
    .option('--no-strict-mode', 'JSON: allow properties and items the schema does not declare')
    .option('--any-order', 'JSON: object properties in any order')
    .option('--style <style>', `JSON: ${STYLES.join(' | ')}`)
    .option('--out <dir>', `Artifact folder (default: $LMFORGE_HOME/grammars, the cache serve shares: the least recently used files there are removed past ${DEFAULT_GRAMMAR_CACHE_MAX_BYTES / 2 ** 30} GiB; nothing is removed from --out)`)
    .option('--check', 'Only validate; write nothing')
    .option('--model <model>', "Also compile every token mask for this model's vocabulary (a GGUF, model folder or name)")
    .example('lmforge compile-grammar --check grammars/*.json grammars/*.ebnf')
    .example('lmforge compile-grammar --model smollm2 grammars/json.ebnf')
    .action(async (files: string[], flags: CompileGrammarFlags) => {
      const vocabulary = flags.model !== undefined ? await modelVocabulary(String(flags.model)) : undefined;
      const status = runCompileGrammar(files, flags, { log: (l) => console.log(l), error: (l) => console.error(l) }, vocabulary);
      if (status !== 0) process.exitCode = status;
    });
}
