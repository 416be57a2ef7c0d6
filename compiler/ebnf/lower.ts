// Lowers the EBNF syntax tree to the grammar IR: names resolve to rules (an unknown or twice
// defined name is an error at its position), quantifiers become inline repeats.
import type { IToken } from 'chevrotain';
import { GrammarError } from '../errors.js';
import { type Expr, GrammarBuilder, type GrammarIR, lit } from '../ir.js';
import { decodeClass, decodeString } from './escapes.js';
import { parseEbnfSyntax, type SyntaxNode } from './parser.js';

export interface EbnfOptions {
  /** Name of the root rule (default `root`). */
  root?: string;
}

/** Largest repetition bound accepted; larger ones become counted repeats, not unrolled. */
const MAX_BOUND = 0x7fffffff;

function errorAt(tok: IToken, message: string): GrammarError {
  const line = tok.startLine ?? 1;
  const column = tok.startColumn ?? 1;
  return new GrammarError(`line ${line}, column ${column}: ${message}`, { kind: 'text', line, column });
}

export function parseEbnf(text: string, options: EbnfOptions = {}): GrammarIR {
  const syntax = parseEbnfSyntax(text);
  const builder = new GrammarBuilder();
  for (const rule of syntax) {
    const name = rule.name.image;
    if (builder.idOf(name) !== undefined) throw errorAt(rule.name, `the rule '${name}' is defined twice`);
    builder.declare(name);
  }
  const lower = (node: SyntaxNode): Expr => {
    switch (node.t) {
      case 'string':
        return lit(decodeString(node.tok));
      case 'class':
        return { kind: 'class', ranges: decodeClass(node.tok) };
      case 'name': {
        const id = builder.idOf(node.tok.image);
        if (id === undefined) throw errorAt(node.tok, `the rule '${node.tok.image}' is not defined`);
        return { kind: 'ref', rule: id };
      }
      case 'seq':
        return { kind: 'seq', items: node.items.map(lower) };
      case 'alt':
        return { kind: 'choice', items: node.items.map(lower) };
      case 'quant': {
        const body = lower(node.node);
        const q = node.q.image;
        if (q === '*') return { kind: 'repeat', body, min: 0, max: -1 };
        if (q === '+') return { kind: 'repeat', body, min: 1, max: -1 };
        if (q === '?') return { kind: 'repeat', body, min: 0, max: 1 };
        const m = /^\{\s*(\d*)\s*(,\s*(\d*)\s*)?\}$/.exec(q)!;
        if (m[1] === '') throw errorAt(node.q, `'${q}' needs a lower bound; write {0,n}`);
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
        if (min > MAX_BOUND || max > MAX_BOUND) throw errorAt(node.q, `the bound in '${q}' is too large (at most ${MAX_BOUND})`);
        if (max !== -1 && max < min) throw errorAt(node.q, `'${q}' has its upper bound below its lower bound`);
        return { kind: 'repeat', body, min, max };
      }
    }
  };
  syntax.forEach((rule, i) => {
    builder.define(i, lower(rule.body), rule.lookahead ? lower(rule.lookahead) : null);
  });
  const rootName = options.root ?? 'root';
  const root = builder.idOf(rootName);
  if (root === undefined) {
    throw new GrammarError(`the root rule '${rootName}' is not defined${syntax.length === 0 ? ' (the grammar is empty)' : ''}`, { kind: 'text', line: 1, column: 1 });
  }
  return builder.build(root);
}
