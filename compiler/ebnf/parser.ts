// Chevrotain parser of the EBNF dialect into a small syntax tree that keeps its tokens, so
// later errors (unknown rule, bad escape) can still name line and column.
import { EmbeddedActionsParser, type IToken, type TokenType } from 'chevrotain';
import { GrammarError } from '../errors.js';
import { MAX_EBNF_TOKENS, MAX_NESTING } from '../limits.js';
import * as T from './tokens.js';

export type SyntaxNode =
  | { t: 'string'; tok: IToken }
  | { t: 'class'; tok: IToken }
  | { t: 'name'; tok: IToken }
  | { t: 'seq'; items: SyntaxNode[] }
  | { t: 'alt'; items: SyntaxNode[] }
  | { t: 'quant'; node: SyntaxNode; q: IToken };

export interface SyntaxRule {
  name: IToken;
  body: SyntaxNode;
  lookahead: SyntaxNode | null;
}

class EbnfParser extends EmbeddedActionsParser {
  constructor() {
    // Chevrotain's grammar self-check needs Object.groupBy (Node 21+); the grammar is fixed and
    // checked wherever that exists, so on Node 20 the check is skipped.
    super(T.allTokens, { maxLookahead: 3, skipValidations: typeof (Object as { groupBy?: unknown }).groupBy !== 'function' });
    this.performSelfAnalysis();
  }

  readonly grammar = this.RULE('grammar', (): SyntaxRule[] => {
    const rules: SyntaxRule[] = [];
    this.MANY(() => rules.push(this.SUBRULE(this.rule)));
    return rules;
  });

  private readonly rule = this.RULE('rule', (): SyntaxRule => {
    const name = this.CONSUME(T.Identifier);
    this.CONSUME(T.DefinedAs);
    const body = this.SUBRULE(this.choice);
    let lookahead: SyntaxNode | null = null;
    this.OPTION(() => {
      this.CONSUME(T.LookaheadOpen);
      lookahead = this.SUBRULE(this.sequence);
      this.CONSUME(T.RParen);
    });
    return { name, body, lookahead };
  });

  private readonly choice = this.RULE('choice', (): SyntaxNode => {
    const items = [this.SUBRULE(this.sequence)];
    this.MANY(() => {
      this.CONSUME(T.Pipe);
      items.push(this.SUBRULE2(this.sequence));
    });
    return items.length === 1 ? items[0]! : { t: 'alt', items };
  });

  private readonly sequence = this.RULE('sequence', (): SyntaxNode => {
    const items: SyntaxNode[] = [];
    // A name followed by '::=' starts the next rule, so it ends this sequence.
    this.MANY({
      GATE: () => !(this.LA(1).tokenType === T.Identifier && this.LA(2).tokenType === T.DefinedAs),
      DEF: () => items.push(this.SUBRULE(this.element)),
    });
    return { t: 'seq', items };
  });

  private readonly element = this.RULE('element', (): SyntaxNode => {
    let node = this.SUBRULE(this.atom);
    this.OPTION(() => {
      const q = this.OR([
        { ALT: () => this.CONSUME(T.Star) },
        { ALT: () => this.CONSUME(T.Plus) },
        { ALT: () => this.CONSUME(T.Question) },
        { ALT: () => this.CONSUME(T.Braces) },
      ]);
      node = { t: 'quant', node, q };
    });
    return node;
  });

  private readonly atom = this.RULE('atom', (): SyntaxNode =>
    this.OR([
      { ALT: (): SyntaxNode => ({ t: 'string', tok: this.CONSUME(T.StringLiteral) }) },
      { ALT: (): SyntaxNode => ({ t: 'class', tok: this.CONSUME(T.CharClass) }) },
      { ALT: (): SyntaxNode => ({ t: 'name', tok: this.CONSUME(T.Identifier) }) },
      {
        ALT: () => {
          this.CONSUME(T.LParen);
          const inner = this.SUBRULE(this.choice);
          this.CONSUME(T.RParen);
          return inner;
        },
      },
    ]),
  );
}

let shared: EbnfParser | null = null;

export function parseEbnfSyntax(text: string): SyntaxRule[] {
  const lexed = T.ebnfLexer.tokenize(text);
  const lexError = lexed.errors[0];
  if (lexError) {
    const line = lexError.line ?? 1;
    const column = lexError.column ?? 1;
    const found = text.slice(lexError.offset, lexError.offset + 1);
    const problem = found === '"' ? 'unterminated string' : found === '[' ? 'unterminated character class' : `unexpected '${found}'`;
    throw new GrammarError(`line ${line}, column ${column}: ${problem}`, { kind: 'text', line, column });
  }
  checkLimits(lexed.tokens);
  shared ??= new EbnfParser();
  const parser = shared;
  parser.input = lexed.tokens;
  const rules = parser.grammar();
  const error = parser.errors[0];
  if (error) {
    const tok = error.token;
    const atEnd = tok.tokenType.name === 'EOF';
    const line = atEnd ? lastLine(text) : tok.startLine ?? 1;
    const column = atEnd ? lastColumn(text) : tok.startColumn ?? 1;
    const found = atEnd ? 'the end of the grammar' : `'${tok.image}'`;
    // A repetition where none can be: after another one ("a"++), or with nothing before it (| *).
    if (QUANTIFIERS.has(tok.tokenType)) {
      const before = lexed.tokens[lexed.tokens.indexOf(tok) - 1];
      const why = before && QUANTIFIERS.has(before.tokenType) ? `follows the repetition '${before.image}' (to repeat a repetition, group it: (x+)?)` : 'has nothing before it to repeat';
      throw new GrammarError(`line ${line}, column ${column}: the repetition ${found} ${why}`, { kind: 'text', line, column });
    }
    throw new GrammarError(`line ${line}, column ${column}: expected ${expected(error.message)}, found ${found}`, { kind: 'text', line, column });
  }
  return rules;
}

const QUANTIFIERS: ReadonlySet<TokenType> = new Set([T.Star, T.Plus, T.Question, T.Braces]);

/** Size and group nesting (limits.ts), before the parser (recursive per group) sees them. */
function checkLimits(tokens: IToken[]): void {
  const at = (tok: IToken, message: string): GrammarError => {
    const line = tok.startLine ?? 1;
    const column = tok.startColumn ?? 1;
    return new GrammarError(`line ${line}, column ${column}: ${message}`, { kind: 'text', line, column });
  };
  if (tokens.length > MAX_EBNF_TOKENS) throw at(tokens[MAX_EBNF_TOKENS]!, `the grammar has more than ${MAX_EBNF_TOKENS} tokens (the limit)`);
  let depth = 0;
  for (const tok of tokens) {
    if (tok.tokenType === T.LParen || tok.tokenType === T.LookaheadOpen) {
      if (++depth > MAX_NESTING) throw at(tok, `groups nest more than ${MAX_NESTING} levels deep here (the limit)`);
    } else if (tok.tokenType === T.RParen) depth = Math.max(depth - 1, 0);
  }
}

/** Chevrotain's messages list the expected token labels; keep just that part. */
function expected(message: string): string {
  const one = /Expecting (?:token of type )?-*> ?(.+?) <-* but found/s.exec(message);
  if (one) return one[1]!.trim();
  const many = /one of these possible Token sequences:\s*(.+?)\s*but found/s.exec(message);
  if (many) {
    const options = [...many[1]!.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!.trim());
    return [...new Set(options)].join(' or ');
  }
  return 'a rule definition';
}

function lastLine(text: string): number {
  return text.split('\n').length;
}

function lastColumn(text: string): number {
  return (text.split('\n').at(-1) ?? '').length + 1;
}
