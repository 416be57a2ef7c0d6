// Options of the JSON Schema front end and the formatting they imply.
import { GrammarError } from '../errors.js';
import { alt, cls, EMPTY, type Expr, lit, opt, rep, seq } from '../ir.js';

export type JsonSchemaStyle = 'json' | 'qwen_xml' | 'minimax_xml' | 'deepseek_xml' | 'glm_xml' | 'cohere_xml' | 'kimi_k3_xml';

export interface JsonSchemaOptions {
  /** Whitespace allowed between tokens: space, tab, LF, CR (RFC 8259), bounded by
   * `maxWhitespace`. Default true. Nothing comes before the top-level value or after it
   * (inside a structural tag, see `trailingWhitespace`). */
  anyWhitespace?: boolean;
  /** With `anyWhitespace`, each whitespace run is one space, or one line break (LF or CR LF)
   * followed by at most this many spaces or tabs. Default 20 (`DEFAULT_MAX_WHITESPACE`); 0
   * allows line breaks only; null or Infinity: any run of space, tab, LF and CR, unbounded. */
  maxWhitespace?: number | null;
  /** With `anyWhitespace`, each whitespace run is at most this many characters of any kind
   * (xgrammar's `max_whitespace_cnt`); replaces `maxWhitespace` when given. */
  maxWhitespaceCount?: number;
  /** One whitespace run before the top-level value and one after it (default false: the
   * output is the value alone). Structural tags use it inside a tag, whose end must follow. */
  trailingWhitespace?: boolean;
  /** Pretty-printing indent in spaces; only used when `anyWhitespace` is false. */
  indent?: number;
  /** [item separator, key separator]. Defaults: "," ":" with any whitespace, ", " ": " without,
   * "," ": " with an indent (a newline and the indentation follow the item separator). */
  separators?: [string, string];
  /** No properties or array items beyond what the schema declares, unless
   * `additionalProperties` / `items` allows them. Default true. */
  strictMode?: boolean;
  /** Under `strictMode`, an object schema that names no key (no `properties`,
   * `patternProperties`, `required`, `additionalProperties` or `unevaluatedProperties` in any
   * part) takes any keys (within `propertyNames`): `{"type": "object"}` is any object, as in
   * xgrammar's structural tags (a tool whose parameters are just that). Default false. */
  openBareObjects?: boolean;
  /** Object properties in any order (keys may repeat or be missing; only the count is bounded). */
  anyOrder?: boolean;
  /** How the top-level object is written (XML styles are for tool-call arguments). */
  style?: JsonSchemaStyle;
}

const WS_CLASS = cls([0x09, 0x0a, 0x0d, 0x0d, 0x20, 0x20]);

/**
 * The default bound on a whitespace run: one space, or one line break and then up to 20
 * spaces or tabs (the shape of llama.cpp's JSON grammars). That admits compact JSON
 * (`{"a": 1}`, `{ "a" : 1 }`), pretty-printing with an indent of 2 to 10 levels deep or of 4
 * to 5 levels (deeper lines lose some indentation, never validity), tabs, and CR LF; and it
 * forbids what small models fall into when their preferred token is masked: newline after
 * newline, runs of spaces between every token, whitespace that never ends.
 */
export const DEFAULT_MAX_WHITESPACE = 20;

/** A whitespace run as `maxWhitespace` bounds it (null: unbounded). */
export function whitespace(max: number | null): Expr {
  if (max === null) return rep(WS_CLASS, 0, -1);
  const lineBreak = seq(opt(lit('\r')), lit('\n'), rep(cls([0x09, 0x09, 0x20, 0x20]), 0, max));
  return opt(max > 0 ? alt(lit(' '), lineBreak) : lineBreak);
}

/** The `maxWhitespaceCount` option checked: a whole number of at least 0 (undefined: not set). */
export function maxWhitespaceCountOf(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw new GrammarError(`maxWhitespaceCount must be a whole number of at least 0, not ${value}`);
  return value;
}

/** Widest pretty-printing indent: a line at the deepest level is at most a few thousand spaces. */
export const MAX_INDENT = 64;

/** The `indent` option checked: a whole number of spaces from 0 to MAX_INDENT (undefined: not set). */
export function indentOf(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_INDENT) throw new GrammarError(`indent must be a whole number of spaces from 0 to ${MAX_INDENT}, not ${value}`);
  return value;
}

/** A whitespace run of at most `count` characters of any kind (xgrammar's `max_whitespace_cnt`). */
export function whitespaceCount(count: number): Expr {
  return rep(WS_CLASS, 0, count);
}

/** The `maxWhitespace` option checked: a whole number of at least 0, or null for unbounded. */
export function maxWhitespaceOf(value: number | null | undefined): number | null {
  if (value === undefined) return DEFAULT_MAX_WHITESPACE;
  if (value === null || value === Infinity) return null;
  if (!Number.isSafeInteger(value) || value < 0) throw new GrammarError(`maxWhitespace must be a whole number of at least 0, or null for unbounded whitespace, not ${value}`);
  return value;
}
/** Beyond this depth a pretty-printed recursive schema accepts no further nesting. */
export const MAX_INDENT_DEPTH = 24;

export class Formatting {
  readonly anyWhitespace: boolean;
  readonly indent: number | null;
  private readonly itemSepText: string;
  private readonly keySepText: string;
  private readonly wsExpr: Expr;

  constructor(options: JsonSchemaOptions) {
    this.anyWhitespace = options.anyWhitespace ?? true;
    const indent = indentOf(options.indent);
    this.indent = this.anyWhitespace ? null : indent ?? null;
    const max = maxWhitespaceOf(options.maxWhitespace);
    const count = maxWhitespaceCountOf(options.maxWhitespaceCount);
    this.wsExpr = count !== undefined ? whitespaceCount(count) : whitespace(max);
    const [item, key] = options.separators ?? [];
    this.itemSepText = item ?? (this.anyWhitespace || this.indent !== null ? ',' : ', ');
    this.keySepText = key ?? (this.anyWhitespace ? ':' : ': ');
  }

  /** Whether rules must be generated per nesting depth. */
  get depthMatters(): boolean {
    return this.indent !== null;
  }

  ws(): Expr {
    return this.anyWhitespace ? this.wsExpr : EMPTY;
  }

  private newline(depth: number): Expr {
    return lit('\n' + ' '.repeat((this.indent ?? 0) * depth));
  }

  /** Between two items of a container at `depth`. */
  itemSep(depth: number): Expr {
    if (this.anyWhitespace) return seq(this.ws(), lit(this.itemSepText), this.ws());
    return this.indent !== null ? seq(lit(this.itemSepText), this.newline(depth + 1)) : lit(this.itemSepText);
  }

  keySep(): Expr {
    return this.anyWhitespace ? seq(this.ws(), lit(this.keySepText), this.ws()) : lit(this.keySepText);
  }

  /** After the opening bracket of a non-empty container at `depth`. */
  open(depth: number): Expr {
    return this.anyWhitespace ? this.ws() : this.indent !== null ? this.newline(depth + 1) : EMPTY;
  }

  /** Before the closing bracket of a non-empty container at `depth`. */
  close(depth: number): Expr {
    return this.anyWhitespace ? this.ws() : this.indent !== null ? this.newline(depth) : EMPTY;
  }

  /** An empty container: `{}` or `{ }` with whitespace allowed. */
  empty(openText: string, closeText: string): Expr {
    return seq(lit(openText), this.ws(), lit(closeText));
  }

  container(openText: string, closeText: string, depth: number, nonEmpty: Expr, emptyAllowed: boolean): Expr {
    const full = seq(lit(openText), this.open(depth), nonEmpty, this.close(depth), lit(closeText));
    return emptyAllowed ? alt(this.empty(openText, closeText), full) : full;
  }
}
