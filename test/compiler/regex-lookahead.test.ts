// Lookaheads in a top-level alternative, against JavaScript's RegExp as the oracle: as a whole
// match (Grammar.fromRegex) and as JSON Schema's search (`pattern`, inside a JSON string). zod
// writes its email pattern with two; OpenAI's SDKs send it beside format: email.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Grammar } from '../../compiler/index.js';
import { accepts, regex, schema } from './helpers.js';

const test = suite('regex lookahead');

const ZOD_EMAIL = "^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$";

/** Both readings agree with JavaScript on every candidate; each pattern has matches and misses among them. */
function agrees(pattern: string, extra: string[], unit = 'ab.@-x1\n'): void {
  // A whole match the lookahead rules out entirely (a(?=b)) is refused as empty; JavaScript must agree on every candidate.
  let whole: (text: string) => boolean;
  try {
    whole = regex(pattern);
  } catch (error) {
    assert.match((error as Error).message, /the pattern matches no string/, `${pattern}: ${(error as Error).message}`);
    whole = () => false;
  }
  const searched = schema({ type: 'string', pattern });
  const js = new RegExp(pattern, 'u');
  const jsWhole = new RegExp(`^(?:${pattern})$`, 'u');
  const candidates = [...extra, ...fc.sample(fc.string({ unit: fc.constantFrom(...unit), maxLength: 9 }), { numRuns: 400, seed: pattern.length })];
  let hits = 0;
  for (const text of candidates) {
    // A whole match: the pattern's own anchors aside, JavaScript reads the pattern wrapped as ^(?:…)$.
    assert.is(whole(text), jsWhole.test(text), `${pattern} whole on ${JSON.stringify(text)}`);
    assert.is(searched(JSON.stringify(text)), js.test(text), `${pattern} searched in ${JSON.stringify(text)}`);
    if (js.test(text)) hits++;
  }
  assert.ok(hits >= 2 && hits <= candidates.length - 2, `${pattern}: ${hits} of ${candidates.length} match`);
}

test("zod's email pattern: no leading dot, no two dots in a row", () => {
  agrees(ZOD_EMAIL, ['a@b.co', '.a@b.co', 'a..b@c.de', 'a.b@c.de', "o'neil+x@mail.example.org", 'a@b.c', 'a@-b.co', 'a_@b.co', 'a.@b.co'], 'ab.@-1');
});

test("pydantic's Decimal pattern (a `^` opening the lookahead's body, where the text starts) and a password-style pattern", () => {
  agrees('^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$', ['1', '-1.5', '.', '-', '+.', '007', '1.2.3', ''], '+-.01');
  agrees('^(?=.*[A-Z])(?=.*\\d).{3,5}$', ['aB1', 'ab1', 'AB', 'A1xyz', 'A1xyzw'], 'aB1');
  assert.throws(() => Grammar.fromRegex('a(?=^b)'), /the anchor \(in a lookahead, only where the text starts\) '\^' at offset 4/);
});

test('positive and negative lookaheads at the start, the middle and the end; searched and anchored', () => {
  agrees('^(?=.*\\d)[a-z0-9]{3,5}$', ['abc', 'ab1', '1111', 'abcdef1'], 'ab1');
  agrees('a(?!b)', ['a', 'ab', 'ac', 'bab', 'aab'], 'abc');
  agrees('a(?=b)', ['a', 'ab', 'ba', 'abb'], 'abc');
  agrees('^x(?!y)\\w+(?=z$)', ['xaz', 'xyz', 'xaaz', 'xa'], 'xyza');
  agrees('(?!a)(?!b)\\w', ['a', 'c', 'ac', 'cc'], 'abc');
  agrees('^(?!.*\\.\\.).+$|^$', ['', 'a..b', 'a.b', '\n'], 'a.\n');
});

test('a lookahead inside a group or quantifier stays an error naming it; a whole match a lookahead rules out is empty', () => {
  assert.throws(() => Grammar.fromRegex('(?:a(?=b))b'), /the lookahead inside a group or quantifier .*'\(\?=b\)' at offset 4/);
  assert.throws(() => Grammar.fromRegex('(?:(?!a)b)*'), /the lookahead inside a group or quantifier/);
  assert.throws(() => Grammar.fromRegex('a(?=b)'), /regex: the pattern matches no string \(as a whole match\)/);
  assert.ok(accepts(Grammar.fromRegex('a(?=b)b'))('ab'));
  // A lookahead before a long counted run is refused at once by its size (building it took 20 s and more, then the state limit).
  assert.throws(() => Grammar.fromRegex('(?=a)[a-z]{1,10000}'), /the lookahead '\(\?=a\)' at offset 0 with what follows it needs more than 4096 automaton states/);
});

test.run();
