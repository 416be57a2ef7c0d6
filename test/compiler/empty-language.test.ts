// A grammar whose language is empty is an error naming the place that empties it, in every
// front end: a JSON schema (false, contradictory bounds, a required value that contains
// itself, an enum emptied by its type), EBNF, a regex and a structural tag. An empty part the
// output can do without (an optional property, an anyOf branch) is dropped instead: the
// grammar still compiles, and the model cannot walk into it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarError, type GrammarErrorLocation } from '../../compiler/index.js';
import { accepts, matcherFor } from './helpers.js';

const test = suite('empty-language');

function errorOf(make: () => Grammar): GrammarError {
  try {
    make();
  } catch (error) {
    assert.instance(error, GrammarError, String(error));
    return error as GrammarError;
  }
  throw new assert.Assertion({ message: 'expected a GrammarError', operator: 'throws', expects: 'a GrammarError', actual: 'a grammar' });
}

function refused(schema: unknown, pointer: string, message: RegExp): void {
  const error = errorOf(() => Grammar.fromJSONSchema(schema));
  assert.equal(error.location, { kind: 'pointer', pointer }, error.message);
  assert.match(error.message, message);
  assert.ok(error.message.startsWith(`${pointer || '/'}: `), error.message);
}

function refusedAt(make: () => Grammar, location: GrammarErrorLocation, message: RegExp): void {
  const error = errorOf(make);
  assert.equal(error.location, location, error.message);
  assert.match(error.message, message);
}

const required = (name: string, sub: unknown) => ({ type: 'object', properties: { [name]: sub }, required: [name] });

test('the reported cases: false, minimum > maximum, a schema that requires itself, an enum emptied by type', () => {
  refused(false, '', /the schema is false/);
  refused(required('a', { type: 'integer', minimum: 5, maximum: 3 }), '/properties/a', /'minimum' \(5\) is greater than 'maximum' \(3\)/);
  refused({ $ref: '#' }, '', /contain itself again at every level/);
  refused(required('a', { $ref: '#' }), '/properties/a', /contain itself again at every level/);
  refused({ type: 'string', enum: [1, 2] }, '', /none of the 'enum' values satisfies 'type'/);
});

test('local contradictions name the sub-schema and its keywords', () => {
  refused(required('n', { type: 'number', exclusiveMinimum: 1, maximum: 1 }), '/properties/n', /'exclusiveMinimum' \(1\) and 'maximum' \(1\) leave no value/);
  refused({ type: 'integer', minimum: 1.2, maximum: 1.8 }, '', /no integer lies between 'minimum' \(1.2\) and 'maximum' \(1.8\)/);
  refused({ type: 'integer', exclusiveMinimum: 3, exclusiveMaximum: 4 }, '', /no integer lies between/);
  refused({ type: 'string', minLength: 5, maxLength: 2 }, '', /'minLength' \(5\) is greater than 'maxLength' \(2\)/);
  refused({ type: 'array', items: true, minItems: 3, maxItems: 1 }, '', /'minItems' \(3\) is greater than 'maxItems' \(1\)/);
  refused({ type: 'array', prefixItems: [{ type: 'integer' }], minItems: 2 }, '', /at most 1 item is allowed/);
  refused({ type: 'object', additionalProperties: true, minProperties: 3, maxProperties: 1 }, '', /'minProperties' \(3\) is greater than 'maxProperties' \(1\)/);
  refused({ type: 'object', properties: { a: {}, b: {} }, required: ['a', 'b'], maxProperties: 1 }, '', /2 properties are required, but 'maxProperties' is 1/);
  refused({ type: 'object', properties: { a: {} }, minProperties: 2 }, '', /only 1 property is allowed/);
  refused(required('a', false), '/properties/a', /the schema is false/);
  refused({ type: 'object', properties: {}, required: ['z'] }, '', /'z' is required, but it is not among 'properties'/);
  refused(required('k', { type: 'integer', const: 'x' }), '/properties/k', /the 'const' value does not satisfy 'type'/);
  refused({ enum: [] }, '', /'enum' is empty/);
  // Both keywords hold: a const outside the enum leaves nothing (it used to pass alone).
  refused({ const: 'a', enum: ['b'] }, '', /the 'const' value does not satisfy 'enum'/);
  refused(required('a', { const: 'x', enum: ['y'] }), '/properties/a', /the 'const' value does not satisfy 'enum'/);
  refused({ allOf: [{ enum: [1, 2] }, { const: 3 }] }, '', /none of the 'enum' values satisfies 'const'/);
  refused(required('p', { type: 'string', pattern: '^[]$' }), '/properties/p', /'pattern' matches no string/);
  refused({ type: 'array', items: false, prefixItems: [false], minItems: 1 }, '/prefixItems/0', /the schema is false/);
  refused({ type: 'array', items: { type: 'string', minLength: 2, maxLength: 1 }, minItems: 1 }, '/items', /'minLength' \(2\) is greater/);
  // Every branch empty: the first branch's cause.
  refused({ anyOf: [false, { type: 'string', minLength: 3, maxLength: 1 }] }, '/anyOf/0', /the schema is false/);
  refused({ type: ['string', 'integer'], minLength: 3, maxLength: 1, minimum: 2, maximum: 1 }, '', /'minLength' \(3\) is greater/);
});

test('a const beside an enum that holds it allows that value alone', () => {
  const accept = accepts(Grammar.fromJSONSchema({ const: 'a', enum: ['a', 'b'] }));
  assert.ok(accept('"a"'));
  assert.not.ok(accept('"b"'));
});

test('the innermost place is named, through nesting and $refs', () => {
  refused(required('a', required('b', { type: 'number', minimum: 2, maximum: 1 })), '/properties/a/properties/b', /'minimum' \(2\) is greater/);
  refused({ ...required('a', { $ref: '#/$defs/bad' }), $defs: { bad: { type: 'integer', minimum: 1, maximum: 0 } } }, '/$defs/bad', /'minimum' \(1\) is greater/);
  // A list of lists that must not be empty, at every level.
  refused({ $defs: { t: { type: 'array', items: { $ref: '#/$defs/t' }, minItems: 1 } }, $ref: '#/$defs/t' }, '/$defs/t/items', /contain itself again/);
});

test('optional empty parts are dropped, not errors, and the matcher cannot enter them', () => {
  const loop = { type: 'object', properties: { x: { $ref: '#/$defs/loop' } }, required: ['x'] };
  const schemas = [
    { type: 'object', properties: { a: { $ref: '#/$defs/loop' }, b: { type: 'integer' } }, $defs: { loop } },
    { type: 'object', properties: { a: { type: 'integer', minimum: 5, maximum: 3 }, b: { type: 'integer' } } },
    { type: 'object', properties: { a: false, b: { type: 'integer' } } },
  ];
  for (const schema of schemas) {
    const ok = accepts(Grammar.fromJSONSchema(schema));
    assert.ok(ok('{}') && ok('{"b": 1}'), JSON.stringify(schema));
    const m = matcherFor(Grammar.fromJSONSchema(schema));
    assert.not.ok(m.acceptString('{"a"'), `a dead end is not offered: ${JSON.stringify(schema)}`);
  }
  const branch = accepts(Grammar.fromJSONSchema({ anyOf: [false, { type: 'string', minLength: 3, maxLength: 1 }, { type: 'null' }] }));
  assert.ok(branch('null'));
  assert.not.ok(matcherFor(Grammar.fromJSONSchema({ anyOf: [{ type: 'string', minLength: 3, maxLength: 1 }, { type: 'null' }] })).acceptString('"'));
});

test('EBNF: the rule that can never finish, or the empty class, by line and column', () => {
  refusedAt(() => Grammar.fromEBNF('root ::= "x" a\na ::= "(" a ")"'), { kind: 'text', line: 2, column: 1 }, /the rule 'a' can never finish: every way through it needs 'a' again/);
  refusedAt(() => Grammar.fromEBNF('root ::= a\na ::= b "x"\nb ::= a | b'), { kind: 'text', line: 3, column: 1 }, /the rule 'b' can never finish: every way through it needs 'a' again/);
  refusedAt(() => Grammar.fromEBNF('root ::= "x" []'), { kind: 'text', line: 1, column: 14 }, /the character class \[\] matches no character/);
  assert.ok(accepts(Grammar.fromEBNF('root ::= "x" | "y" a\na ::= "(" a ")"'))('x'), 'an empty alternative alone is fine');
});

test('regex: an empty class the pattern cannot avoid, by offset', () => {
  refusedAt(() => Grammar.fromRegex('ab[]c'), { kind: 'regex', offset: 2 }, /the class '\[\]' at offset 2 matches no character/);
  assert.ok(accepts(Grammar.fromRegex('ab([])?c'))('abc'));
});

test('half of a UTF-16 surrogate pair matches no UTF-8 text: refused, never U+FFFD; a whole pair is its character', () => {
  refusedAt(() => Grammar.fromEBNF('root ::= "\\ud800"'), { kind: 'text', line: 1, column: 11 }, /'\\ud800' is half of a UTF-16 surrogate pair/);
  refusedAt(() => Grammar.fromEBNF('root ::= [\\ud800-\\udfff]'), { kind: 'text', line: 1, column: 11 }, /half of a UTF-16 surrogate pair/);
  refusedAt(() => Grammar.fromRegex('\\ud800+'), { kind: 'regex', offset: 0 }, /'\\ud800' at offset 0 is half of a UTF-16 surrogate pair/);
  refusedAt(() => Grammar.fromRegex('x[\\ud800-\\udfff]'), { kind: 'regex', offset: 1 }, /matches no character/);
  refused({ type: 'string', pattern: '^[\\ud800-\\udfff]$' }, '', /'pattern' matches no string/);
  assert.ok(accepts(Grammar.fromRegex('a|\\ud800'))('a'), 'an alternative the pattern can do without is dropped');
  assert.ok(accepts(Grammar.fromEBNF('root ::= "\\ud83d\\ude00" [\\ud83d\\ude00-\\ud83d\\ude4f]'))('😀😃'));
  assert.ok(accepts(Grammar.fromRegex('\\ud83d\\ude00'))('😀'));
  assert.ok(accepts(Grammar.fromEBNF('root ::= [\\u0000-\\uffff]+'))('aé\uffff'), 'a class over the whole BMP is the BMP less the surrogates');
  const replacement = accepts(Grammar.fromRegex('[^a]'));
  assert.ok(replacement('\ufffd') && !replacement('a'));
});

test('structural tags: an empty embedded schema, grammar or regex is refused where it sits', () => {
  const top = (format: unknown) => ({ type: 'structural_tag', format });
  const at = (format: unknown, pointer: string, message: RegExp) => {
    const error = errorOf(() => Grammar.fromStructuralTag(top(format)));
    assert.equal(error.location, { kind: 'pointer', pointer }, error.message);
    assert.match(error.message, message);
  };
  at({ type: 'sequence', elements: [{ type: 'const_string', value: 'a' }, { type: 'json_schema', json_schema: false }] }, '/format/elements/1/json_schema', /the schema is false/);
  // Even inside an optional tag: its trigger would lead into a dead end.
  const call = { begin: '<f>', content: { type: 'json_schema', json_schema: required('a', { $ref: '#' }) }, end: '</f>' };
  at({ type: 'triggered_tags', triggers: ['<f>'], tags: [call] }, '/format/tags/0/content/json_schema/properties/a', /contain itself again/);
  at({ type: 'regex', pattern: 'a[]' }, '/format/pattern', /matches no character/);
  at({ type: 'grammar', grammar: 'root ::= root' }, '/format/grammar', /the rule 'root' can never finish/);
});

test('an IR grammar with an empty root is refused too', () => {
  const error = errorOf(() => Grammar.fromIR({ rules: [{ name: 'root', body: { kind: 'ref', rule: 0 }, lookahead: null, exactLookahead: false }], root: 0 }));
  assert.match(error.message, /recursion with no way out/);
});

test.run();
