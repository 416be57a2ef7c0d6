// ECMAScript regular expressions (parsed with regexpp) lowered to the grammar IR.
// Semantics: a whole-string match; `^`/`$` only at the ends of top-level alternatives; `.`
// excludes line terminators, as in JavaScript without the s flag; lazy quantifiers match the
// same language as greedy ones. A lookahead in a top-level alternative (zod's email pattern
// starts with two) is the rest of the text intersected with, or less, the texts its body
// starts. What a grammar cannot express (back-references, lookbehind, a lookahead inside a
// group or quantifier, `\b`, `\p{..}`, anchors in the middle) is an error naming the feature
// and its offset. Flags: a leading `(?i)` (Python's and PCRE's spelling, which the reference
// engine takes) makes the whole pattern caseless; a modifier group `(?i:..)`, `(?s:..)`,
// `(?-i:..)` (ECMAScript 2025) sets caseless matching or `.` matching line breaks inside it.
import { type AST, RegExpParser } from '@eslint-community/regexpp';
import { normalizeRanges, complementRanges, encodableRanges, isSurrogate, MAX_CODE_POINT } from '../charset.js';
import { GrammarError } from '../errors.js';
import { type Expr, type GrammarIR, nothing, type Ranges } from '../ir.js';
import { beyondExpansionLimit, expandedStates, repeatStates } from '../expanded-size.js';
import { MAX_AUTOMATON_STATES, MAX_LANGUAGE_STATES, MAX_NESTING, MAX_REGEX_LENGTH } from '../limits.js';
import { checkNonEmpty } from '../passes/empty-language.js';
import { dfaExpr, dfaOfExpr, LanguageTooLarge } from '../dfa/byte-dfa.js';
import { intersectDfa, subtractDfa } from '../dfa/product.js';
import { caseFolded } from './case-fold.js';
import { DOT, escapeSet } from './char-sets.js';

export interface RegexOptions {
  /** How one code point of the class is written (default: as UTF-8). JSON strings escape. */
  chars?: (ranges: Ranges) => Expr;
  /** JSON Schema `pattern` semantics: an alternative without `^`/`$` may be surrounded by anything. */
  search?: boolean;
}

const ANY: Ranges = [0, MAX_CODE_POINT];

/** Most states of a lookahead's rest and body together, before they are built as automata (about a second of work). */
const MAX_LOOKAHEAD_STATES = 4096;

function unsupported(node: { start: number; raw: string }, feature: string): GrammarError {
  return new GrammarError(`regex: ${feature} '${node.raw}' at offset ${node.start} cannot be expressed by a grammar`, {
    kind: 'regex',
    offset: node.start,
  });
}

/** Length and group nesting (limits.ts), before regexpp (recursive per group) sees them. */
function checkLimits(pattern: string): void {
  const at = (offset: number, message: string): GrammarError => new GrammarError(`regex: ${message} at offset ${offset}`, { kind: 'regex', offset });
  if (pattern.length > MAX_REGEX_LENGTH) throw at(MAX_REGEX_LENGTH, `the pattern is longer than ${MAX_REGEX_LENGTH} characters (the limit)`);
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(' && ++depth > MAX_NESTING) throw at(i, `groups nest more than ${MAX_NESTING} levels deep (the limit)`);
    else if (c === ')') depth = Math.max(depth - 1, 0);
  }
}

/** Python's and PCRE's whole-pattern caseless flag, taken at the start only. */
export const LEADING_CASELESS = '(?i)';

/** The pattern's tree, and whether it opened with `(?i)` (parsed as an empty group, which keeps every offset, then dropped). */
function parse(pattern: string): { ast: AST.Pattern; caseless: boolean } {
  checkLimits(pattern);
  const caseless = pattern.startsWith(LEADING_CASELESS);
  const source = caseless ? `(?:)${pattern.slice(LEADING_CASELESS.length)}` : pattern;
  const parser = new RegExpParser({ ecmaVersion: 2025 });
  let ast: AST.Pattern;
  try {
    ast = parser.parsePattern(source, 0, source.length, { unicode: true });
  } catch (unicodeError) {
    try {
      ast = parser.parsePattern(source, 0, source.length, { unicode: false });
    } catch {
      const e = unicodeError as Error & { index?: number };
      const offset = e.index ?? 0;
      // regexpp says 'Invalid group' of Python's inline flags anywhere but a leading (?i).
      const flags = /^\(\?[a-zA-Z-]+\)/.exec(source.slice(offset - 1))?.[0];
      if (flags !== undefined) throw new GrammarError(`regex: the inline flags '${flags}' at offset ${offset - 1}: only a leading (?i) is taken, or a modifier group such as (?i:...) or (?s:...)`, { kind: 'regex', offset: offset - 1 });
      const reason = e.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
      throw new GrammarError(`regex: ${reason} at offset ${offset}`, { kind: 'regex', offset });
    }
  }
  if (caseless) ast.alternatives[0]!.elements.shift();
  return { ast, caseless };
}

export function regexToExpr(pattern: string, options: RegexOptions = {}): Expr {
  const written = options.chars ?? ((ranges: Ranges): Expr => ({ kind: 'class', ranges }));
  const parsed = parse(pattern);
  const ast = parsed.ast;
  // The flags where the lowering is: set for the whole pattern, and for the inside of a modifier group.
  let caseless = parsed.caseless;
  let dotAll = false;
  const chars = (ranges: Ranges): Expr => written(caseless ? caseFolded(ranges) : ranges);

  const classRanges = (node: AST.CharacterClass): number[] => {
    const pairs: number[] = [];
    for (const el of node.elements) {
      if (el.type === 'Character') pairs.push(el.value, el.value);
      else if (el.type === 'CharacterClassRange') pairs.push(el.min.value, el.max.value);
      else if (el.type === 'CharacterSet' && el.kind !== 'property') pairs.push(...escapeSet(el.kind, el.negate, caseless));
      else throw unsupported(el, 'the class element');
    }
    // Caseless, a negated class leaves out every case of what it lists (/[^a]/i does not match A).
    const ranges = caseless ? caseFolded(normalizeRanges(pairs)) : normalizeRanges(pairs);
    return encodableRanges(node.negate ? complementRanges(ranges) : ranges);
  };

  const element = (node: AST.Element): Expr => {
    switch (node.type) {
      case 'Character':
        if (isSurrogate(node.value)) return nothing(`'${node.raw}' at offset ${node.start} is half of a UTF-16 surrogate pair, which no UTF-8 text holds`, { kind: 'regex', offset: node.start });
        return chars([node.value, node.value]);
      case 'CharacterSet':
        if (node.kind === 'any') return written(dotAll ? ANY : DOT);
        if (node.kind === 'property') throw unsupported(node, 'the Unicode property escape');
        return written(escapeSet(node.kind, node.negate, caseless));
      case 'CharacterClass': {
        const ranges = classRanges(node);
        // Only an error if the pattern cannot do without it (passes/empty-language.ts).
        if (ranges.length === 0) return nothing(`the class '${node.raw}' at offset ${node.start} matches no character`, { kind: 'regex', offset: node.start });
        return written(ranges);
      }
      case 'ExpressionCharacterClass':
        throw unsupported(node, 'the set operation');
      case 'Group':
        if (node.modifiers) return withModifiers(node.modifiers, () => ({ kind: 'choice', items: node.alternatives.map(alternative) }));
        return { kind: 'choice', items: node.alternatives.map(alternative) };
      case 'CapturingGroup':
        return { kind: 'choice', items: node.alternatives.map(alternative) };
      case 'Quantifier': {
        const body = element(node.element);
        const max = node.max === Infinity ? -1 : node.max;
        const states = repeatStates(body, node.min, max);
        if (states > MAX_AUTOMATON_STATES) {
          const raw = node.raw.length > 40 ? `${node.raw.slice(0, 20)}…${node.raw.slice(-15)}` : node.raw;
          throw new GrammarError(`regex: the repetition '${raw}' at offset ${node.start} ${beyondExpansionLimit(states)}`, { kind: 'regex', offset: node.start });
        }
        return { kind: 'repeat', body, min: node.min, max };
      }
      case 'Backreference':
        throw unsupported(node, 'the back-reference');
      case 'Assertion':
        if (node.kind === 'lookahead') throw unsupported(node, 'the lookahead inside a group or quantifier (only one in a top-level alternative is)');
        if (node.kind === 'lookbehind') throw unsupported(node, 'the lookbehind');
        if (node.kind === 'word') throw unsupported(node, 'the word boundary');
        throw unsupported(node, `the anchor (only allowed at the start or end of the pattern)`);
    }
  };

  const alternative = (node: AST.Alternative): Expr => ({ kind: 'seq', items: node.elements.map(element) });

  /** The group's inside lowered with its flags added and removed (m changes nothing: anchors stand only at the ends). */
  function withModifiers(modifiers: AST.Modifiers, lower: () => Expr): Expr {
    const saved = [caseless, dotAll];
    if (modifiers.add.ignoreCase) caseless = true;
    if (modifiers.add.dotAll) dotAll = true;
    if (modifiers.remove?.ignoreCase) caseless = false;
    if (modifiers.remove?.dotAll) dotAll = false;
    try {
      return lower();
    } finally {
      [caseless, dotAll] = saved as [boolean, boolean];
    }
  }

  const top = ast.alternatives.map((alt) => {
    const elements = alt.elements.slice();
    let anchoredStart = false;
    let anchoredEnd = false;
    while (elements[0]?.type === 'Assertion' && elements[0].kind === 'start') {
      elements.shift();
      anchoredStart = true;
    }
    while (elements.at(-1)?.type === 'Assertion' && (elements.at(-1) as AST.Assertion).kind === 'end') {
      elements.pop();
      anchoredEnd = true;
    }
    const anything: Expr = { kind: 'repeat', body: chars(ANY), min: 0, max: -1 };
    const lookaheads = elements.filter((e): e is AST.LookaheadAssertion => e.type === 'Assertion' && e.kind === 'lookahead');
    // Split at each lookahead: what follows it is constrained, up to the end of the text.
    const segments: Expr[][] = [[]];
    // Whether each lookahead sits where the text starts, so a `^` opening its body holds (pydantic's Decimal pattern has one).
    const atStart: boolean[] = [];
    for (const e of elements) {
      if (e.type === 'Assertion' && e.kind === 'lookahead') {
        atStart.push((anchoredStart || !options.search) && segments.every((segment) => segment.length === 0));
        segments.push([]);
      } else segments.at(-1)!.push(element(e));
    }
    if (options.search && !anchoredStart) segments[0]!.unshift(anything);
    if (options.search && !anchoredEnd) segments.at(-1)!.push(anything);
    let rest: Expr = { kind: 'seq', items: segments.at(-1)! };
    for (let k = lookaheads.length - 1; k >= 0; k--) {
      rest = { kind: 'seq', items: [...segments[k]!, lookingAhead(lookaheads[k]!, rest, atStart[k]!)] };
    }
    return rest;
  });
  return { kind: 'choice', items: top };

  /** `rest`, the text from the assertion to the end, where it does (or, negated, does not) start with the body. */
  function lookingAhead(node: AST.LookaheadAssertion, rest: Expr, atStart: boolean): Expr {
    // Each of its alternatives starts the rest of the text; one ending in `$` is all of it.
    const body: Expr = {
      kind: 'choice',
      items: node.alternatives.map((alt) => {
        let elements = alt.elements;
        const first = elements[0];
        if (first?.type === 'Assertion' && first.kind === 'start') {
          if (!atStart) throw unsupported(first, 'the anchor (in a lookahead, only where the text starts)');
          elements = elements.slice(1);
        }
        const last = elements.at(-1);
        const toEnd = last?.type === 'Assertion' && last.kind === 'end';
        const items = (toEnd ? elements.slice(0, -1) : elements).map(element);
        return { kind: 'seq', items: toEnd ? items : [...items, { kind: 'repeat', body: chars(ANY), min: 0, max: -1 }] } as Expr;
      }),
    };
    // Built as automata, the rest and the body cost in their size (minimising a long chain is slow: 20 s for `(?=a)[a-z]{1,10000}`).
    if (expandedStates(rest) + expandedStates(body) > MAX_LOOKAHEAD_STATES) {
      throw new GrammarError(`regex: the lookahead '${node.raw}' at offset ${node.start} with what follows it needs more than ${MAX_LOOKAHEAD_STATES} automaton states (the limit for a lookahead)`, { kind: 'regex', offset: node.start });
    }
    try {
      const [text, starts] = [dfaOfExpr(rest), dfaOfExpr(body)];
      return dfaExpr(node.negate ? subtractDfa(text, starts) : intersectDfa(text, starts));
    } catch (error) {
      if (!(error instanceof LanguageTooLarge)) throw error;
      throw new GrammarError(`regex: the lookahead '${node.raw}' at offset ${node.start} with what follows it needs more than ${MAX_LANGUAGE_STATES} automaton states (the limit)`, { kind: 'regex', offset: node.start });
    }
  }
}

/** A grammar whose root is the whole-string regex; refused when it matches no string. */
export function regexGrammar(pattern: string): GrammarIR {
  const grammar: GrammarIR = { rules: [{ name: 'root', body: regexToExpr(pattern), lookahead: null, exactLookahead: false }], root: 0 };
  try {
    checkNonEmpty(grammar);
  } catch (error) {
    // Emptiness found nowhere in particular is the pattern's as a whole (`a(?=b)` as a whole match).
    if (error instanceof GrammarError && error.location.kind === 'none') throw new GrammarError('regex: the pattern matches no string (as a whole match)', { kind: 'regex', offset: 0 });
    throw error;
  }
  return grammar;
}
