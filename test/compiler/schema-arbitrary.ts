// Random instances for a JSON schema: values near the schema (bounds, lengths, required and
// extra keys, formats, patterns), mixed with arbitrary JSON, so both valid and invalid
// instances come up. Only used by the JSON Schema oracle test.
import fc from 'fast-check';

type Schema = boolean | Record<string, unknown>;
type Arb = fc.Arbitrary<unknown>;

const isObj = (s: unknown): s is Record<string, unknown> => typeof s === 'object' && s !== null && !Array.isArray(s);
const noise: Arb = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('a', 'b', '-', '1', '"', '\\', '\n', '\t', 'é', '好', '😀', ' '), maxLength: 8 }),
);

function lookup(root: Schema, ref: string): Schema {
  let cur: unknown = root;
  for (const seg of ref.slice(1).split('/').slice(1)) cur = (cur as Record<string, unknown>)[decodeURIComponent(seg)];
  return cur as Schema;
}

const FORMAT_ARBS: Record<string, Arb> = {
  date: fc.oneof(fc.date({ noInvalidDate: true, min: new Date('1800-01-01'), max: new Date('2400-01-01') }).map((d) => d.toISOString().slice(0, 10)), fc.constantFrom('2023-02-29', '2024-02-29', '2024-13-01', '2024-1-1')),
  time: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(11)), fc.constantFrom('10:00:00+05:30', '25:00:00Z', '10:00:00')),
  'date-time': fc.oneof(fc.date({ noInvalidDate: true, min: new Date('1000-01-01'), max: new Date('9000-01-01') }).map((d) => d.toISOString()), fc.constantFrom('2024-01-01T00:00:00', 'x')),
  email: fc.oneof(fc.emailAddress(), fc.constantFrom('a@b', 'no-at.example.com')),
  uuid: fc.oneof(fc.uuid(), fc.constantFrom('123e4567-e89b-12d3-a456-42661417400', 'URN:UUID:123e4567-e89b-12d3-a456-426614174000')),
  ipv4: fc.oneof(fc.ipV4(), fc.constantFrom('256.0.0.1', '01.2.3.4', '1.2.3')),
  ipv6: fc.oneof(fc.ipV6(), fc.constantFrom('1::2::3', '::', 'fe80::1%1')),
  uri: fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constantFrom('no scheme', 'urn:isbn:123', 'a:b c')),
  duration: fc.constantFrom('P1Y', 'P1Y2M3DT4H5M6S', 'PT1M', 'P2W', 'P1M2D', 'PT1H30M', 'P', 'PT', 'P1.5Y', '1Y', 'P1W2D'),
  'json-pointer': fc.oneof(fc.string({ maxLength: 6 }).map((x) => `/${x}`), fc.constantFrom('', '/a~0b/c~1d', 'a', '/~', '/~2')),
  hostname: fc.oneof(fc.constantFrom('example.com', 'a-b.c0.', 'xn--bcher-kva.ch', 'localhost', '-a.com', 'a..b', 'a_b.com', 'é.com'), fc.string({ unit: fc.constantFrom('a', 'z', '0', '-', '.'), minLength: 1, maxLength: 12 })),
};

/** allOf members merged into their holder, to draw values near all of them at once. */
function mergeAllOf(s: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...s };
  delete out.allOf;
  for (const part of s.allOf as Schema[]) {
    if (!isObj(part)) continue;
    for (const [k, v] of Object.entries(part)) {
      if (k === 'properties' && isObj(out.properties) && isObj(v)) out.properties = { ...out.properties, ...v };
      else if (k === 'required' && Array.isArray(out.required)) out.required = [...(out.required as string[]), ...(v as string[])];
      else out[k] = v;
    }
  }
  return out;
}

export function instanceArbitrary(root: Schema): Arb {
  const arb = (s: Schema, depth: number): Arb => {
    if (depth > 4) return fc.constant(null);
    if (s === true) return noise;
    if (s === false) return noise;
    if (typeof s.$ref === 'string') return fc.constant(null).chain(() => arb(lookup(root, s.$ref as string), depth + 1));
    if (Array.isArray(s.allOf)) return arb(mergeAllOf(s), depth);
    const options: Arb[] = [noise];
    if ('const' in s) options.push(fc.constant(s.const), fc.constant(s.const));
    if (Array.isArray(s.enum)) options.push(fc.constantFrom(...(s.enum as unknown[])), fc.constantFrom(...(s.enum as unknown[])));
    for (const key of ['anyOf', 'oneOf']) {
      if (Array.isArray(s[key])) {
        for (const b of s[key] as Schema[]) options.push(arb(isObj(b) ? { ...s, [key]: undefined, ...b } : b, depth + 1));
      }
    }
    const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];
    for (const t of types) options.push(typed(t, s, depth));
    return fc.oneof(...options);
  };

  const typed = (t: string, s: Record<string, unknown>, depth: number): Arb => {
    const num = (k: string): number | undefined => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
    switch (t) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const lo = num('minimum') ?? num('exclusiveMinimum');
        const hi = num('maximum') ?? num('exclusiveMaximum');
        const near = [lo, hi].filter((x): x is number => x !== undefined).flatMap((x) => [Math.floor(x) - 1, Math.floor(x), Math.ceil(x), Math.ceil(x) + 1]);
        const step = num('multipleOf');
        const multiples = step === undefined ? [] : [fc.integer({ min: -300, max: 300 }).map((k) => k * step)];
        return fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.maxSafeInteger(), ...multiples, ...(near.length > 0 ? [fc.constantFrom(...near)] : []));
      }
      case 'number': {
        const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map(num).filter((x): x is number => x !== undefined);
        const near = bounds.flatMap((x) => [x, x * (1 + 1e-9), x * (1 - 1e-9), x + 1, x - 1, x / 10, x * 10]);
        const lo = bounds.length > 0 ? Math.min(...bounds) : -1e6;
        const hi = bounds.length > 0 ? Math.max(...bounds) : 1e6;
        const span = Math.max(hi - lo, 1e-9);
        const step = num('multipleOf');
        return fc.oneof(
          ...(step === undefined ? [] : [fc.integer({ min: -500, max: 500 }).map((k) => k * step)]),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.double({ min: lo - span, max: hi + span, noNaN: true, noDefaultInfinity: true }),
          fc.integer({ min: -100, max: 100 }),
          ...(near.length > 0 ? [fc.constantFrom(...near)] : []),
        );
      }
      case 'string': {
        if (typeof s.format === 'string') return FORMAT_ARBS[s.format] ?? text;
        if (typeof s.pattern === 'string') return fc.oneof(fc.stringMatching(new RegExp(s.pattern, 'u')), text);
        const min = num('minLength') ?? 0;
        const max = num('maxLength') ?? 10;
        const unit = fc.constantFrom('a', 'Z', '"', '\\', '\n', 'é', '好', '😀', '\u0001', '/');
        return fc.oneof(fc.string({ unit, minLength: Math.max(0, min - 1), maxLength: max + 1 }), text);
      }
      case 'array': {
        const tuple = Array.isArray(s.items);
        const prefixSchemas = tuple ? (s.items as Schema[]) : Array.isArray(s.prefixItems) ? (s.prefixItems as Schema[]) : [];
        const prefix = prefixSchemas.map((p) => arb(p, depth + 1));
        const rest = tuple ? s.additionalItems : 'items' in s ? s.items : s.unevaluatedItems;
        const item = rest !== undefined ? arb(rest as Schema, depth + 1) : noise;
        const min = num('minItems') ?? 0;
        const max = num('maxItems') ?? Math.max(min, prefix.length) + 2;
        const len = fc.integer({ min: Math.max(0, min - 1), max: Math.min(max + 1, 400) });
        return len.chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => (i < prefix.length ? prefix[i]! : item))));
      }
      case 'object': {
        const props = isObj(s.properties) ? (s.properties as Record<string, Schema>) : {};
        const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
        const other = 'additionalProperties' in s ? s.additionalProperties : s.unevaluatedProperties;
        const extraValue = isObj(other) || typeof other === 'boolean' ? arb(other as Schema, depth + 1) : noise;
        const names = isObj(s.propertyNames) && typeof s.propertyNames.pattern === 'string' ? [fc.stringMatching(new RegExp(s.propertyNames.pattern, 'u'))] : [];
        const patternKeys = [...names, ...(isObj(s.patternProperties) ? Object.keys(s.patternProperties).map((p) => fc.stringMatching(new RegExp(p, 'u'))) : [])];
        const patternValue = isObj(s.patternProperties) ? arb(Object.values(s.patternProperties)[0] as Schema, depth + 1) : noise;
        const entries = Object.entries(props).map(([k, v]) => fc.tuple(fc.constant(k), arb(v, depth + 1), fc.double({ min: 0, max: 1, noNaN: true })));
        const extraKeys = fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 4 }), ...patternKeys), fc.oneof(extraValue, patternValue)), { maxLength: 3 });
        return fc.tuple(fc.tuple(...entries), extraKeys, fc.double({ min: 0, max: 1, noNaN: true })).map(([declared, extras, p]) => {
          const out: Record<string, unknown> = {};
          for (const [k, v, q] of declared) if (required.has(k) ? q > 0.1 : q > 0.5) out[k] = v;
          if (p < 0.4) for (const [k, v] of extras) if (!(k in out)) out[k] = v;
          return out;
        });
      }
      default:
        return noise;
    }
  };
  return arb(root, 0);
}
