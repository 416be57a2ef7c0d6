// Lowers the EBNF syntax tree to the grammar IR: names resolve to rules (an unknown or twice
// defined name is an error at its position), quantifiers become inline repeats.
import type { IToken } from 'chevrotain';
import { GrammarError } from '../errors.js';
import { beyondExpansionLimit, repeatStates } from '../expanded-size.js';
import { type Expr, GrammarBuilder, type GrammarIR, lit, nothing } from '../ir.js';
import { MAX_AUTOMATON_STATES } from '../limits.js';
import { checkNonEmpty } from '../passes/empty-language.js';
import { decodeClass, decodeString } from './escapes.js';
import { parseEbnfSyntax, type SyntaxNode } from './parser.js';

export interface EbnfOptions {
  /** Name of the root rule (default `root`). */
  root?: string;
}

/** Largest repetition bound accepted; larger ones become counted repeats, not unrolled. */
const MAX_BOUND = 0x7fffffff;

function locationOf(tok: IToken): { kind: 'text'; line: number; column: number } {
  return { kind: 'text', line: tok.startLine ?? 1, column: tok.startColumn ?? 1 };
}

function errorAt(tok: IToken, message: string): GrammarError {
  return GrammarError.located(locationOf(tok), message);
}

export function parseEbnf(text: string, options: EbnfOptions = {}): GrammarIR {
  const syntax = parseEbnfSyntax(text);
  const builder = new GrammarBuilder();
  for (const rule of syntax) {
    const name = rule.name.image;
    if (builder.idOf(name) !== undefined) throw errorAt(rule.name, `the rule '${name}' is defined twice`);
    builder.declare(name, { location: locationOf(rule.name), name });
  }
  const lower = (node: SyntaxNode): Expr => {
    switch (node.t) {
      case 'string':
        return lit(decodeString(node.tok));
      case 'class': {
        const ranges = decodeClass(node.tok);
        // Only an error if the grammar cannot do without it (passes/empty-language.ts).
        if (ranges.length === 0) return nothing(`the character class ${node.tok.image} matches no character`, locationOf(node.tok));
        return { kind: 'class', ranges };
      }
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
        const states = repeatStates(body, min, max);
        if (states > MAX_AUTOMATON_STATES) throw errorAt(node.q, `the repetition '${q}' ${beyondExpansionLimit(states)}`);
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
  const grammar = builder.build(root);
  checkNonEmpty(grammar);
  return grammar;
}
