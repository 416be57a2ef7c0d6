// The built-in JSON grammars (RFC 8259 values; whitespace is space, tab, LF and CR). The
// output is the value alone: nothing before it or after it, since whitespace there only kept
// models emitting spaces or newlines until max_tokens. Whitespace runs are bounded as in JSON
// schemas (json-schema/options.ts: one space, or one line break then up to 20 spaces or
// tabs), unless `maxWhitespace: null`. Digit runs are bounded as in JSON schemas
// (json-schema/numbers.ts: MAX_FREE_DIGITS). grammars/json.ebnf and grammars/json-object.ebnf hold the default
// text as data for CI; a test keeps them equal.
import { MAX_FREE_DIGITS } from './json-schema/numbers.js';
import { DEFAULT_MAX_WHITESPACE, maxWhitespaceCountOf, maxWhitespaceOf } from './json-schema/options.js';

export interface BuiltinJsonOptions {
  /** Longest whitespace run, as JsonSchemaOptions.maxWhitespace (null: unbounded). */
  maxWhitespace?: number | null;
  /** Instead: each run at most this many whitespace characters of any kind, as
   * JsonSchemaOptions.maxWhitespaceCount (xgrammar's `max_whitespace_cnt`). */
  maxWhitespaceCount?: number;
}

const COMMON = String.raw`value ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws "}" | "{" ws member (ws "," ws member)* ws "}"
member ::= string ws ":" ws value
array ::= "[" ws "]" | "[" ws value (ws "," ws value)* ws "]"
string ::= "\"" ([^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4}))* "\""
number ::= "-"? ("0" | [1-9] [0-9]{0,${MAX_FREE_DIGITS}}) ("." [0-9]{1,${MAX_FREE_DIGITS}})? ([eE] [+-]? [0-9]{1,${MAX_FREE_DIGITS}})?
`;

function whitespaceRule(max: number | null, count: number | undefined): string {
  if (count !== undefined) return String.raw`ws ::= [ \t\n\r]{0,${count}}`;
  if (max === null) return String.raw`ws ::= [ \t\n\r]*`;
  const lineBreak = String.raw`"\r"? "\n" [ \t]{0,${max}}`;
  return `ws ::= (${max > 0 ? `" " | ${lineBreak}` : lineBreak})?`;
}

/** Any JSON value, or with `objectOnly` any JSON object (JSON mode), as EBNF text. */
export function jsonGrammarText(objectOnly: boolean, options: BuiltinJsonOptions = {}): string {
  const max = maxWhitespaceOf(options.maxWhitespace);
  const count = maxWhitespaceCountOf(options.maxWhitespaceCount);
  const head = objectOnly ? '# Any JSON object (JSON mode).\nroot ::= object' : '# Any JSON value (RFC 8259).\nroot ::= value';
  return `${head}\n${COMMON}${whitespaceRule(max, count)}\n`;
}

/** Any JSON value. */
export const JSON_GRAMMAR = jsonGrammarText(false, { maxWhitespace: DEFAULT_MAX_WHITESPACE });

/** Any JSON object: the grammar of JSON mode. */
export const JSON_OBJECT_GRAMMAR = jsonGrammarText(true, { maxWhitespace: DEFAULT_MAX_WHITESPACE });
