// Automaton leaves (a string under a pattern and a length, multipleOf integers, key regions)
// are inlined into the rules that use them, often more than once (an array's first item and
// the repeated ones, two properties of one schema). The parent rule's automaton is then
// minimised with the leaf's states in it; a defect there once refused ["x-1234567890"] under
// maxLength 12 (fsm/minimize.ts: classes split in one step were looked up before they had
// their new ids). Values at, below and past each bound, under every whitespace setting.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, type JsonSchemaOptions } from '../../compiler/index.js';
import { schema } from './helpers.js';

const test = suite('inlined-leaves');

const WHITESPACE: [string, JsonSchemaOptions][] = [
  ['maxWhitespace 0', { maxWhitespace: 0 }],
  ['maxWhitespace 1', { maxWhitespace: 1 }],
  ['maxWhitespace 5', { maxWhitespace: 5 }],
  ['maxWhitespace 20', { maxWhitespace: 20 }],
  ['maxWhitespace null', { maxWhitespace: null }],
  ['maxWhitespaceCount 2', { maxWhitespaceCount: 2 }],
  ['anyWhitespace false', { anyWhitespace: false }],
];

/** JSON text as each setting writes it: compact fits every setting but the fixed separators
 * of anyWhitespace false. */
function text(value: unknown, options: JsonSchemaOptions): string {
  const compact = JSON.stringify(value);
  return options.anyWhitespace === false ? JSON.stringify(value, null, 1).replace(/\n */g, (m, at: number, s: string) => (s[at - 1] === '[' || s[at - 1] === '{' || s[at + m.length] === ']' || s[at + m.length] === '}' ? '' : ' ')) : compact;
}

/** Accepted and refused values, each as the only item, the first, a repeated and a middle one. */
function inArrays(ok: (t: string) => boolean, options: JsonSchemaOptions, valid: unknown[], invalid: unknown[], fill: unknown, label: string): void {
  const places = (v: unknown): unknown[][] => [[v], [v, fill], [fill, v], [fill, v, fill], [v, v]];
  for (const v of valid) for (const arr of places(v)) assert.ok(ok(text(arr, options)), `${label}: ${text(arr, options)} is valid`);
  for (const v of invalid) for (const arr of places(v)) assert.not.ok(ok(text(arr, options)), `${label}: ${text(arr, options)} is refused`);
}

test('the whitespace helper writes what anyWhitespace false requires', () => {
  assert.is(text(['a', 'b'], { anyWhitespace: false }), '["a", "b"]');
  assert.is(text({ a: [1, 2] }, { anyWhitespace: false }), '{"a": [1, 2]}');
});

test('a string under a pattern and maxLength 12, as array items, under every whitespace setting', () => {
  const s = { type: 'array', items: { type: 'string', pattern: '^[a-z]+-\\d+$', maxLength: 12 } };
  for (const [label, options] of WHITESPACE) {
    const ok = schema(s, options);
    // 11, 12 and 13 characters; the pattern alone refuses the others.
    inArrays(ok, options, ['x-123456789', 'x-1234567890', 'abcdefghij-1', 'a-1'], ['x-12345678901', 'abcdefghijk-1', 'x-', 'x1'], 'ab-1', label);
  }
});

test('the smallest case found: a pattern a* within maxLength 3', () => {
  for (const [label, options] of WHITESPACE) {
    const ok = schema({ type: 'array', items: { type: 'string', pattern: '^a*$', maxLength: 3 } }, options);
    inArrays(ok, options, ['', 'a', 'aa', 'aaa'], ['aaaa', 'b'], 'a', label);
  }
});

test('one leaf used twice in one rule, and nested: properties sharing a schema, arrays of arrays and of objects', () => {
  const item = { type: 'string', pattern: '^[a-z]+-\\d+$', maxLength: 12 };
  for (const [label, options] of WHITESPACE) {
    const pair = schema({ type: 'object', properties: { a: item, b: item }, required: ['a', 'b'], additionalProperties: false }, options);
    for (const [a, b] of [['x-1234567890', 'x-1234567890'], ['x-1', 'x-1234567890'], ['x-1234567890', 'x-1']]) assert.ok(pair(text({ a, b }, options)), `${label}: pair ${a} ${b}`);
    for (const [a, b] of [['x-12345678901', 'x-1'], ['x-1', 'x-12345678901']]) assert.not.ok(pair(text({ a, b }, options)), `${label}: pair ${a} ${b} refused`);
    const nested = schema({ type: 'array', items: { type: 'array', items: item } }, options);
    inArrays(nested, options, [['x-1234567890'], ['x-1', 'x-1234567890'], []], [['x-12345678901']], ['ab-1'], `${label}, nested arrays`);
    const objects = schema({ type: 'array', items: { type: 'object', properties: { k: item, v: { type: 'array', items: item } }, required: ['k'], additionalProperties: false } }, options);
    inArrays(objects, options, [{ k: 'x-1234567890' }, { k: 'x-1', v: ['x-1234567890', 'x-1234567890'] }], [{ k: 'x-12345678901' }, { k: 'x-1', v: ['x-1', 'x-12345678901'] }], { k: 'a-1' }, `${label}, objects`);
  }
});

test('multipleOf integers and decimals as array items: bounds and remainders', () => {
  for (const [label, options] of WHITESPACE) {
    // Small enough to inline (the inlining limit is 64 edges): unbounded 3, 5 in 0..100, 0.5 in 0..10.
    const three = schema({ type: 'array', items: { type: 'integer', multipleOf: 3 } }, options);
    inArrays(three, options, [0, 3, -3, 99, 999999999999, -123456789012], [1, -2, 100, 1000000000000], 6, `${label}, 3`);
    const five = schema({ type: 'array', items: { type: 'integer', multipleOf: 5, minimum: 0, maximum: 100 } }, options);
    inArrays(five, options, [0, 5, 95, 100], [-5, 105, 99, 1, 1000], 10, `${label}, 5 in 0..100`);
    const half = schema({ type: 'array', items: { type: 'number', multipleOf: 0.5, minimum: 0, maximum: 10 } }, options);
    inArrays(half, options, [0, 0.5, 9.5, 10, 3], [10.5, 0.25, -0.5, 11], 1.5, `${label}, 0.5 in 0..10`);
    // Larger leaves stay rules of their own.
    const ok = schema({ type: 'array', items: { type: 'integer', multipleOf: 7, minimum: -21, maximum: 700 } }, options);
    inArrays(ok, options, [-21, -14, 0, 7, 693, 700, 98], [-28, 707, 701, 8, 1], 14, label);
    const unbounded = schema({ type: 'array', items: { type: 'integer', multipleOf: 13 } }, options);
    inArrays(unbounded, options, [0, 13, -13, 1300000000013, 9999999999990], [1, -14, 1300000000014], 26, `${label}, unbounded`);
  }
});

test('key regions: propertyNames under a pattern and a length, patternProperties (a key matching two patterns takes both schemas), in arrays of objects', () => {
  for (const [label, options] of WHITESPACE) {
    const names = schema({ type: 'array', items: { type: 'object', propertyNames: { pattern: '^[a-z]+\\d$', maxLength: 6 }, additionalProperties: { type: 'integer' } } }, options);
    inArrays(names, options, [{ abcde1: 1 }, { a1: 1, abcde1: 2 }, {}], [{ abcdef1: 1 }, { a1: 1, abcdef1: 2 }, { abc: 1 }], { b2: 0 }, `${label}, propertyNames`);
    const patterns = schema(
      { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } }, patternProperties: { '^x_': { type: 'integer' }, '_n$': { type: 'string', maxLength: 2 } }, additionalProperties: false } },
      options,
    );
    inArrays(patterns, options, [{ id: 1, x_a: 2 }, { b_n: 'ab' }], [{ x_n: 3 }, { x_n: 'ab' }, { b_n: 'abc' }, { zz: 1 }], { id: 0 }, `${label}, patternProperties`);
  }
});

test('strings under minLength and maxLength without a pattern, as array items', () => {
  for (const [label, options] of WHITESPACE) {
    const ok = schema({ type: 'array', items: { type: 'string', minLength: 2, maxLength: 12 } }, options);
    inArrays(ok, options, ['ab', 'abcdefghijkl', 'x-1234567890', 'é€😀'], ['a', 'abcdefghijklm', ''], 'zz', label);
  }
});

test('automaton leaves are inlined: no rule of their own is left for the matcher to predict', () => {
  const compiled = new GrammarCompiler().compile(Grammar.fromJSONSchema({ type: 'array', items: { type: 'string', pattern: '^[a-z]+-\\d+$', maxLength: 12 } }, { maxWhitespace: 0 }));
  assert.equal(compiled.fsm.ruleNames, ['root']);
});

test.run();
