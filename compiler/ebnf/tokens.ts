// Tokens of the EBNF dialect (GBNF-compatible: `name ::= expr`, `#` comments).
import { createToken, Lexer } from 'chevrotain';

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n]+/, group: Lexer.SKIPPED });
export const Comment = createToken({ name: 'Comment', pattern: /#[^\n]*/, group: Lexer.SKIPPED });
export const DefinedAs = createToken({ name: 'DefinedAs', pattern: /::=/, label: "'::='" });
export const Identifier = createToken({ name: 'Identifier', pattern: /[A-Za-z_][A-Za-z0-9_.-]*/, label: 'a rule name' });
export const StringLiteral = createToken({ name: 'StringLiteral', pattern: /"(?:[^"\\\n]|\\.)*"/, label: 'a string' });
export const CharClass = createToken({ name: 'CharClass', pattern: /\[(?:[^\]\\\n]|\\.)*\]/, label: 'a character class' });
export const LookaheadOpen = createToken({ name: 'LookaheadOpen', pattern: /\(=/, label: "'(='" });
export const LParen = createToken({ name: 'LParen', pattern: /\(/, label: "'('" });
export const RParen = createToken({ name: 'RParen', pattern: /\)/, label: "')'" });
export const Pipe = createToken({ name: 'Pipe', pattern: /\|/, label: "'|'" });
export const Star = createToken({ name: 'Star', pattern: /\*/, label: "'*'" });
export const Plus = createToken({ name: 'Plus', pattern: /\+/, label: "'+'" });
export const Question = createToken({ name: 'Question', pattern: /\?/, label: "'?'" });
/** `{m}`, `{m,}`, `{m,n}`; `{,n}` is lexed too, so that it can be reported by name. */
export const Braces = createToken({ name: 'Braces', pattern: /\{\s*\d*\s*(?:,\s*\d*\s*)?\}/, label: "a repetition '{m,n}'" });

export const allTokens = [
  WhiteSpace,
  Comment,
  DefinedAs,
  LookaheadOpen,
  LParen,
  RParen,
  Pipe,
  Star,
  Plus,
  Question,
  Braces,
  StringLiteral,
  CharClass,
  Identifier,
];

export const ebnfLexer = new Lexer(allTokens, { positionTracking: 'full' });
