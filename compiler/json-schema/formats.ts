// String formats as ECMAScript regular expressions over the decoded value. Each accepts what
// its RFC allows, or a documented part of it, and never more than ajv-formats' full mode
// accepts (for the formats ajv-formats has), so a value the grammar writes passes the usual
// validators. The choices, per format, are in compiler/README.md; in short:
// - date, time, date-time (RFC 3339): days per month and leap years checked; offsets written
//   `Z` or `±hh:mm` as the RFC's grammar says (ajv also takes `+hh` and `+hhmm`); a leap
//   second (:60) only at 23:59 UTC, written with `Z` or a whole-hour offset; a fraction of a
//   second of at most 9 digits; `T` or `t` between date and time, no space.
// - email (RFC 5321 Mailbox): a dot-atom or quoted local part (`"a b"@x.org`, beyond ajv,
//   which refuses quoted ones), a domain of two or more labels, as ajv; no address literals.
// - hostname (RFC 1123): labels of letters, digits and inner hyphens, 1-63 characters, no
//   trailing dot (the root's empty label: `a.` is an absolute name, not a host name); the
//   253-character limit is met by bounding labels by their number (up to 3 of 63 characters,
//   4 of 62, 8 of 30 or 16 of 14), which a small automaton can check (both limits at once
//   need one of 24,000 states).
// - idn-hostname, idn-email: the labels are ASCII (a U-label's validity needs IDNA tables,
//   normalisation and the length of its punycode form); no label looks like an A-label
//   ("xn--"); idn-email's local part may hold any non-ASCII character (RFC 6531).
// - ipv4: no leading zeros (RFC 3986 dec-octet). ipv6: RFC 4291 text forms, no zone.
// - uri, uri-reference, iri, iri-reference (RFC 3986, 3987): no IP-literal hosts; the part
//   after the scheme may be empty (`abc:`, as the RFCs' path-empty; ajv refuses it).
// - uri-template (RFC 6570 level 4): dotted variable names too (`{i.j.k}`; ajv refuses them).
// - duration: RFC 3339 Appendix A (units in order and adjacent: P1Y1D is refused), each
//   component of 1 to 9 digits.
// - json-pointer (RFC 6901), relative-json-pointer (draft-handrews-relative-json-pointer-01).
// - byte (OpenAPI): base64 (RFC 4648 section 4) with its padding, one line (ajv-formats reads it
//   line by line). OpenAPI's binary and password say nothing a string must match
//   (ANNOTATION_FORMATS), and its number formats are numeric.ts's.

const DAY31 = '(?:0[1-9]|[12]\\d|3[01])';
const DAY30 = '(?:0[1-9]|[12]\\d|30)';
const DAY28 = '(?:0[1-9]|1\\d|2[0-8])';
const LEAP_YEAR = '(?:\\d\\d(?:[02468][48]|[13579][26]|[2468]0)|(?:[02468][048]|[13579][26])00)';
const DATE = `(?:\\d{4}-(?:(?:0[13578]|1[02])-${DAY31}|(?:0[469]|11)-${DAY30}|02-${DAY28})|${LEAP_YEAR}-02-29)`;

const pad = (n: number): string => String(n).padStart(2, '0');
/** A fraction of a second of 1 to 9 digits (nanoseconds, the finest any common date-time type keeps): the RFC sets no bound, and without one a model may write digits until max_tokens. */
const FRACTION = '(?:\\.\\d{1,9})?';
/** A leap second: 23:59:60 UTC, as local time with Z or a whole-hour offset. */
const LEAP_SECOND = [
  `23:59:60${FRACTION}(?:[zZ]|[+-]00:00)`,
  ...Array.from({ length: 23 }, (_, i) => `${pad(i)}:59:60${FRACTION}\\+${pad(i + 1)}:00`),
  ...Array.from({ length: 23 }, (_, i) => `${pad(22 - i)}:59:60${FRACTION}-${pad(i + 1)}:00`),
].join('|');
const TIME = `(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d${FRACTION}(?:[zZ]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)|${LEAP_SECOND})`;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H = '[0-9a-fA-F]{1,4}';
const IPV6 = [
  `(?:${H}:){7}(?:${H}|:)`,
  `(?:${H}:){6}(?::${H}|${IPV4}|:)`,
  `(?:${H}:){5}(?:(?::${H}){1,2}|:${IPV4}|:)`,
  `(?:${H}:){4}(?:(?::${H}){1,3}|(?::${H})?:${IPV4}|:)`,
  `(?:${H}:){3}(?:(?::${H}){1,4}|(?::${H}){0,2}:${IPV4}|:)`,
  `(?:${H}:){2}(?:(?::${H}){1,5}|(?::${H}){0,3}:${IPV4}|:)`,
  `(?:${H}:)(?:(?::${H}){1,6}|(?::${H}){0,4}:${IPV4}|:)`,
  `:(?:(?::${H}){1,7}|(?::${H}){0,5}:${IPV4}|:)`,
].join('|');

const ATEXT = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]";
// RFC 5321 Quoted-string: printable ASCII but `"` and `\`, or either escaped by a backslash;
// RFC 6531 adds any non-ASCII character to the text.
const QUOTED_LOCAL = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*"';
const QUOTED_LOCAL_UTF8 = '"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|[^\\u{0}-\\u{7F}]|\\\\[\\x20-\\x7e])*"';
const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
/** A label of 1..n letters, digits and inner hyphens. */
const labelOf = (n: number): string => `[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,${n - 2}}[a-zA-Z0-9])?`;
/** Up to k labels of up to n characters; k·n + k - 1 ≤ 253 in every case. */
const HOSTNAME_LIMITS = [[3, 63], [4, 62], [8, 30], [16, 14]] as const;
const HOSTNAME = `(?:${HOSTNAME_LIMITS.map(([k, n]) => `${labelOf(n)}(?:\\.${labelOf(n)}){0,${k - 1}}`).join('|')})`;
/** An ASCII label of 1..n characters (null: any length) that is not an A-label nor reserved
 * like one: no "--" in its 3rd and 4th places. */
function notAceLabelOf(n: number | null): string {
  const A = '[a-zA-Z0-9]';
  const inner = n === null ? '*' : `{0,${n - 5}}`;
  return `${A}(?:${A}|[a-zA-Z0-9-]${A}|[a-zA-Z0-9-][a-zA-Z0-9-]${A}|[a-zA-Z0-9-](?:${A}[a-zA-Z0-9-]|-${A})[a-zA-Z0-9-]${inner}${A})?`;
}
const NOT_ACE_LABEL = notAceLabelOf(null);

// URIs (RFC 3986) and IRIs (RFC 3987, which adds ucschar, and iprivate in queries).
const PCT = '%[0-9a-fA-F]{2}';
const UNRESERVED_SUB = "\\-a-zA-Z0-9._~!$&'()*+,;=";
const UCSCHAR = '\\u{A0}-\\u{D7FF}\\u{F900}-\\u{FDCF}\\u{FDF0}-\\u{FFEF}\\u{10000}-\\u{1FFFD}\\u{20000}-\\u{2FFFD}\\u{30000}-\\u{3FFFD}\\u{40000}-\\u{4FFFD}\\u{50000}-\\u{5FFFD}\\u{60000}-\\u{6FFFD}\\u{70000}-\\u{7FFFD}\\u{80000}-\\u{8FFFD}\\u{90000}-\\u{9FFFD}\\u{A0000}-\\u{AFFFD}\\u{B0000}-\\u{BFFFD}\\u{C0000}-\\u{CFFFD}\\u{D0000}-\\u{DFFFD}\\u{E1000}-\\u{EFFFD}';
const IPRIVATE = '\\u{E000}-\\u{F8FF}\\u{F0000}-\\u{FFFFD}\\u{100000}-\\u{10FFFD}';

/** URI or IRI grammar pieces over an alphabet of unreserved and sub-delims characters. */
function resource(unreserved: string, queryExtra: string): { absolute: string; reference: string } {
  const pchar = `(?:[${unreserved}:@]|${PCT})`;
  const segment = `${pchar}*`;
  const segmentNz = `${pchar}+`;
  const segmentNzNc = `(?:[${unreserved}@]|${PCT})+`;
  const authority = `(?:(?:[${unreserved}:]|${PCT})*@)?(?:[${unreserved}]|${PCT})*(?::\\d*)?`;
  const query = `(?:\\?(?:[${unreserved}${queryExtra}:@/?]|${PCT})*)?`;
  const fragment = `(?:#(?:[${unreserved}:@/?]|${PCT})*)?`;
  const scheme = '[a-zA-Z][a-zA-Z0-9+.-]*';
  // RFC 3986 hier-part, path-empty included ("abc:", "abc:?q").
  const hier = `(?://${authority}(?:/${segment})*|/(?:${segmentNz}(?:/${segment})*)?|${segmentNz}(?:/${segment})*)?`;
  const relativePart = `(?://${authority}(?:/${segment})*|/(?:${segmentNz}(?:/${segment})*)?|${segmentNzNc}(?:/${segment})*)?`;
  return { absolute: `${scheme}:${hier}${query}${fragment}`, reference: `${scheme}:${hier}${query}${fragment}|${relativePart}${query}${fragment}` };
}
const URI = resource(UNRESERVED_SUB, '');
const IRI = resource(UNRESERVED_SUB + UCSCHAR, IPRIVATE);

// RFC 6570 level 4: varname = varchar *( ["."] varchar ).
const TEMPLATE_LITERAL = `(?:[!#$&()*+,\\-./0-9:;=?@A-Z\\[\\]_a-z~${UCSCHAR}${IPRIVATE}]|${PCT})`;
const VARCHAR = `(?:[a-zA-Z0-9_]|${PCT})`;
const VARSPEC = `${VARCHAR}(?:\\.?${VARCHAR})*(?::[1-9]\\d{0,3}|\\*)?`;
const URI_TEMPLATE = `(?:${TEMPLATE_LITERAL}|\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\})*`;

// RFC 3339 Appendix A, with up to 9 digits a component: the RFC sets no bound, and without one
// a model wrote digits until max_tokens; 9 keep every value inside the 32-bit fields of common
// duration types (Java's Period, Python's timedelta, whose days stop at 999,999,999).
const D = '\\d{1,9}';
const DUR_TIME = `T(?:${D}H(?:${D}M(?:${D}S)?)?|${D}M(?:${D}S)?|${D}S)`;
const DUR_DATE = `(?:${D}D|${D}M(?:${D}D)?|${D}Y(?:${D}M(?:${D}D)?)?)(?:${DUR_TIME})?`;

const JSON_POINTER = '(?:/(?:[^~/]|~[01])*)*';

export const FORMATS: Record<string, string> = {
  date: DATE,
  time: TIME,
  'date-time': `${DATE}[tT]${TIME}`,
  duration: `P(?:${DUR_DATE}|${DUR_TIME}|${D}W)`,
  email: `(?:${ATEXT}+(?:\\.${ATEXT}+)*|${QUOTED_LOCAL})@(?:${LABEL}\\.)+${LABEL}`,
  'idn-email': `(?:(?:${ATEXT}|[^\\u{0}-\\u{7F}])+(?:\\.(?:${ATEXT}|[^\\u{0}-\\u{7F}])+)*|${QUOTED_LOCAL_UTF8})@(?:${NOT_ACE_LABEL}\\.)+${NOT_ACE_LABEL}`,
  hostname: HOSTNAME,
  'idn-hostname': `(?:${HOSTNAME_LIMITS.map(([k, n]) => `${notAceLabelOf(n)}(?:\\.${notAceLabelOf(n)}){0,${k - 1}}`).join('|')})`,
  uuid: '(?:[uU][rR][nN]:[uU][uU][iI][dD]:)?[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}',
  ipv4: IPV4,
  ipv6: `(?:${IPV6})`,
  uri: URI.absolute,
  'uri-reference': URI.reference,
  iri: IRI.absolute,
  'iri-reference': IRI.reference,
  'uri-template': URI_TEMPLATE,
  'json-pointer': JSON_POINTER,
  'relative-json-pointer': `(?:0|[1-9]\\d*)(?:#|${JSON_POINTER})`,
  byte: '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?',
};

/** OpenAPI's string formats that only annotate (ajv-formats accepts any string under them):
 * pydantic writes `binary` for bytes and `password` for SecretStr. Any string meets them. */
export const ANNOTATION_FORMATS = ['binary', 'password'];
