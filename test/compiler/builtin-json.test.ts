import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Grammar } from '../../compiler/index.js';
import { JSON_GRAMMAR, JSON_OBJECT_GRAMMAR } from '../../compiler/builtin-json.js';
import { accepts } from './helpers.js';
import { isBoundedRun, whitespaceRuns } from './json-layout.js';

const test = suite('builtin-json');

test('the data copies in grammars/ match the built-in text', () => {
  assert.is(readFileSync(new URL('../../grammars/json.ebnf', import.meta.url), 'utf8'), JSON_GRAMMAR);
  assert.is(readFileSync(new URL('../../grammars/json-object.ebnf', import.meta.url), 'utf8'), JSON_OBJECT_GRAMMAR);
});

test('any JSON value: agrees with JSON.parse on random texts, within the whitespace bound', () => {
  const ok = accepts(Grammar.builtinJSON());
  const unbounded = accepts(Grammar.builtinJSON({ maxWhitespace: null }));
  const pretty = fc.tuple(fc.jsonValue(), fc.constantFrom(undefined, 2, '\t', 12)).map(([v, space]) => JSON.stringify(v, null, space));
  const mutated = fc.tuple(pretty, fc.nat(), fc.constantFrom('', ',', '"', '}', ']', ' ', '\r', '0', '-', 'e', '\\', '\u0001')).map(
    ([t, i, c]) => t.slice(0, i % (t.length + 1)) + c + t.slice((i % (t.length + 1)) + (c === '' ? 1 : 0)),
  );
  fc.assert(
    fc.property(fc.oneof(pretty, mutated), (text) => {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      // The output is the value alone; each whitespace run is one space, or a line break then
      // at most 20 spaces or tabs (unbounded: any run, but still none around the value).
      const runs = valid ? whitespaceRuns(text) : null;
      const ends = runs !== null && !runs.trailing && !runs.leading;
      const bounded = ends && runs!.inner.every((r) => isBoundedRun(r));
      return ok(text) === bounded && unbounded(text) === ends;
    }),
    { numRuns: 400 },
  );
  assert.ok(ok('{"a" :[1, -2.5e+3, true, null, "\\u00e9\\n"]\r\n}'));
  assert.not.ok(ok('\r\n{"a": 1}'), 'nothing before the value');
  assert.not.ok(ok('{"a": 1}\t'), 'nothing after the value');
});

test('any JSON object (JSON mode)', () => {
  const ok = accepts(Grammar.builtinJSONObject());
  assert.ok(ok('{}'));
  assert.ok(ok('{"a": {"b": [1, {}]}}'));
  assert.not.ok(ok('[1]'));
  assert.not.ok(ok('"x"'));
});

test.run();
