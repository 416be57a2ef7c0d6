// Every node kind at the token level on a real vocabulary (Qwen2, 152k tokens): strings are
// tokenized by llama.cpp itself, then fed token by token. An accepted string must have each of
// its tokens allowed by the mask before it is accepted, and end where a stop token is allowed;
// a rejected one must meet a token the mask forbids, or end where the grammar cannot.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarCompiler, GrammarMatcher } from '../../compiler/index.js';
import { grammarVocabulary } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import type { Vocabulary } from '../../runtime/backend/vocabulary.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';

const test = suite<{ vocabulary: Vocabulary; compiler: GrammarCompiler; byText: Map<string, number>; model: LlamaModel }>('structural tags on a real vocabulary');

test.before(async (context) => {
  const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
  context.model = await LlamaModel.create(api, { path: await vocabularyPath('qwen2'), devices: listDevices(api), vocabOnly: true });
  const vocabulary = context.model.vocabulary;
  context.vocabulary = vocabulary;
  // The vocabulary exactly as the engine hands it to the grammar compiler.
  const info = grammarVocabulary(vocabulary);
  context.compiler = new GrammarCompiler(info);
  context.byText = new Map();
  for (let id = 0; id < vocabulary.size; id++) if (!context.byText.has(vocabulary.text(id))) context.byText.set(vocabulary.text(id), id);
});
test.after((context) => {
  context.model.dispose();
});

type Verdict = 'accepted' | `rejected: ${string}`;

function feed(context: { vocabulary: Vocabulary; compiler: GrammarCompiler; byText: Map<string, number> }, format: unknown, text: string): Verdict {
  const grammar = Grammar.fromStructuralTag(format, { resolveToken: (t) => context.byText.get(t), vocabSize: context.vocabulary.size });
  const matcher = new GrammarMatcher(context.compiler.compile(grammar));
  const mask = new Uint32Array(Math.ceil(context.vocabulary.size / 32));
  const allowed = (id: number) => ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;
  for (const token of context.vocabulary.tokenize(text, { parseSpecial: true })) {
    matcher.fillNextTokenBitmask(mask);
    const masked = allowed(token);
    const accepted = matcher.fork().acceptToken(token);
    // The mask and the matcher must agree on every token, whatever the verdict.
    assert.is(masked, accepted, `mask and acceptToken disagree on token ${token} (${JSON.stringify(context.vocabulary.text(token))}) in ${JSON.stringify(text)}`);
    if (!accepted) return `rejected: token ${JSON.stringify(context.vocabulary.text(token))}`;
    matcher.acceptToken(token);
  }
  if (matcher.isTerminated()) return 'accepted'; // the text ended with a stop token the grammar allowed
  matcher.fillNextTokenBitmask(mask);
  const eos = context.vocabulary.endOfGeneration[0]!;
  return allowed(eos) && matcher.isCompleted() ? 'accepted' : 'rejected: cannot end here';
}

const json = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] };
const cases: [string, unknown, string[], string[]][] = [
  ['const_string', { type: 'const_string', value: 'Hello, world' }, ['Hello, world'], ['Hello', 'Hello, world!']],
  ['json_schema', { type: 'json_schema', json_schema: json }, ['{"city": "Paris", "days": 3}', '{"city":"Oslo"}'], ['{"days": 3}', '{"city": 5}']],
  ['any_text', { type: 'any_text', excludes: ['STOP'] }, ['any text at all, 好'], ['text with STOP inside']],
  ['token', { type: 'token', token: '<|im_start|>' }, ['<|im_start|>'], ['im_start', 'Hello']],
  ['exclude_token', { type: 'exclude_token', exclude_tokens: ['<|im_start|>', 'Hello'] }, [' world'], ['Hello', '<|im_start|>']],
  ['any_tokens', { type: 'any_tokens', exclude_tokens: ['<|im_start|>'] }, ['any words here'], ['words<|im_start|>']],
  ['grammar', { type: 'grammar', grammar: 'root ::= ("yes" | "no") "."' }, ['yes.', 'no.'], ['maybe.', 'yes']],
  ['regex', { type: 'regex', pattern: '\\d{3}-[a-z]+' }, ['123-abc'], ['12-abc', '123-ABC']],
  ['qwen_xml_parameter', { type: 'qwen_xml_parameter', json_schema: json }, ['<parameter=city>Paris</parameter>'], ['<parameter=town>Paris</parameter>']],
  ['sequence', { type: 'sequence', elements: [{ type: 'const_string', value: 'A:' }, { type: 'regex', pattern: '[0-9]+' }] }, ['A:42'], ['A:', 'B:42']],
  ['or', { type: 'or', elements: [{ type: 'const_string', value: 'cat' }, { type: 'const_string', value: 'dog' }] }, ['cat', 'dog'], ['cow']],
  ['tag', { type: 'tag', begin: '<r>', content: { type: 'json_schema', json_schema: json }, end: '</r>' }, ['<r>{"city": "Rome"}</r>'], ['<r>{"city": "Rome"}', '{"city": "Rome"}']],
  ['triggered_tags', { type: 'triggered_tags', triggers: ['<f'], tags: [{ begin: '<f1>', content: { type: 'json_schema', json_schema: json }, end: '</f1>' }] }, ['free text <f1>{"city": "Lima"}</f1> more text', 'only text'], ['text <f1>{"town": 1}</f1>']],
  ['token_triggered_tags', { type: 'token_triggered_tags', trigger_tokens: ['<|im_start|>'], tags: [{ begin: { type: 'token', token: '<|im_start|>' }, content: { type: 'const_string', value: 'tool' }, end: ']' }] }, ['text<|im_start|>tool] more'], ['text<|im_start|>user]']],
  ['tags_with_separator', { type: 'tags_with_separator', separator: ',', tags: [{ begin: '[', content: { type: 'regex', pattern: '[a-z]+' }, end: ']' }] }, ['[ab],[cd]', ''], ['[ab][cd]', 'x[ab]']],
  ['optional', { type: 'sequence', elements: [{ type: 'optional', content: { type: 'const_string', value: 'Mr. ' } }, { type: 'const_string', value: 'Smith' }] }, ['Smith', 'Mr. Smith'], ['Mr. Mr. Smith']],
  ['plus', { type: 'plus', content: { type: 'const_string', value: 'ha' } }, ['ha', 'hahaha'], ['', 'hah']],
  ['star', { type: 'star', content: { type: 'const_string', value: 'ab' } }, ['', 'abab'], ['aba']],
  ['repeat', { type: 'repeat', min: 2, max: 3, content: { type: 'const_string', value: 'x' } }, ['xx', 'xxx'], ['x', 'xxxx']],
  ['dispatch', { type: 'dispatch', rules: [['<n>', { type: 'regex', pattern: '[0-9]+</n>' }]], loop: true }, ['see <n>12</n> and <n>3</n>.'], ['see <n>ab</n>']],
  ['token_dispatch', { type: 'token_dispatch', rules: [['<|im_start|>', { type: 'const_string', value: 'assistant' }]], loop: false }, ['hi<|im_start|>assistant'], ['hi<|im_start|>user']],
];

for (const [kind, format, accept, reject] of cases) {
  test(`${kind}: token by token, llama.cpp's own tokenization`, (context) => {
    for (const text of accept) assert.is(feed(context, format, text), 'accepted', `${kind} should accept ${JSON.stringify(text)}`);
    for (const text of reject) assert.ok(feed(context, format, text).startsWith('rejected'), `${kind} should reject ${JSON.stringify(text)}`);
  });
}

test.run();
