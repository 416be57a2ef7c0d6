// Other servers' request fields for constrained output, so that clients written against them run
// here unchanged: vLLM's `structured_outputs` (vLLM ≥ 0.10.2: one of json, regex, choice,
// grammar, json_object, structural_tag) and its older `guided_json`, `guided_regex`,
// `guided_choice`, `guided_grammar`; SGLang's `regex` and `ebnf`; llama-server's `grammar` (GBNF)
// and `json_schema`. Each becomes the grammar a response_format would ask for; a request asks
// for one output format at most, whichever way it is written.
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import { badRequest } from './api-error.js';
import { parseSchema, structuralTagOf, type ErrorParamAt } from './response-format.js';

export interface VllmStructuredOutputs {
  json?: unknown;
  regex?: string | null;
  choice?: string[] | null;
  grammar?: string | null;
  json_object?: boolean | null;
  structural_tag?: unknown;
  disable_fallback?: boolean | null;
  disable_any_whitespace?: boolean | null;
  disable_additional_properties?: boolean | null;
  whitespace_pattern?: string | null;
}

export interface PeerFormatFields {
  structured_outputs?: VllmStructuredOutputs | null;
  guided_json?: unknown;
  guided_regex?: string | null;
  guided_choice?: string[] | null;
  guided_grammar?: string | null;
  guided_decoding_backend?: string | null;
  guided_whitespace_pattern?: string | null;
  /** SGLang's. */
  regex?: string | null;
  ebnf?: string | null;
  /** llama-server's. */
  grammar?: string | null;
  json_schema?: unknown;
}

/** The kinds of output structured_outputs names. */
const KINDS = ['json', 'regex', 'choice', 'grammar', 'json_object', 'structural_tag'] as const;
type Kind = (typeof KINDS)[number];

/** The fields that each ask for one kind of output: vLLM's older guided_ ones, SGLang's, llama-server's. */
const SINGLE_FIELDS: [keyof PeerFormatFields, Kind][] = [
  ['guided_json', 'json'],
  ['guided_regex', 'regex'],
  ['guided_choice', 'choice'],
  ['guided_grammar', 'grammar'],
  ['regex', 'regex'],
  ['ebnf', 'grammar'],
  ['grammar', 'grammar'],
  ['json_schema', 'json'],
];

const choiceList = { type: ['array', 'null'], minItems: 1, maxItems: 4096, items: { type: 'string' } } as const;

/** Their request schemas (shared by chat and text completions). */
export const peerFormatProperties = {
  structured_outputs: {
    type: ['object', 'null'],
    properties: {
      json: { type: ['object', 'boolean', 'string', 'null'], description: 'A JSON schema (an object, or its JSON text): the output is a JSON value it accepts.' },
      regex: { type: ['string', 'null'], description: 'The output matches this regular expression (ECMAScript syntax, the whole output).' },
      choice: { ...choiceList, description: 'The output is exactly one of these strings (as text, not JSON).' },
      grammar: { type: ['string', 'null'], description: 'The output follows this EBNF grammar (GBNF, as xgrammar reads it).' },
      json_object: { type: ['boolean', 'null'], description: 'true: the output is a JSON object.' },
      structural_tag: { type: ['object', 'string', 'null'], description: 'A structural tag (an object with its "format", or its JSON text).' },
      disable_fallback: { type: ['boolean', 'null'], description: 'Accepted: this server never falls back to unconstrained output.' },
      disable_any_whitespace: { enum: [false, null], description: 'Only false: JSON output takes the whitespace response_format allows (see max_whitespace there).' },
      disable_additional_properties: { enum: [false, null], description: 'Only false: a schema is enforced as written (add "additionalProperties": false to it).' },
      whitespace_pattern: { type: 'null', description: 'Not supported: only null.' },
    },
    additionalProperties: false,
    description:
      "vLLM's constrained output: exactly one of json, regex, choice, grammar, json_object (true) or structural_tag, enforced as the response_format that asks for the same; not with response_format or the guided_ fields.",
  },
  guided_json: { type: ['object', 'boolean', 'string', 'null'], description: "vLLM's older name for structured_outputs.json." },
  guided_regex: { type: ['string', 'null'], description: "vLLM's older name for structured_outputs.regex." },
  guided_choice: { ...choiceList, description: "vLLM's older name for structured_outputs.choice." },
  guided_grammar: { type: ['string', 'null'], description: "vLLM's older name for structured_outputs.grammar." },
  guided_decoding_backend: { type: ['string', 'null'], maxLength: 64, description: "vLLM's choice of grammar engine: accepted, and every constraint is enforced by this server's one." },
  guided_whitespace_pattern: { type: 'null', description: 'Not supported: only null.' },
  regex: { type: ['string', 'null'], description: "SGLang's: the output matches this regular expression (as response_format's regex)." },
  ebnf: { type: ['string', 'null'], description: "SGLang's: the output follows this EBNF grammar (as response_format's grammar)." },
  grammar: { type: ['string', 'null'], description: "llama-server's: the output follows this GBNF grammar (as response_format's grammar)." },
  json_schema: { type: ['object', 'boolean', 'null'], description: "llama-server's: the output is a JSON value this schema accepts (as response_format's json_schema)." },
} as const;

/** The output format the request asks for in a peer's fields, with the field its errors point into, or undefined; throws a 400 where two formats are asked for. */
export function peerFormatOf(request: PeerFormatFields): { spec: GrammarSpec; field: string; paramAt: ErrorParamAt } | undefined {
  const asked: [Kind, unknown, string][] = [];
  const outputs = request.structured_outputs;
  if (outputs) for (const kind of KINDS) if (outputs[kind] != null && outputs[kind] !== false) asked.push([kind, outputs[kind], `structured_outputs.${kind}`]);
  for (const [field, kind] of SINGLE_FIELDS) if (request[field] != null) asked.push([kind, request[field], field]);
  if (asked.length === 0) {
    if (outputs) throw badRequest(`structured_outputs needs one of ${KINDS.join(', ')}.`, 'structured_outputs');
    return undefined;
  }
  if (asked.length > 1) throw badRequest(`'${asked[1]![2]}' and '${asked[0]![2]}' each ask for an output format: send one.`, asked[1]![2]);
  const [kind, value, field] = asked[0]!;
  return { spec: specOf(kind, value, field), field, paramAt: (pointer) => (pointer && pointer !== '/' ? `${field}${pointer}` : field) };
}

function specOf(kind: Kind, value: unknown, field: string): GrammarSpec {
  switch (kind) {
    case 'json':
      return { kind: 'json_schema', schema: parseSchema(value, field) };
    case 'json_object':
      return { kind: 'json_object' };
    case 'regex':
      if (value === '') throw badRequest(`${field} needs a regular expression.`, field);
      return { kind: 'regex', pattern: value as string };
    case 'grammar':
      if ((value as string).trim() === '') throw badRequest(`${field} needs EBNF text.`, field);
      return { kind: 'ebnf', text: value as string };
    case 'choice':
      return { kind: 'regex', pattern: (value as string[]).map(escapeRegex).join('|') };
    case 'structural_tag':
      return structuralTagOf(typeof value === 'string' ? parseSchema(value, field) : value, field);
  }
}

/** `text` as a regular expression that matches it alone. */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
