// Canonical EBNF-like text of a grammar IR: the cache key of a compiled grammar (with the
// format version) and a readable dump for debugging (`compile-grammar --print`).
import type { Expr, GrammarIR, Ranges } from './ir.js';

function byteText(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += '\\x' + b.toString(16).padStart(2, '0');
  }
  return out + '"';
}

function cp(c: number): string {
  if (c >= 0x21 && c < 0x7f && !'\\]^-['.includes(String.fromCharCode(c))) return String.fromCharCode(c);
  return c <= 0xffff ? '\\u' + c.toString(16).padStart(4, '0') : '\\U' + c.toString(16).padStart(8, '0');
}

function classText(ranges: Ranges): string {
  let out = '[';
  for (let i = 0; i < ranges.length; i += 2) {
    out += cp(ranges[i]!);
    if (ranges[i + 1] !== ranges[i]) out += '-' + cp(ranges[i + 1]!);
  }
  return out + ']';
}

export function exprText(e: Expr, names: (rule: number) => string): string {
  switch (e.kind) {
    case 'bytes':
      return byteText(e.bytes);
    case 'class':
      return classText(e.ranges);
    case 'byteRange':
      return `Byte(${e.lo},${e.hi})`;
    case 'seq':
      return e.items.length === 0 ? '""' : e.items.map((i) => wrap(i, names, 'seq')).join(' ');
    case 'choice':
      return e.items.length === 0 ? 'Nothing()' : e.items.map((i) => wrap(i, names, 'choice')).join(' | ');
    case 'repeat':
      return wrap(e.body, names, 'repeat') + `{${e.min},${e.max === -1 ? '' : e.max}}`;
    case 'ref':
      return names(e.rule);
    case 'counted':
      return `Repeat(${names(e.rule)}, ${e.min}, ${e.max})`;
    case 'automaton':
      return automatonText(e.finals, e.edges) + (e.units ? `{units ${e.units.ends.join(' ')}; at most ${e.units.max}}` : '');
    case 'token':
      return `Token(${e.ids.join(', ')})`;
    case 'excludeToken':
      return `ExcludeToken(${e.ids.join(', ')})`;
    case 'tagDispatch':
      return `TagDispatch(${e.tags.map((t) => `(${byteText(t.trigger)}, ${names(t.rule)})`).join(', ')}, loop=${e.loop}, excludes=(${e.excludes.map(byteText).join(', ')}))`;
    case 'tokenDispatch':
      return `TokenTagDispatch(${e.tags.map((t) => `(${t.token}, ${names(t.rule)})`).join(', ')}, loop=${e.loop}, excludes=(${e.excludes.join(', ')}))`;
  }
}

/** `Automaton(finals; from:lo-hi>to ...)`, bytes in hex: canonical, since dfa/ numbers states
 * in the order a walk from the start reaches them. */
function automatonText(finals: number[], edges: number[]): string {
  const hex = (b: number): string => b.toString(16).padStart(2, '0');
  let out = `Automaton(${finals.join(' ')};`;
  for (let i = 0; i < edges.length; i += 4) {
    const lo = edges[i + 1]!;
    const hi = edges[i + 2]!;
    out += ` ${edges[i]}:${hex(lo)}${hi === lo ? '' : '-' + hex(hi)}>${edges[i + 3]}`;
  }
  return out + ')';
}

function wrap(e: Expr, names: (rule: number) => string, ctx: 'seq' | 'choice' | 'repeat'): string {
  const text = exprText(e, names);
  const needs = (e.kind === 'choice' && e.items.length > 1 && ctx !== 'choice') || (e.kind === 'seq' && e.items.length > 1 && ctx === 'repeat') || (e.kind === 'repeat' && ctx === 'repeat');
  return needs ? `(${text})` : text;
}

export function grammarText(g: GrammarIR): string {
  const names = (r: number): string => g.rules[r]!.name;
  const lines = g.rules.map((rule, i) => {
    const la = rule.lookahead ? ` (= ${exprText(rule.lookahead, names)})${rule.exactLookahead ? ' exact' : ''}` : '';
    const unique = rule.uniqueItems ? ' (unique items)' : '';
    return `${i === g.root ? '# root\n' : ''}${rule.name} ::= ${exprText(rule.body, names)}${la}${unique}`;
  });
  return lines.join('\n') + '\n';
}
