// Shared by the structural-tag suites: compile a tag once, then ask whether whole strings
// match (byte level, each on a fork), or whether it is rejected with a given pointer.
import * as assert from 'uvu/assert';
import { Grammar, GrammarError, type StructuralTagOptions } from '../../compiler/index.js';
import { ggufValue, readGGUF } from '../../compiler/gguf/gguf-file.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { accepts } from '../compiler/helpers.js';

export function tag(format: unknown, options: StructuralTagOptions = {}): (text: string) => boolean {
  return accepts(Grammar.fromStructuralTag(format, options));
}

/** Asserts each string's verdict, naming the first that disagrees. */
export function check(ok: (text: string) => boolean, accept: string[], reject: string[]): void {
  for (const s of accept) assert.ok(ok(s), `should accept ${JSON.stringify(s)}`);
  for (const s of reject) assert.not.ok(ok(s), `should reject ${JSON.stringify(s)}`);
}

/** The GrammarError that `fromStructuralTag` raises for `input`. */
export function errorOf(input: unknown, options: StructuralTagOptions = {}): GrammarError {
  try {
    Grammar.fromStructuralTag(input, options);
  } catch (error) {
    if (error instanceof GrammarError) return error;
    throw error;
  }
  throw new assert.Assertion({ message: `expected ${JSON.stringify(input)} to be rejected`, operator: 'throws', expects: 'a GrammarError', actual: 'no error' });
}

/** Asserts the rejection's pointer and that its message matches. */
export function rejects(input: unknown, pointer: string, message: RegExp, options: StructuralTagOptions = {}): void {
  const error = errorOf(input, options);
  assert.equal(error.location, { kind: 'pointer', pointer }, `pointer of: ${error.message}`);
  assert.match(error.message, message);
  assert.ok(error.message.startsWith(`${pointer || '/'}: `), `the message names the pointer: ${error.message}`);
}

let qwen2: Promise<Map<string, number>> | undefined;

/** Token text -> id of the Qwen2 vocabulary (llama.cpp's vocab-only GGUF). */
export function qwen2Resolver(): Promise<(text: string) => number | undefined> {
  qwen2 ??= (async () => {
    const file = await readGGUF(await vocabularyPath('qwen2'));
    const tokens = ggufValue(file, 'tokenizer.ggml.tokens') as string[];
    const map = new Map<string, number>();
    tokens.forEach((t, i) => {
      if (!map.has(t)) map.set(t, i);
    });
    return map;
  })();
  return qwen2.then((map) => (text) => map.get(text));
}
