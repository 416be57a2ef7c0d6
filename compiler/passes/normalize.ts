// Normal form: nested sequences and choices flattened, single-element ones unwrapped, adjacent
// literals fused, one-code-point classes turned into literals, trivial repeats removed, ""
// alternatives merged into one placed first, and dispatch macros and counted automata lifted
// into rules of their own (the FSM builder needs them as whole rule bodies). Nested choices and small repeats stay
// inside a rule: each rule becomes one automaton, so they cost no extra rule.
import type { Expr, GrammarIR, Rule } from '../ir.js';

const utf8 = new TextEncoder();

export function normalize(grammar: GrammarIR): GrammarIR {
  const rules: Rule[] = grammar.rules.map((r) => ({ ...r }));
  const lift = (e: Expr, owner: string): Expr => {
    rules.push({ name: `${owner}_${e.kind === 'automaton' ? 'counted' : 'dispatch'}`, body: e, lookahead: null, exactLookahead: false });
    return { kind: 'ref', rule: rules.length - 1 };
  };
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i]!;
    const isWhole = rule.body.kind === 'tagDispatch' || rule.body.kind === 'tokenDispatch' || (rule.body.kind === 'automaton' && rule.body.units !== undefined);
    if (!isWhole) rule.body = simplify(rule.body, (e) => lift(e, rule.name));
    if (rule.lookahead) rule.lookahead = simplify(rule.lookahead, (e) => lift(e, rule.name));
  }
  return { rules, root: grammar.root };
}

export function simplify(e: Expr, lift: (e: Expr) => Expr = (x) => x): Expr {
  switch (e.kind) {
    case 'class':
      return e.ranges.length === 2 && e.ranges[0] === e.ranges[1] ? { kind: 'bytes', bytes: utf8.encode(String.fromCodePoint(e.ranges[0]!)) } : e;
    case 'seq': {
      const out: Expr[] = [];
      for (const item of e.items) {
        const s = simplify(item, lift);
        for (const part of s.kind === 'seq' ? s.items : [s]) {
          if (part.kind === 'choice' && part.items.length === 0) return part; // matches nothing
          if (part.kind === 'bytes' && part.bytes.length === 0) continue;
          const prev = out[out.length - 1];
          if (part.kind === 'bytes' && prev?.kind === 'bytes') {
            const joined = new Uint8Array(prev.bytes.length + part.bytes.length);
            joined.set(prev.bytes);
            joined.set(part.bytes, prev.bytes.length);
            out[out.length - 1] = { kind: 'bytes', bytes: joined };
          } else out.push(part);
        }
      }
      if (out.length === 0) return { kind: 'bytes', bytes: new Uint8Array(0) };
      return out.length === 1 ? out[0]! : { kind: 'seq', items: out };
    }
    case 'choice': {
      const out: Expr[] = [];
      let hasEmpty = false;
      for (const item of e.items) {
        const s = simplify(item, lift);
        for (const part of s.kind === 'choice' ? s.items : [s]) {
          if (part.kind === 'bytes' && part.bytes.length === 0) hasEmpty = true;
          else out.push(part);
        }
      }
      if (hasEmpty) out.unshift({ kind: 'bytes', bytes: new Uint8Array(0) });
      return out.length === 1 ? out[0]! : { kind: 'choice', items: out };
    }
    case 'repeat': {
      const body = simplify(e.body, lift);
      if (e.max === 0 || (body.kind === 'bytes' && body.bytes.length === 0)) return { kind: 'bytes', bytes: new Uint8Array(0) };
      if (e.min === 1 && e.max === 1) return body;
      if (body.kind === 'choice' && body.items.length === 0) return e.min === 0 ? { kind: 'bytes', bytes: new Uint8Array(0) } : body;
      return { kind: 'repeat', body, min: e.min, max: e.max };
    }
    case 'tagDispatch':
    case 'tokenDispatch':
      return lift(e);
    case 'automaton':
      return e.units ? lift(e) : e;
    default:
      return e;
  }
}
