// The Cohere families (`cohere`: Command-A / R7B JSON actions; `cohere_xml`: <cofl:tool_call>
// elements; `command_r`: Command-R / R+'s `Action:` and a fenced JSON list, all plain text, whose
// fence, brackets and indentation the tokenizer merges across the grammar's pieces) at token
// level on a real Cohere vocabulary: Command-R's (llama.cpp's
// ggml-vocab-command-r.gguf, the only Cohere vocabulary in the fixtures). It has the turn tokens
// (<|START_OF_TURN_TOKEN|>, <|CHATBOT_TOKEN|>: user-defined, written as text;
// <|END_OF_TURN_TOKEN|>: the end of generation) but none of the later markers
// (<|START_ACTION|>, <|START_THINKING|>, <|START_RESPONSE|>, <cofl:…>): a model on it writes those
// as ordinary text, several tokens each. Along the tokens llama.cpp's tokenizer gives an output,
// the masks of the tags the server builds equal brute force and accept it up to the end of the
// turn; through the engine's token committer, with and without a grammar, the text reads back
// as the same reasoning, content and calls.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GrammarCompiler, GrammarMatcher, type TokenizerInfo } from '../../compiler/index.js';
import { tokenizerInfoFromGGUF } from '../../compiler/node.js';
import { readGGUF, ggufValue } from '../../compiler/gguf/gguf-file.js';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { MarkupFilter } from '../../runtime/chat-format/answer-markup.js';
import { afterThinking, ReasoningSplitter, type ThinkStart } from '../../runtime/chat-format/reasoning.js';
import { toolCallTag, type ToolChoice, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { detectToolFormat } from '../../runtime/chat-format/tool-format-detect.js';
import { TOOL_FORMATS, type ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import type { Vocabulary } from '../../runtime/backend/vocabulary.js';
import { grammarVocabulary } from '../../runtime/engine/worker/grammar-vocabulary.js';
import { grammarFromSpec, type GrammarSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { advance, type ChatChoice } from '../../runtime/api/chat-completions/chat-choice.js';
import { committedText } from '../helpers/committed-text.js';
import { testRandom as rng } from '../helpers/test-random.js';
import { checkStep, checkWalks, has, shortTokens } from '../grammar/token-oracle.js';

const test = suite('cohere families on Command-R tokens');

const tools: ToolDefinition[] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] }, days: { anyOf: [{ type: 'integer' }, { const: 'all' }] } }, required: ['city'] } },
  { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];
const schemas = new Map(tools.map((t) => [t.name, t.parameters]));
const END_OF_TURN = '<|END_OF_TURN_TOKEN|>';

interface Case {
  key: Extract<ToolFormatKey, 'cohere' | 'cohere_xml' | 'command_r'>;
  name: string;
  /** Where the output starts: inside the think block (Command-A's prompt opens it) or after it. */
  start: ThinkStart;
  choice: Exclude<ToolChoice, { mode: 'none' }>;
  parallel?: boolean;
  /** What the model writes, the end of its turn last. */
  output: string;
  reasoning: string;
  content: string;
  calls: { name: string; arguments: unknown }[];
}

const CASES: Case[] = [
  {
    key: 'cohere',
    name: 'required: thinking, then two numbered calls in a pretty-printed list',
    start: 'open',
    choice: { mode: 'required' },
    output: `I will look it up.<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius", "days": "all"}},\n    {"tool_call_id": "1", "tool_name": "get_time", "parameters": {"zone": "UTC"}}\n]<|END_ACTION|>${END_OF_TURN}`,
    reasoning: 'I will look it up.',
    content: '',
    calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius', days: 'all' } }, { name: 'get_time', arguments: { zone: 'UTC' } }],
  },
  {
    key: 'cohere',
    name: 'auto: a response block, no call',
    start: 'closed',
    choice: { mode: 'auto' },
    output: `<|START_RESPONSE|>It is sunny in Paris.<|END_RESPONSE|>${END_OF_TURN}`,
    reasoning: '',
    content: 'It is sunny in Paris.',
    calls: [],
  },
  {
    key: 'cohere',
    name: 'auto, one call only: thinking, then one call',
    start: 'open',
    choice: { mode: 'auto' },
    parallel: false,
    output: `Time first.<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_time", "parameters": {"zone": "Europe/Paris"}}]<|END_ACTION|>${END_OF_TURN}`,
    reasoning: 'Time first.',
    content: '',
    calls: [{ name: 'get_time', arguments: { zone: 'Europe/Paris' } }],
  },
  {
    key: 'cohere_xml',
    name: 'named: thinking, then a <cofl:tool_call> with raw and JSON values',
    start: 'open',
    choice: { mode: 'named', name: 'get_weather' },
    output: `Searching.<|END_THINKING|><cofl:tool_calls><cofl:tool_call id="0" name="get_weather">\n<cofl:value name="city" type="raw">Paris</cofl:value>\n<cofl:value name="days" type="json">3</cofl:value>\n</cofl:tool_call></cofl:tool_calls>${END_OF_TURN}`,
    reasoning: 'Searching.',
    content: '',
    calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
  },
  {
    key: 'cohere_xml',
    name: 'auto: text, then two calls',
    start: 'closed',
    choice: { mode: 'auto' },
    output: `Checking both.<cofl:tool_calls>\n<cofl:tool_call id="0" name="get_time"><cofl:value name="zone" type="raw">UTC</cofl:value></cofl:tool_call>\n<cofl:tool_call id="1" name="get_weather"><cofl:value name="city" type="raw">Oslo</cofl:value><cofl:value name="unit" type="raw">celsius</cofl:value></cofl:tool_call>\n</cofl:tool_calls>${END_OF_TURN}`,
    reasoning: '',
    content: 'Checking both.',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }, { name: 'get_weather', arguments: { city: 'Oslo', unit: 'celsius' } }],
  },
  {
    key: 'command_r',
    name: 'required: two calls as the tool_use template writes them',
    start: 'closed',
    choice: { mode: 'required' },
    output: `Action:\n\`\`\`json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {\n            "city": "Paris",\n            "unit": "celsius",\n            "days": "all"\n        }\n    },\n    {\n        "tool_name": "get_time",\n        "parameters": {\n            "zone": "UTC"\n        }\n    }\n]\`\`\`${END_OF_TURN}`,
    reasoning: '',
    content: '',
    calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius', days: 'all' } }, { name: 'get_time', arguments: { zone: 'UTC' } }],
  },
  {
    key: 'command_r',
    name: 'auto, one call only: text, then `Action: ```json` and a fence on its own line',
    start: 'closed',
    choice: { mode: 'auto' },
    parallel: false,
    output: `I will check the time.\nAction: \`\`\`json\n[\n    {\n        "tool_name": "get_time",\n        "parameters": {"zone": "Europe/Paris"}\n    }\n]\n\`\`\`${END_OF_TURN}`,
    reasoning: '',
    content: 'I will check the time.',
    calls: [{ name: 'get_time', arguments: { zone: 'Europe/Paris' } }],
  },
  {
    key: 'command_r',
    name: 'named: one call with an integer that a string would also fit',
    start: 'closed',
    choice: { mode: 'named', name: 'get_weather' },
    output: `Action:\n\`\`\`json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {\n            "city": "Oslo",\n            "days": 2\n        }\n    }\n]\`\`\`${END_OF_TURN}`,
    reasoning: '',
    content: '',
    calls: [{ name: 'get_weather', arguments: { city: 'Oslo', days: 2 } }],
  },
];

function serverSpec(c: Case): GrammarSpec {
  const format = TOOL_FORMATS[c.key];
  const spec: GrammarSpec = { kind: 'structural_tag', tag: toolCallTag(format, tools, c.choice, c.parallel ?? true) };
  return c.start === 'closed' ? spec : afterThinking(spec, c.start, format.thinking);
}

let loaded: { vocab: Vocabulary; info: TokenizerInfo; dispose(): void } | undefined;
async function commandR() {
  if (!loaded) {
    const { api } = loadLlamaLibrary({ kinds: ['cpu'] });
    const model = await LlamaModel.create(api, { path: await vocabularyPath('command-r'), devices: listDevices(api).filter((d) => d.kind === 'cpu'), vocabOnly: true });
    loaded = { vocab: model.vocabulary, info: grammarVocabulary(model.vocabulary), dispose: () => model.dispose() };
  }
  return loaded;
}

const tokensOf = (vocab: Vocabulary, text: string) => Array.from(vocab.tokenize(text, { parseSpecial: true }));

test('Command-R\'s vocabulary: turn tokens are single tokens, Command-A\'s markers are text; the GGUF reader agrees with llama.cpp', async () => {
  const { vocab, info } = await commandR();
  const one = (text: string) => {
    const ids = tokensOf(vocab, text);
    assert.is(ids.length, 1, text);
    return ids[0]!;
  };
  assert.not.ok(vocab.isControl(one('<|START_OF_TURN_TOKEN|>')));
  assert.not.ok(vocab.isControl(one('<|CHATBOT_TOKEN|>')));
  assert.ok(vocab.isEndOfGeneration(one(END_OF_TURN)));
  for (const marker of ['<|START_ACTION|>', '<|END_ACTION|>', '<|START_THINKING|>', '<|END_THINKING|>', '<|START_RESPONSE|>', '<|START_TEXT|>', '<cofl:tool_calls>']) {
    assert.ok(tokensOf(vocab, marker).length > 1, `${marker} is written as text`);
  }
  // Command-R's own markers are ordinary text, and its tokens run across the grammar's pieces:
  // ` ```` joins `Action:`'s optional space to the fence, ` {` a gap's last space to a call.
  for (const id of tokensOf(vocab, 'Action:\n```json\n[\n    {\n        "tool_name"')) assert.not.ok(vocab.isControl(id), vocab.text(id));
  const pieces = tokensOf(vocab, 'Action: ```json\n[\n    {').map((id) => vocab.text(id));
  for (const joined of [' ```', ' {']) assert.ok(pieces.includes(joined), `${JSON.stringify(joined)} among ${JSON.stringify(pieces)}`);
  assert.is((await tokenizerInfoFromGGUF(await vocabularyPath('command-r'))).fingerprint, info.fingerprint);
});

test('Command-R\'s own templates: the default one renders no tools (the server adds the Hermes prompt); Command-A\'s and R7B\'s are Cohere', async () => {
  const file = await readGGUF(await vocabularyPath('command-r'));
  const detected = detectToolFormat(ggufValue(file, 'tokenizer.chat_template') as string);
  assert.equal([detected.key, detected.templateKnowsTools], ['hermes', false]);
  const templates = join(dirname(await vocabularyPath('command-r')), 'templates');
  for (const name of ['Cohere2MoE.jinja', 'CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja']) {
    assert.is(detectToolFormat(await readFile(join(templates, name), 'utf8')).key, 'cohere', name);
  }
});

CASES.forEach((c, i) => {
  test(`${c.key}: mask = brute force along Command-R's tokens, accepted to the end of the turn: ${c.name}`, async () => {
    const { vocab, info } = await commandR();
    const compiled = new GrammarCompiler(info).compile(grammarFromSpec(serverSpec(c)));
    const ids = tokensOf(vocab, c.output);
    const short = shortTokens(info);
    const rand = rng(i * 7919 + 29);
    const m = new GrammarMatcher(compiled);
    // Brute force (256k tokens a step) where the calls or the answer begin, halfway, and at the end.
    const opening = ['<|START_ACTION|>', '<cofl:tool_calls>', '<|START_RESPONSE|>', 'Action:'].map((s) => c.output.indexOf(s)).filter((k) => k >= 0);
    const at = Math.min(...opening);
    let written = 0;
    const openStep = ids.findIndex((id) => (written += vocab.piece(id).length) > at); // ASCII outputs: bytes are characters
    const brute = new Set([openStep, ids.length >> 1, ids.length - 1]);
    ids.forEach((id, step) => {
      const mask = checkStep(m, info, short, brute.has(step), rand, `${c.name}, step ${step}`);
      assert.ok(has(mask, id), `${c.name}: token ${step} (${id} ${JSON.stringify(vocab.text(id))}) is allowed`);
      assert.ok(m.acceptToken(id), `${c.name}: token ${step} is accepted`);
    });
    assert.ok(m.isTerminated(), 'the end of the turn ends the output');
    checkWalks(compiled, info, short, c.name, undefined, rng(i * 31 + 7));
  });
});


const PROMPT = '<|START_OF_TURN_TOKEN|><|USER_TOKEN|>Weather?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>';

test('through the engine\'s committer, with the grammar and without one, the text reads back as the same reasoning, content and calls', async () => {
  const { vocab, info } = await commandR();
  for (const c of CASES) {
    const format = TOOL_FORMATS[c.key];
    for (const spec of [serverSpec(c), undefined]) {
      const { text, finish } = committedText(vocab, info, tokensOf(vocab, c.output), { prompt: PROMPT, turnOpener: '<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>', ...(spec ? { spec } : {}) });
      assert.is(finish, 'stop', 'the end of the turn ends the choice');
      assert.is(text, c.output.slice(0, -END_OF_TURN.length), `${c.name}: all but the end of the turn is text`);
      const parser = new ToolCallParser(format, schemas, 'call_', c.choice.mode !== 'auto');
      const choice: ChatChoice = { finish: undefined, parser, splitter: c.start === 'closed' ? undefined : new ReasoningSplitter(c.start, format.thinking), markup: new MarkupFilter(format.markup ?? []) };
      const deltas = [...advance(choice, text), ...advance(choice, undefined)];
      const got = {
        reasoning: deltas.map((d) => d.reasoning_content ?? '').join(''),
        content: deltas.map((d) => d.content ?? '').join(''),
        calls: parser.toolCalls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown })),
      };
      assert.equal(got, { reasoning: c.reasoning, content: c.content, calls: c.calls }, `${c.key} ${c.name}${spec ? '' : ' (no grammar)'}`);
    }
  }
});

test.after(() => loaded?.dispose());

test.run();
