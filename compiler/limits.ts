// What a grammar from a client may be at most. Each front end refuses more with a GrammarError
// at the place the limit is crossed, before any recursive work: a schema nested 10,000 levels
// deep would otherwise overflow the stack (a 500), and a huge one would hold a compile worker.
//
// Nesting: 64 levels. Real schemas nest a handful of levels (a pydantic model in a model in a
// list is about 6); 64 leaves a wide margin and keeps every recursive pass far from the stack
// limit, also in worker threads. It is counted in the units of each input: sub-schemas (a
// `$ref` followed while lowering counts as one more), structural-tag nodes, parenthesised
// groups of EBNF and regex. Size: 10,000 sub-schemas or tag nodes is far beyond hand-written
// or generated schemas (OpenAPI specs of large services have a few thousand), while the work
// stays in the seconds. EBNF and regex text is measured in tokens and characters.

/** Deepest nesting of sub-schemas, tag nodes, EBNF groups and regex groups. */
export const MAX_NESTING = 64;

/** Most sub-schemas in one JSON schema, and most nodes in one structural tag. */
export const MAX_NODES = 10_000;

/** Deepest JSON nesting anywhere in a schema or tag (const values, defaults, ...). */
export const MAX_JSON_DEPTH = 256;

/** Most characters in the declared property names of objects that also take other keys
 * (which must differ from them: a trie of the names, character by character). */
export const MAX_NAME_CHARS = 50_000;

/** Most tokens (names, strings, classes, operators) in one EBNF grammar. */
export const MAX_EBNF_TOKENS = 100_000;

/** Longest regular expression, in UTF-16 units. */
export const MAX_REGEX_LENGTH = 10_000;

/** Most rules a front end may generate (objects with many properties and a count bound
 * generate a rule per property and count). */
export const MAX_RULES = 100_000;

/** Most automaton states (before minimisation) of one grammar, with every repetition counted
 * as written out: bounded repeats nested in each other multiply (`((a{100}){100}){100}` is a
 * million), and memory with them; large ones are counted, not built, but describe as much
 * (`a{1000000}`). Estimated from the front end's IR before anything is built
 * (expanded-size.ts), and counted again while building. */
export const MAX_AUTOMATON_STATES = 1_000_000;

/** Most states of an automaton built from a product of languages (a number range with
 * `multipleOf`, keys matched by some patterns and not others, a pattern within a length):
 * a product multiplies states, and each is a mask to compute. */
export const MAX_LANGUAGE_STATES = 50_000;

/** Most states of the remainder automaton of `multipleOf`: a whole step m·10^n (m not a
 * multiple of 10) needs about m·(n + 1) of them, a fractional step a·10^-k about a·(k + 2). */
export const MAX_REMAINDER_STATES = 20_000;
