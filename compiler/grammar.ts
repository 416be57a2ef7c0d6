// A grammar from any front end, before compilation. Immutable; `toString()` is its canonical
// text (the compiler's cache key).
//
//   const g = Grammar.fromJSONSchema({ type: 'object', properties: { a: { type: 'integer' } } });
//   const m = new GrammarMatcher(new GrammarCompiler().compile(g));
import { type BuiltinJsonOptions, jsonGrammarText } from './builtin-json.js';
import { type EbnfOptions, parseEbnf } from './ebnf/lower.js';
import { GrammarError } from './errors.js';
import { checkExpandedSize } from './expanded-size.js';
import { forEachRef, type GrammarIR } from './ir.js';
import { type JsonSchemaOptions, jsonSchemaToGrammar } from './json-schema/convert.js';
import { checkNonEmpty } from './passes/empty-language.js';
import { outlineDeepExpressions } from './passes/outline.js';
import { grammarText } from './print.js';
import { regexGrammar } from './regex/regex.js';
import { type StructuralTagOptions, structuralTagToGrammar } from './structural-tag/structural-tag.js';

export class Grammar {
  readonly ir: GrammarIR;
  private text: string | null = null;

  private constructor(ir: GrammarIR) {
    // Every later walk of the IR is recursive; bounded rule bodies keep them off the stack's end.
    this.ir = outlineDeepExpressions(ir);
    // What every repetition adds up to, before anything is built (expanded-size.ts).
    checkExpandedSize(this.ir);
  }

  /** A grammar from IR built elsewhere (structural tags, tests); references are checked, and
   * so is the language (an empty one is an error, as from every front end). */
  static fromIR(ir: GrammarIR): Grammar {
    const grammar = new Grammar(ir);
    const n = grammar.ir.rules.length;
    const check = (r: number): void => {
      if (!Number.isInteger(r) || r < 0 || r >= n) throw new GrammarError(`the grammar refers to rule ${r}, but has ${n} rules`);
    };
    check(grammar.ir.root);
    for (const rule of grammar.ir.rules) {
      forEachRef(rule.body, check);
      if (rule.lookahead) forEachRef(rule.lookahead, check);
    }
    checkNonEmpty(grammar.ir);
    return grammar;
  }

  static fromEBNF(text: string, options: EbnfOptions = {}): Grammar {
    return new Grammar(parseEbnf(textArgument(text, 'Grammar.fromEBNF', 'EBNF text'), options ?? {}));
  }

  /** The whole string must match the ECMAScript regular expression. */
  static fromRegex(pattern: string): Grammar {
    return new Grammar(regexGrammar(textArgument(pattern, 'Grammar.fromRegex', 'a regular expression')));
  }

  static fromJSONSchema(schema: unknown, options: JsonSchemaOptions = {}): Grammar {
    return new Grammar(jsonSchemaToGrammar(schema, options ?? {})); // null from JavaScript is no options
  }

  /** A structural tag: `{type: "structural_tag", format}` or a bare format node (see
   * structural-tag/). Tokens given as text need `options.resolveToken`. */
  static fromStructuralTag(tag: unknown, options: StructuralTagOptions = {}): Grammar {
    return new Grammar(structuralTagToGrammar(tag, options ?? {}));
  }

  /** Any JSON value; whitespace runs bounded unless `maxWhitespace: null` (builtin-json.ts). */
  static builtinJSON(options: BuiltinJsonOptions = {}): Grammar {
    return Grammar.fromEBNF(jsonGrammarText(false, options));
  }

  /** Any JSON object (JSON mode); whitespace as `builtinJSON`. */
  static builtinJSONObject(options: BuiltinJsonOptions = {}): Grammar {
    return Grammar.fromEBNF(jsonGrammarText(true, options));
  }

  toString(): string {
    this.text ??= grammarText(this.ir);
    return this.text;
  }
}

/** A text argument as JavaScript callers may get it wrong (undefined, a number): refused by name, not with a TypeError from inside a parser. */
function textArgument(value: unknown, method: string, what: string): string {
  if (typeof value !== 'string') throw new GrammarError(`${method} takes ${what} as a string, got ${value === null ? 'null' : typeof value}`);
  return value;
}
