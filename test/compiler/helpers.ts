// Shared by the compiler suites: compile once, then ask whether whole strings match.
import fc from 'fast-check';
import { Grammar, GrammarCompiler, GrammarMatcher, type JsonSchemaOptions } from '../../compiler/index.js';

// Property tests are reproducible in CI; FC_SEED=<n> explores other samples locally.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261121) });

const compiler = new GrammarCompiler();

export function matcherFor(grammar: Grammar): GrammarMatcher {
  return new GrammarMatcher(compiler.compile(grammar));
}

/** A predicate: does the whole string match? */
export function accepts(grammar: Grammar): (text: string) => boolean {
  const base = matcherFor(grammar);
  return (text) => {
    const m = base.fork();
    return m.acceptString(text) && m.isCompleted();
  };
}

export const ebnf = (text: string, root?: string): ((s: string) => boolean) => accepts(Grammar.fromEBNF(text, root === undefined ? {} : { root }));
export const regex = (pattern: string): ((s: string) => boolean) => accepts(Grammar.fromRegex(pattern));
export const schema = (s: unknown, options: JsonSchemaOptions = {}): ((text: string) => boolean) => accepts(Grammar.fromJSONSchema(s, options));
