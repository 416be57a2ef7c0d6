// Reads one parameter of an XML tool-call style (compiler/json-schema/xml.ts writes their
// grammars) back into a key and a JSON value, once the parameter is complete.
//   - Typed styles say how the value is written: kimi_k3_xml's `type` (string: raw text, else
//     JSON), cohere_xml's `type` (raw, json, dict, list; nested values recursively).
//   - The others leave it to the schema: a value the schema allows to be something other than
//     a string is that value when the text (trimmed) is JSON of such a type (so with
//     `anyOf: [string, integer]`, `5` is the number 5) and, where a string would do too, when
//     the whole schema allows that value as the tool grammar reads it (xml-value-check.ts:
//     ajv, strict mode's closed objects and arrays); otherwise the text is the string, as
//     written, the only reading the grammar allowed (`5` under `anyOf: [string, {integer,
//     minimum: 10}]`, `{}` under `anyOf: [string, {object, properties: {a}, required: [a]}]`).
//     Where ajv cannot compile the schema, the types alone decide. The newlines qwen_xml's
//     template writes around a value come off only where that cannot change what the grammar
//     allowed: around free text, and around a listed (enum or const) value, which the grammar
//     allows bare or framed. deepseek_xml's `string="true"` makes the value the string written
//     where the schema allows strings; its flag is not checked against the value's type by
//     the grammar, so it decides nothing more (a number under `string="true"`, a string of
//     digits under `"false"`, stay what the schema says).

import { lookup, valueCheck } from './xml-value-check.js';

export interface XmlParameter {
  key: string;
  value: unknown;
  /** Where the parameter's text ends. */
  end: number;
}

type Schema = unknown;

export interface XmlReader {
  /** The parameter at `pos`, or null when there is none there yet (or the text stops inside it);
   * `schemaOf`: the schema of a key's value (every schema the arguments' parts give it, as
   * the compiler's xmlParameterSchema reads them), its references into `root`. */
  read(text: string, pos: number, schemaOf: (key: string) => Schema, root: Schema): XmlParameter | null;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };
const decodeAttribute = (text: string): string => text.replace(/&(amp|lt|gt|quot|apos);/g, (e) => ENTITIES[e]!);

/** A style that writes `open` (key captured, optional string flag), the raw value, `close`. */
function flat(open: RegExp, close: string, framed = false): XmlReader {
  return {
    read(text, pos, schemaOf, root) {
      open.lastIndex = pos;
      const m = open.exec(text);
      if (!m) return null;
      const start = open.lastIndex;
      const at = text.indexOf(close, start);
      if (at < 0) return null;
      const key = m[1]!;
      const raw = text.slice(start, at);
      const schema = schemaOf(key);
      const value = m[2] === 'true' && viewOf(schema, root).strings ? raw : readUntyped(raw, schema, root, framed);
      return { key, value, end: at + close.length };
    },
  };
}

const KIMI_OPEN = /<\|open\|>argument key="([^"]*)" type="([a-z]+)"<\|sep\|>/y;
const KIMI_CLOSE = '<|close|>argument<|sep|>';

const kimi: XmlReader = {
  read(text, pos) {
    KIMI_OPEN.lastIndex = pos;
    const m = KIMI_OPEN.exec(text);
    if (!m) return null;
    const at = text.indexOf(KIMI_CLOSE, KIMI_OPEN.lastIndex);
    if (at < 0) return null;
    const raw = text.slice(KIMI_OPEN.lastIndex, at);
    return { key: decodeAttribute(m[1]!), value: m[2] === 'string' ? raw : parseJson(raw, raw), end: at + KIMI_CLOSE.length };
  },
};

const COFL_OPEN = /<cofl:value(?: name="([^"]*)")? type="(raw|json|dict|list)">/y;
const COFL_CLOSE = '</cofl:value>';
const SPACE = /[ \t\r\n]*/y;

/** One `<cofl:value>` at `pos` (after whitespace), recursively, or null while incomplete. */
function readCofl(text: string, pos: number): { name: string | undefined; value: unknown; end: number } | null {
  COFL_OPEN.lastIndex = pos;
  const m = COFL_OPEN.exec(text);
  if (!m) return null;
  const name = m[1] === undefined ? undefined : decodeAttribute(m[1]);
  const type = m[2]!;
  let at = COFL_OPEN.lastIndex;
  if (type === 'raw' || type === 'json') {
    const close = text.indexOf(COFL_CLOSE, at);
    if (close < 0) return null;
    const raw = text.slice(at, close);
    return { name, value: type === 'raw' ? raw : parseJson(raw, raw), end: close + COFL_CLOSE.length };
  }
  const entries: [string | undefined, unknown][] = [];
  for (;;) {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
    if (text.startsWith(COFL_CLOSE, at)) break;
    const child = readCofl(text, at);
    if (!child) return null;
    entries.push([child.name, child.value]);
    at = child.end;
  }
  const value = type === 'dict' ? Object.fromEntries(entries.map(([k, v]) => [k ?? '', v])) : entries.map(([, v]) => v);
  return { name, value, end: at + COFL_CLOSE.length };
}

const cohere: XmlReader = {
  read(text, pos) {
    const node = readCofl(text, pos);
    return node && node.name !== undefined ? { key: node.name, value: node.value, end: node.end } : null;
  },
};

export const XML_READERS: Record<string, XmlReader> = {
  qwen_xml: flat(/<parameter=([^>]*)>/y, '</parameter>', true),
  minimax_xml: flat(/<parameter name="([^"]*)">/y, '</parameter>'),
  deepseek_xml: flat(/<｜DSML｜parameter name="([^"]*)" string="(true|false)">/y, '</｜DSML｜parameter>'),
  glm_xml: flat(/<arg_key>([^<]*)<\/arg_key>[ \t\r\n]*<arg_value>/y, '</arg_value>'),
  kimi_k3_xml: kimi,
  cohere_xml: cohere,
};

function parseJson(raw: string, otherwise: unknown): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return otherwise;
  }
}

/** What a schema says about strings: the other JSON types it allows, whether it allows
 * strings, its listed strings, and whether some string branch is free (no pattern, format or
 * length). */
interface StringView {
  others: Set<string>;
  strings: boolean;
  listed: string[];
  free: boolean;
}

const OTHER_TYPES = ['null', 'boolean', 'integer', 'number', 'array', 'object'];

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function viewOf(schema: Schema, root: Schema, depth = 0): StringView {
  const all: StringView = { others: new Set(OTHER_TYPES), strings: true, listed: [], free: true };
  if (depth > 32 || schema === true || schema === undefined) return all;
  if (schema === false || typeof schema !== 'object' || schema === null) return { others: new Set(), strings: false, listed: [], free: false };
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) {
    return meet(viewOf(lookup(root, s.$ref), root, depth + 1), viewOf({ ...s, $ref: undefined }, root, depth + 1));
  }
  let view: StringView;
  if ('const' in s || Array.isArray(s.enum)) {
    const values = 'const' in s ? [s.const] : (s.enum as unknown[]);
    const listed = values.filter((v): v is string => typeof v === 'string');
    view = { others: new Set(values.filter((v) => typeof v !== 'string').map(typeOf)), strings: listed.length > 0, listed, free: false };
  } else {
    const declared = s.type === undefined ? [...OTHER_TYPES, 'string'] : typeof s.type === 'string' ? [s.type] : (s.type as string[]);
    // OpenAPI's nullable adds null to the type beside it, as the grammar reads it (compiler/json-schema/parts.ts).
    const types = s.nullable === true ? [...declared, 'null'] : declared;
    const strings = types.includes('string');
    view = { others: new Set(types.filter((t) => t !== 'string')), strings, listed: [], free: strings && !['pattern', 'format', 'minLength', 'maxLength'].some((k) => k in s) };
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key])) view = meet(view, (s[key] as Schema[]).map((b) => viewOf(b, root, depth + 1)).reduce(join));
  }
  if (Array.isArray(s.allOf)) view = (s.allOf as Schema[]).map((b) => viewOf(b, root, depth + 1)).reduce(meet, view);
  return view;
}

const join = (a: StringView, b: StringView): StringView => ({ others: new Set([...a.others, ...b.others]), strings: a.strings || b.strings, listed: [...a.listed, ...b.listed], free: a.free || b.free });

/** Types both allow (a whole number is a number too). */
function bothAllow(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if (t === 'integer' && b.has('number')) out.add('integer');
    else if (t === 'number' && b.has('integer')) out.add('integer');
  }
  return out;
}

const meet = (a: StringView, b: StringView): StringView => ({
  others: bothAllow(a.others, b.others),
  strings: a.strings && b.strings,
  listed: a.listed.length > 0 && b.listed.length > 0 ? a.listed.filter((v) => b.listed.includes(v)) : [...a.listed, ...b.listed],
  free: a.free && b.free,
});

function readUntyped(raw: string, schema: Schema, root: Schema, framed: boolean): unknown {
  const view = viewOf(schema, root);
  if (view.others.size > 0) {
    const parsed = parseJson(raw.trim(), undefined);
    const type = parsed === undefined ? '' : typeOf(parsed);
    // Only a type the schema allows: `true` under anyOf [string, integer] is the string; and,
    // where a string would do, only a value the whole schema allows, as the grammar read it
    // (`5` under anyOf [string, {integer, minimum: 10}], `{}` under anyOf [string, {object,
    // required: [a]}] went through the grammar as strings). Without a check (ajv cannot
    // compile the schema) the type decides.
    const allowed = parsed !== undefined && type !== 'string' && (view.others.has(type) || (type === 'integer' && view.others.has('number')));
    if (allowed && (!view.strings || (valueCheck(schema, root)?.(parsed) ?? true))) return parsed;
  }
  if (!framed) return raw;
  if (view.listed.includes(raw)) return raw;
  const unframed = /^\n[^]*\n$/.test(raw) ? raw.slice(1, -1) : null;
  if (unframed !== null && view.listed.includes(unframed)) return unframed;
  if (view.free || !view.strings) return raw.replace(/^\n/, '').replace(/\n$/, '');
  return raw;
}
