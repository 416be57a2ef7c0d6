// String schemas: length limits, patterns and formats of every part. One kind of constraint
// alone is written directly; several (a pattern and a length, two patterns from allOf, a
// format and a pattern) are intersected as automata over the string's characters, each in
// its one canonical spelling (json-chars.ts), within the state limit.
import { MAX_CODE_POINT } from '../charset.js';
import { GrammarError } from '../errors.js';
import { beyondExpansionLimit, repeatStates } from '../expanded-size.js';
import { cls, type Expr, lit, type Ranges, rep, seq } from '../ir.js';
import { MAX_AUTOMATON_STATES, MAX_LANGUAGE_STATES } from '../limits.js';
import { type ByteDfa, dfaExpr, dfaOfExpr, LanguageTooLarge } from '../dfa/byte-dfa.js';
import { productDfa } from '../dfa/product.js';
import { repeatDfa } from '../dfa/repeat.js';
import { lengthBoundedDfa, unitCountedExpr } from '../dfa/length-bounded.js';
import { UNROLL_LIMIT } from '../passes/expand-repeats.js';
import { exprIsEmpty } from '../passes/productive.js';
import { regexToExpr } from '../regex/regex.js';
import { FORMATS } from './formats.js';
import { JSON_CHAR_UNIT, JSON_STRING_BODY, jsonChars } from './json-chars.js';
import { emptyAt, type Lowering } from './lowering.js';
import { isString, keywordValues, type Part, tightest } from './parts.js';

export interface StringConstraints {
  minLength: number;
  /** -1: unbounded. */
  maxLength: number;
  patterns: { value: string; pointer: string }[];
  formats: { value: string; pointer: string }[];
  /** Where a length limit is, for errors. */
  lengthPointer: string | null;
}

export function stringConstraints(parts: Part[]): StringConstraints {
  const lengths = [...keywordValues(parts, 'minLength', (v): v is number => typeof v === 'number'), ...keywordValues(parts, 'maxLength', (v): v is number => typeof v === 'number')];
  // Only string formats constrain a string (a number's format, or one that only annotates, does not).
  const formats = keywordValues(parts, 'format', isString).filter((f, i, all) => Object.hasOwn(FORMATS, f.value) && all.findIndex((g) => g.value === f.value) === i);
  return {
    minLength: tightest(parts, 'minLength', true) ?? 0,
    maxLength: tightest(parts, 'maxLength', false) ?? -1,
    patterns: keywordValues(parts, 'pattern', isString),
    formats,
    lengthPointer: lengths[0]?.pointer ?? null,
  };
}

const ANY: Ranges = [0, MAX_CODE_POINT];

/** How the characters of a string are written: JSON's canonical escapes, or raw (XML styles);
 * `unit()`: one character in any spelling, for a length limit alone. */
export interface Spelling {
  chars: (ranges: Ranges) => Expr;
  unit: () => Expr;
}
export const JSON_SPELLING: Spelling = { chars: jsonChars, unit: () => JSON_CHAR_UNIT };
export const RAW_SPELLING: Spelling = { chars: cls, unit: () => cls(ANY) };

/** A JSON string (with its quotes) meeting the parts' constraints, or empty with the reason. */
export function lowerString(ctx: Lowering, parts: Part[], pointer: string): Expr {
  const quote = lit('"');
  const content = constrainedContent(stringConstraints(parts), { ...JSON_SPELLING, unit: () => ctx.sharedRule('json_char', () => JSON_CHAR_UNIT) }, pointer);
  if (content === null) return ctx.sharedRule('basic_string', () => seq(quote, JSON_STRING_BODY, quote));
  // An empty string language stands alone, so its reason is the one reported.
  return content.kind === 'choice' && content.items.length === 0 ? content : seq(quote, content, quote);
}

/**
 * The characters of a string meeting the constraints, or null when there are none. A length
 * limit alone counts characters in any spelling; a pattern or format alone is its regex;
 * several kinds are one automaton. Empty, with the reason, when no string meets them.
 */
export function constrainedContent(c: StringConstraints, spelling: Spelling, pointer: string): Expr | null {
  const hasLength = c.minLength > 0 || c.maxLength !== -1;
  if (c.maxLength !== -1 && c.maxLength < c.minLength) return emptyAt(pointer, `'minLength' (${c.minLength}) is greater than 'maxLength' (${c.maxLength})`);
  const kinds = c.patterns.length + c.formats.length + (hasLength ? 1 : 0);
  if (kinds === 0) return null;
  const counted = kinds > 1 && c.maxLength > UNROLL_LIMIT;
  if (hasLength && (kinds === 1 || counted)) {
    // Counted by the matcher either way, measured as if written out (expanded-size.ts).
    const states = repeatStates(spelling.unit(), c.minLength, c.maxLength);
    if (states > MAX_AUTOMATON_STATES) throw GrammarError.at(c.lengthPointer ?? pointer, `${describe(c)} ${beyondExpansionLimit(states)}`);
  }
  if (kinds === 1 && hasLength) return rep(spelling.unit(), c.minLength, c.maxLength);
  const content = kinds === 1 ? singleContent(c, spelling) : counted ? countedContent(c, spelling) : dfaExpr(contentDfa(c, spelling));
  if (!exprIsEmpty(content)) return content;
  return emptyAt(pointer, kinds === 1 ? `'${c.patterns.length > 0 ? 'pattern' : 'format'}' matches no string` : `${describe(c)} leave no string`);
}

/** The characters of a string meeting exactly one pattern or one format. */
function singleContent(c: StringConstraints, spelling: Spelling): Expr {
  if (c.patterns.length === 1) return patternContent(c.patterns[0]!.value, c.patterns[0]!.pointer, spelling);
  return regexToExpr(FORMATS[c.formats[0]!.value]!, { chars: spelling.chars });
}

/** The characters of a string meeting every constraint, as one automaton. */
export function contentDfa(c: StringConstraints, spelling: Spelling): ByteDfa {
  return withinStateLimit(c, () => {
    const languages = patternLanguages(c, spelling);
    const unit = dfaOfExpr(spelling.chars(ANY));
    // A maximum: counted beside the other languages' automaton directly (a product with a
    // counter of thousands of states took seconds to minimise).
    if (c.maxLength !== -1) return lengthBoundedDfa(languages.length === 0 ? repeatDfa(unit, 0, -1) : intersection(languages), unit, c.minLength, c.maxLength);
    if (c.minLength > 0 || languages.length === 0) languages.push(repeatDfa(unit, c.minLength, -1));
    return intersection(languages);
  });
}

/**
 * The characters of a string meeting its patterns and formats and its minLength, as one
 * automaton whose maxLength the matcher counts (ir.ts UnitCount): built into the automaton,
 * a maximum multiplies its states by every count (a URI of 2,083 characters was 41,550
 * states; past 2,503, more than the limit).
 */
function countedContent(c: StringConstraints, spelling: Spelling): Expr {
  return withinStateLimit(c, () => unitCountedExpr(intersection(patternLanguages(c, spelling)), dfaOfExpr(spelling.chars(ANY)), c.minLength, c.maxLength));
}

/** The automata of the patterns and formats. */
function patternLanguages(c: StringConstraints, spelling: Spelling): ByteDfa[] {
  return [
    ...c.patterns.map((p) => dfaOfExpr(patternContent(p.value, p.pointer, spelling))),
    ...c.formats.map((f) => dfaOfExpr(regexToExpr(FORMATS[f.value]!, { chars: spelling.chars }))),
  ];
}

function intersection(languages: ByteDfa[]): ByteDfa {
  return languages.length === 1 ? languages[0]! : productDfa(languages, (bits) => bits === (1 << languages.length) - 1);
}

/** `build()`, with a language past the state limit reported at the constraints' keyword. */
function withinStateLimit<T>(c: StringConstraints, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!(error instanceof LanguageTooLarge)) throw error;
    const at = c.patterns[0]?.pointer ?? c.formats[0]?.pointer ?? c.lengthPointer ?? '';
    throw GrammarError.at(at, `${describe(c)} together need more than ${MAX_LANGUAGE_STATES} automaton states (the limit)`);
  }
}

/** The characters of a string matching a JSON Schema pattern (a search, not a whole match). */
export function patternContent(pattern: string, pointer: string, spelling: Spelling): Expr {
  try {
    return regexToExpr(pattern, { chars: spelling.chars, search: true });
  } catch (error) {
    if (error instanceof GrammarError) throw GrammarError.at(pointer, error.message);
    throw error;
  }
}

function describe(c: StringConstraints): string {
  const parts = [...c.patterns.map((p) => `'pattern' ${JSON.stringify(p.value)}`), ...c.formats.map((f) => `'format' ${JSON.stringify(f.value)}`)];
  if (c.minLength > 0) parts.push(`'minLength' ${c.minLength}`);
  if (c.maxLength !== -1) parts.push(`'maxLength' ${c.maxLength}`);
  return parts.join(', ');
}
