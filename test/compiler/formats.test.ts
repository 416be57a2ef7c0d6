// String formats: accept and reject lists per format (the RFC choices of formats.ts), the
// grammar equal to the format's regex on many candidates, and never more than ajv-formats'
// full mode accepts, for the formats it has, but where the RFC allows more and xgrammar agrees
// (BEYOND_AJV).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { FORMATS } from '../../compiler/json-schema/formats.js';
import { schema } from './helpers.js';

const test = suite('formats');
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false }));

const CASES: Record<string, [string[], string[]]> = {
  date: [['2024-02-29', '2000-02-29', '1999-12-31'], ['2023-02-29', '1900-02-29', '2024-13-01', '2024-1-1', '2024-04-31']],
  time: [
    ['10:00:00Z', '23:59:59.123+05:30', '00:00:00z', '23:59:60Z', '22:59:60-01:00', '00:59:60+01:00', '23:59:60.5+00:00', '10:00:00.123456789Z'],
    // A fraction of 10 digits: the RFC allows it; the grammar bounds the run, or a model wrote digits until max_tokens.
    ['10:00:00.1234567890Z', '24:00:00Z', '10:00:00', '10:00:00+0530', '10:00:00+05', '12:00:60Z', '23:59:60+01:00', '23:59:60+05:30', '10:60:00Z'],
  ],
  'date-time': [['2024-02-29T10:00:00Z', '2024-01-01t00:00:00.5-08:00', '2016-12-31T23:59:60Z', '2024-01-01T00:00:00.999999999Z'], ['2024-01-01T00:00:00.0000000001Z', '2024-01-01 10:00:00Z', '2024-01-01T10:00:00', '2023-02-29T10:00:00Z']],
  // A component of 10 digits: the RFC allows it; the grammar bounds the run, or a model wrote digits until max_tokens.
  duration: [['P1Y', 'P1Y2M3DT4H5M6S', 'PT1M', 'P2W', 'P1M2D', 'PT1H30M', 'P0D', 'P999999999D', 'PT123456789S'], ['P', 'PT', 'P1Y1D', 'PT1H1S', 'P1W2D', '1Y', 'P1.5Y', 'P1D2M', 'P1234567890D', 'PT1H1234567890M']],
  email: [
    ['a@b.co', 'first.last+tag@sub.example.org', "x!#$%&'*/=?^_`{|}~-@a-b.c", '"quoted"@example.com', '"a b"@x.org', '"a\\"b\\\\c"@x.org', '"a..b"@x.org'],
    ['a@b', 'a..b@c.de', '.a@b.co', 'a@-b.co', 'a@[127.0.0.1]', 'é@b.co', '"a"b"@x.org', '"a\\"@x.org', '"open@x.org', '"tab\t"@x.org', '"é"@x.org'],
  ],
  'idn-email': [['é@b.co', '用户@example.com', 'a.ü@b-c.de', '"x"@b.co', '"é b"@b.co'], ['a@b', 'a@xn--bcher-kva.ch', 'a@ex--ample.com', '"x@b.co']],
  hostname: [['example.com', 'a', 'a-b.c0', 'xn--bcher-kva.ch', `${'a'.repeat(63)}.com`, Array(16).fill('abcdefghijklmn').join('.')], ['-a.com', 'a-.com', 'a..b', '', `${'a'.repeat(64)}.com`, 'é.com', 'a_b.com', 'a.', 'a-b.c0.', '.']],
  'idn-hostname': [['example.com', 'a-b.c0', 'ab-cd.org'], ['xn--bcher-kva.ch', 'ab--cd.org', '-a.com', 'a_b.com', 'a.']],
  ipv4: [['0.0.0.0', '192.168.1.255', '255.255.255.255'], ['01.2.3.4', '256.1.1.1', '1.2.3', '1.2.3.04']],
  ipv6: [['::', '::1', '2001:db8::8a2e:370:7334', '::ffff:192.0.2.1', '1:2:3:4:5:6:7:8'], ['1::2::3', 'fe80::1%1', ':::', '12345::']],
  uuid: [['123e4567-e89b-12d3-a456-426614174000', 'urn:uuid:123E4567-E89B-12D3-A456-426614174000'], ['123e4567-e89b-12d3-a456-42661417400', '123e4567e89b12d3a456426614174000']],
  uri: [['https://example.com/a?b=c#d', 'urn:isbn:0451450523', 'mailto:a@b.co', 'file:///etc/hosts', 'a:', 'abc:', 'abc:?q#f'], ['no scheme', '//example.com', '/path', 'http://a b', 'é:x', 'http://é.com', ':', '1a:']],
  'uri-reference': [['https://example.com', '/path/to?x#y', '../a/b', '', '#frag', '//host/p', 'a/b:c'], ['a b', 'http://[::1', ':a', 'é']],
  iri: [['https://例え.jp/パス?q=値#フラグ', 'urn:x:é', 'http://a/b?\u{E000}', 'abc:'], ['no scheme', 'http://a/\u{E000}', 'http://a b']],
  'iri-reference': [['/パス', '', '#é', 'https://例え.jp'], ['a b', ':x']],
  'uri-template': [
    ['http://example.com/{id}', '/search{?q,lang}', '{+path}/here', '{var:3}{list*}', 'plain', '{a.b}', '{i.j.k}', '{.i.j}', '{?x.y:3,z*}'],
    ['{', '{a b}', '{var:0}', 'a}b', 'x y', '{}', '{a..b}', '{a.}', '{.}', '{.a.}'],
  ],
  'json-pointer': [['', '/', '/a~0b/c~1d', '/foo/0', '/é/ '], ['a', '/~', '/~2', '#/a']],
  'relative-json-pointer': [['0', '1/a', '2#', '0/'], ['-1', '01', '#', '/a', '1~']],
  byte: [['', 'QUJD', 'QUI=', 'QQ==', 'aGVsbG8gd29ybGQ=', 'a+/9'], ['Q', 'QUJ', 'QQ=', 'QUJD\nQUJD', 'QU JD', 'QQ===', '====', 'QUJD-_']],
};

test('every format: what it accepts and refuses', () => {
  assert.equal(Object.keys(CASES).sort(), Object.keys(FORMATS).sort());
  for (const [format, [yes, no]] of Object.entries(CASES)) {
    const ok = schema({ type: 'string', format });
    for (const v of yes) assert.ok(ok(JSON.stringify(v)), `${format} accepts ${JSON.stringify(v)}`);
    for (const v of no) assert.not.ok(ok(JSON.stringify(v)), `${format} refuses ${JSON.stringify(v)}`);
  }
});

test("OpenAPI's number formats: int32 and int64 are integers within their ranges (a number schema's too), float and double any number", () => {
  const int32 = schema({ type: 'integer', format: 'int32' });
  for (const v of ['0', '-2147483648', '2147483647']) assert.ok(int32(v), v);
  for (const v of ['2147483648', '-2147483649', '1.5']) assert.not.ok(int32(v), v);
  // int64 keeps the signed 64-bit range (ajv takes any integer), so Java, Go and Rust clients can parse the value.
  const int64 = schema({ type: 'number', format: 'int64' });
  for (const v of ['9223372036854775807', '-9223372036854775808', '42']) assert.ok(int64(v), v);
  for (const v of ['9223372036854775808', '-9223372036854775809', '4.2']) assert.not.ok(int64(v), v);
  const bounded = schema({ type: 'integer', format: 'int32', minimum: 10 });
  assert.equal(['9', '10', '2147483647', '2147483648'].map(bounded), [false, true, true, false]);
  for (const format of ['float', 'double']) {
    const ok = schema({ type: 'number', format });
    for (const v of ['1.5', '-2e10', '0', '7']) assert.ok(ok(v), `${format} ${v}`);
  }
  // As ajv reads them, a format of the other kind leaves a value alone.
  assert.ok(schema({ type: 'string', format: 'int32' })('"not a number"'));
  assert.ok(schema({ type: ['integer', 'string'], format: 'int32' })('"x"'));
  assert.ok(schema({ type: 'integer', format: 'email' })('5'));
  const validate = ajv.compile({ type: 'number', format: 'int32' });
  for (const v of ['0', '-2147483648', '2147483647']) assert.ok(validate(JSON.parse(v)), v);
  for (const v of ['2147483648', '1.5']) assert.not.ok(validate(JSON.parse(v)), v);
});

test("OpenAPI's binary and password formats (pydantic's bytes and SecretStr) allow any string, as ajv-formats does", () => {
  for (const format of ['binary', 'password']) {
    const ok = schema({ type: 'string', format });
    for (const v of ['', 'x', 'a b\n', '\u00e9\u4f8b']) assert.ok(ok(JSON.stringify(v)), `${format} ${JSON.stringify(v)}`);
    assert.not.ok(ok('5'), `${format} is still a string`);
    const long = schema({ type: 'string', format, minLength: 8 });
    assert.equal([long('"abc"'), long('"abcdefgh"')], [false, true]);
  }
});

/** Candidates near a format's values: the listed ones, and them cut, doubled and mutated. */
function candidates(format: string): string[] {
  const [yes, no] = CASES[format]!;
  const seeds = [...yes, ...no];
  const unit = fc.constantFrom('a', 'Z', '0', '9', '-', '.', ':', '/', '@', '%', '{', '}', '?', '#', 'T', 'P', 'é', '例', ' ', '~', '"', '+', '[');
  const mutated = fc.tuple(fc.constantFrom(...seeds), fc.nat(), fc.nat(), fc.string({ unit, maxLength: 3 })).map(([s, i, j, ins]) => {
    const a = i % (s.length + 1);
    const b = Math.min(s.length, a + (j % 3));
    return s.slice(0, a) + ins + s.slice(b);
  });
  return [...seeds, ...fc.sample(mutated, { numRuns: 300, seed: format.length * 31 })];
}

/** What the RFCs allow, xgrammar accepts and ajv-formats refuses: quoted local parts (RFC
 * 5321), an empty part after the scheme (RFC 3986 path-empty), dotted variable names (RFC 6570). */
const BEYOND_AJV: Record<string, RegExp> = {
  email: /^"/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:(?:[?#]|$)/,
  'uri-template': /\{[+#./;?&=,!@|]?[^.}]+\./,
};

test('the grammar of each format is its regex, and within ajv-formats where ajv has the format', () => {
  for (const format of Object.keys(FORMATS)) {
    const ok = schema({ type: 'string', format });
    const regex = new RegExp(`^(?:${FORMATS[format]})$`, 'u');
    const ajvValidate = format in ajv.formats ? ajv.compile({ type: 'string', format }) : null;
    for (const v of candidates(format)) {
      const accepted = ok(JSON.stringify(v));
      assert.is(accepted, regex.test(v), `${format}: grammar and regex differ on ${JSON.stringify(v)}`);
      if (accepted && ajvValidate && !BEYOND_AJV[format]?.test(v)) assert.ok(ajvValidate(v), `${format}: ${JSON.stringify(v)} is accepted, but ajv-formats refuses it`);
    }
  }
});

// Where xgrammar's own tests and the RFCs agree (each failed before): a JSON string value.
const value = (format: string, v: string): boolean => schema({ type: 'string', format })(JSON.stringify(v));

test('uri: an empty part after the scheme is a URI (RFC 3986 path-empty)', () => {
  for (const v of ['abc:', 'a:', 'urn:', 'abc:?q=1', 'abc:#f']) assert.ok(value('uri', v), v);
  assert.ok(value('iri', 'abc:'));
  for (const v of [':', 'abc', '1bc:']) assert.not.ok(value('uri', v), v);
});

test('uri-template: dotted variable names (RFC 6570 varname)', () => {
  for (const v of ['{i.j.k}', 'x/{a.b}/{c_d.e}', '{.a.b}', '{+a.b*}', '{?x.y,z.w:2}']) assert.ok(value('uri-template', v), v);
  for (const v of ['{a..b}', '{a.}', '{.}', '{.a.}']) assert.not.ok(value('uri-template', v), v);
});

test('email: a quoted local part (RFC 5321 Quoted-string)', () => {
  for (const v of ['"a b"@example.com', '"john..doe"@x.org', '"a\\"b"@x.org', '"a@b"@x.org']) assert.ok(value('email', v), v);
  for (const v of ['"a"b"@x.org', '"a\u0001"@x.org', '"a@x.org', 'a"b"@x.org']) assert.not.ok(value('email', v), v);
});

test('hostname: no trailing dot (`a.` is refused)', () => {
  for (const v of ['a.', 'example.com.', '.']) assert.not.ok(value('hostname', v), v);
  for (const v of ['a', 'example.com']) assert.ok(value('hostname', v), v);
  assert.not.ok(value('idn-hostname', 'example.com.'));
});

test('leap seconds: every one the grammar writes is 23:59:60 UTC', () => {
  const ok = schema({ type: 'string', format: 'time' });
  const validate = ajv.compile({ type: 'string', format: 'time' });
  for (let h = 0; h < 24; h++) {
    for (const offset of ['Z', '+00:00', '-00:00', ...Array.from({ length: 23 }, (_, i) => [`+${String(i + 1).padStart(2, '0')}:00`, `-${String(i + 1).padStart(2, '0')}:00`]).flat(), '+05:30']) {
      const t = `${String(h).padStart(2, '0')}:59:60${offset}`;
      if (ok(JSON.stringify(t))) assert.ok(validate(t), t);
    }
  }
});

test.run();
