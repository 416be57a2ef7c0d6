// Options of the JSON Schema front end and the formatting they imply.
import { alt, cls, EMPTY, type Expr, lit, rep, seq } from '../ir.js';

export type JsonSchemaStyle = 'json' | 'qwen_xml' | 'minimax_xml' | 'deepseek_xml' | 'glm_xml';

export interface JsonSchemaOptions {
  /** Whitespace allowed around tokens: space, tab, LF, CR (RFC 8259). Default true. */
  anyWhitespace?: boolean;
  /** Longest whitespace run when `anyWhitespace` (default: unbounded). */
  maxWhitespaceCount?: number;
  /** Pretty-printing indent in spaces; only used when `anyWhitespace` is false. */
  indent?: number;
  /** [item separator, key separator]. Defaults: "," ":" with any whitespace, ", " ": " without,
   * "," ": " with an indent (a newline and the indentation follow the item separator). */
  separators?: [string, string];
  /** No properties or array items beyond what the schema declares, unless
   * `additionalProperties` / `items` allows them. Default true. */
  strictMode?: boolean;
  /** Object properties in any order (keys may repeat or be missing; only the count is bounded). */
  anyOrder?: boolean;
  /** How the top-level object is written (XML styles are for tool-call arguments). */
  style?: JsonSchemaStyle;
}

const WS_CLASS = cls([0x09, 0x0a, 0x0d, 0x0d, 0x20, 0x20]);
/** Beyond this depth a pretty-printed recursive schema accepts no further nesting. */
export const MAX_INDENT_DEPTH = 24;

export class Formatting {
  readonly anyWhitespace: boolean;
  readonly indent: number | null;
  private readonly itemSepText: string;
  private readonly keySepText: string;
  private readonly maxWs: number;

  constructor(options: JsonSchemaOptions) {
    this.anyWhitespace = options.anyWhitespace ?? true;
    this.indent = this.anyWhitespace ? null : options.indent ?? null;
    this.maxWs = options.maxWhitespaceCount ?? -1;
    const [item, key] = options.separators ?? [];
    this.itemSepText = item ?? (this.anyWhitespace || this.indent !== null ? ',' : ', ');
    this.keySepText = key ?? (this.anyWhitespace ? ':' : ': ');
  }

  /** Whether rules must be generated per nesting depth. */
  get depthMatters(): boolean {
    return this.indent !== null;
  }

  ws(): Expr {
    return this.anyWhitespace ? rep(WS_CLASS, 0, this.maxWs) : EMPTY;
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
