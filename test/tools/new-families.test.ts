// The Kimi-K3, Cohere (Command-A/R7B JSON actions and cofl XML) and Harmony (gpt-oss) families
// end to end on the pure side of the server: the real chat templates from llama.cpp's source
// tree are recognised and render a prompt whose end says where thinking starts; a whole model
// output goes through the server's pipeline (the family's thinking split off, then the tool-call
// parser), streamed at every chunking and whole, into reasoning, content and tool_calls; and the
// grammar the server compiles (thinking, then the calls) accepts that output and refuses
// malformed ones.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { vocabularyPath } from '../../fixtures/vocabularies.js';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { afterThinking, ReasoningSplitter, thinkStartOf, modelThinks, type ThinkStart } from '../../runtime/chat-format/reasoning.js';
import { toolCallTag, type ToolChoice, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { detectToolFormat } from '../../runtime/chat-format/tool-format-detect.js';
import { THINK_TAGS, TOOL_FORMATS, type ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';
import { grammarFromSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { advance, type ChatChoice, type MessageDelta } from '../../runtime/api/chat-completions/chat-choice.js';
import { MarkupFilter } from '../../runtime/chat-format/answer-markup.js';
import { accepts } from '../compiler/helpers.js';
import { foldDeltas } from '../helpers/stream-deltas.js';

const test = suite('new tool-call families');

const tools: ToolDefinition[] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] }, days: { anyOf: [{ type: 'integer' }, { const: 'all' }] } }, required: ['city'] } },
  { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];
const schemas = new Map(tools.map((t) => [t.name, t.parameters]));

async function realTemplate(file: string): Promise<string> {
  const models = dirname(await vocabularyPath('gpt-2'));
  return readFile(join(models, 'templates', file), 'utf8');
}

/** The deltas of one choice, as the server makes them, folded as a client would. */
function pipeline(key: ToolFormatKey, start: ThinkStart, pieces: string[]) {
  const format = TOOL_FORMATS[key];
  const choice: ChatChoice = { finish: undefined, parser: new ToolCallParser(format, schemas, 'call_'), splitter: start === 'closed' ? undefined : new ReasoningSplitter(start, format.thinking ?? THINK_TAGS) };
  const deltas: MessageDelta[] = [...pieces.flatMap((p) => advance(choice, p)), ...advance(choice, undefined)];
  const reasoning = deltas.map((d) => d.reasoning_content ?? '').join('');
  const { content, calls } = foldDeltas(deltas);
  return { reasoning, content, calls: calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) as unknown })), whole: choice.parser!.message };
}

function chunkings(text: string): string[][] {
  const out = [[text], [...text]];
  for (const size of [2, 3, 7, 13]) out.push(Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size)));
  return out;
}

interface Case {
  key: ToolFormatKey;
  template: string;
  /** A conversation the template renders with a generation prompt, and where thinking then starts. */
  start: ThinkStart;
  output: string;
  reasoning: string;
  content: string;
  calls: { name: string; arguments: unknown }[];
  choice: Exclude<ToolChoice, { mode: 'none' }>;
  malformed: string[];
}

const weather = { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius', days: 'all' } };

const CASES: Case[] = [
  {
    key: 'kimi_k3',
    template: 'Kimi-K3.jinja',
    start: 'open',
    output:
      'The user wants weather.<|close|>think<|sep|><|open|>response<|sep|>Checking.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>' +
      '<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|open|>argument key="unit" type="string"<|sep|>celsius<|close|>argument<|sep|><|open|>argument key="days" type="string"<|sep|>all<|close|>argument<|sep|>' +
      '<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
    reasoning: 'The user wants weather.',
    content: 'Checking.',
    calls: [weather],
    choice: { mode: 'auto' },
    malformed: [
      'x<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="number"<|sep|>3<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
      'x<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="one"<|sep|><|open|>argument key="city" type="string"<|sep|>P<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
    ],
  },
  {
    key: 'kimi_k3',
    template: 'Kimi-K3.jinja',
    start: 'open',
    output: 'Must call.<|close|>think<|sep|><|open|>response<|sep|><|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_time" index="1"<|sep|><|open|>argument key="zone" type="string"<|sep|>UTC<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>',
    reasoning: 'Must call.',
    content: '',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }],
    choice: { mode: 'required' },
    malformed: ['Must call.<|close|>think<|sep|><|open|>response<|sep|>No.<|close|>response<|sep|><|close|>message<|sep|>'],
  },
  {
    key: 'cohere',
    template: 'Cohere2MoE.jinja',
    start: 'open',
    output: 'I will look it up.<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius", "days": "all"}},\n    {"tool_call_id": "1", "tool_name": "get_time", "parameters": {"zone": "UTC"}}\n]<|END_ACTION|>',
    reasoning: 'I will look it up.',
    content: '',
    calls: [weather, { name: 'get_time', arguments: { zone: 'UTC' } }],
    choice: { mode: 'required' },
    malformed: [
      'x<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}},]<|END_ACTION|>',
      'x<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "a", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>',
      'x<|END_THINKING|><|START_ACTION|>[]<|END_ACTION|>',
    ],
  },
  {
    key: 'cohere',
    template: 'CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja',
    start: 'closed',
    output: '<|START_RESPONSE|>It is sunny in Paris.<|END_RESPONSE|>',
    reasoning: '',
    content: 'It is sunny in Paris.',
    calls: [],
    choice: { mode: 'auto' },
    malformed: [],
  },
  {
    key: 'cohere_xml',
    template: '',
    start: 'open',
    output: 'Searching.<|END_THINKING|><cofl:tool_calls><cofl:tool_call id="0" name="get_weather">\n<cofl:value name="city" type="raw">Paris</cofl:value>\n<cofl:value name="days" type="json">3</cofl:value>\n</cofl:tool_call></cofl:tool_calls>',
    reasoning: 'Searching.',
    content: '',
    calls: [{ name: 'get_weather', arguments: { city: 'Paris', days: 3 } }],
    choice: { mode: 'named', name: 'get_weather' },
    malformed: [
      'x<|END_THINKING|><cofl:tool_calls><cofl:tool_call id="0" name="get_weather"><cofl:value name="city" type="json">"Paris"</cofl:value></cofl:tool_call></cofl:tool_calls>',
      'x<|END_THINKING|><cofl:tool_calls><cofl:tool_call id="0" name="get_time"><cofl:value name="zone" type="raw">UTC</cofl:value></cofl:tool_call></cofl:tool_calls>',
    ],
  },
  {
    key: 'harmony',
    template: 'openai-gpt-oss-120b.jinja',
    start: 'model',
    output: '<|channel|>analysis<|message|>Need the weather tool.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris","unit":"celsius","days":"all"}',
    reasoning: 'Need the weather tool.',
    content: '',
    calls: [weather],
    choice: { mode: 'auto' },
    malformed: ['<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":3}'],
  },
  {
    key: 'harmony',
    template: 'openai-gpt-oss-120b.jinja',
    start: 'model',
    output: '<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>commentary<|message|>Looking it up.<|end|><|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone": "UTC"}',
    reasoning: 'Plan.',
    content: 'Looking it up.',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }],
    choice: { mode: 'auto' },
    malformed: [],
  },
  {
    key: 'harmony',
    template: 'openai-gpt-oss-120b.jinja',
    start: 'model',
    output: '<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>Paris is sunny.',
    reasoning: 'Easy.',
    content: 'Paris is sunny.',
    calls: [],
    choice: { mode: 'auto' },
    malformed: [],
  },
  {
    key: 'harmony',
    template: 'openai-gpt-oss-120b.jinja',
    start: 'model',
    output: '<|channel|>analysis<|message|>Call it.<|end|><|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{"zone": "UTC"}',
    reasoning: 'Call it.',
    content: '',
    calls: [{ name: 'get_time', arguments: { zone: 'UTC' } }],
    choice: { mode: 'required' },
    malformed: ['<|channel|>analysis<|message|>x<|end|><|start|>assistant<|channel|>final<|message|>No call.'],
  },
];

test('the real templates are recognised, think with their own markers, and their prompts say where thinking starts', async () => {
  const rendered = async (file: string) => {
    const source = await realTemplate(file);
    return { source, prompt: new ChatTemplate(source, { bos: '', eos: '' }).render([{ role: 'user', content: 'Weather in Paris?' }], { addGenerationPrompt: true }) };
  };
  for (const [file, key, start] of [
    ['Kimi-K3.jinja', 'kimi_k3', 'open'],
    ['Cohere2MoE.jinja', 'cohere', 'open'],
    ['CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja', 'cohere', 'closed'],
    ['openai-gpt-oss-120b.jinja', 'harmony', 'model'],
  ] as const) {
    const { source, prompt } = await rendered(file);
    const detected = detectToolFormat(source);
    assert.is(detected.key, key, file);
    const markers = TOOL_FORMATS[key].thinking!;
    assert.ok(modelThinks('auto', source, markers), `${file} thinks`);
    assert.is(thinkStartOf(prompt, markers), start, `${file}: ${JSON.stringify(prompt.slice(-60))}`);
  }
  // Thinking switched off through the templates' own variables: the prompt opens the answer.
  const off = async (file: string, variables: Record<string, unknown>) =>
    new Template(await realTemplate(file)).render({ messages: [{ role: 'user', content: 'Hi' }], add_generation_prompt: true, bos_token: '', eos_token: '', ...variables });
  assert.is(thinkStartOf(await off('Kimi-K3.jinja', { thinking: false }), TOOL_FORMATS.kimi_k3.thinking), 'closed');
  assert.is(thinkStartOf(await off('Cohere2MoE.jinja', { reasoning: false }), TOOL_FORMATS.cohere.thinking), 'closed');
});

CASES.forEach((c, i) => {
  test(`${c.key} #${i}: reasoning, content and calls, streamed and whole; the grammar accepts the output`, () => {
    for (const pieces of chunkings(c.output)) {
      const got = pipeline(c.key, c.start, pieces);
      assert.is(got.reasoning, c.reasoning, `reasoning of ${JSON.stringify(pieces)}`);
      assert.is(got.content, c.content, `content of ${JSON.stringify(pieces)}`);
      assert.equal(got.calls, c.calls, `calls of ${JSON.stringify(pieces)}`);
      assert.equal(got.whole.toolCalls.map((t) => ({ name: t.name, arguments: JSON.parse(t.arguments) })), c.calls);
    }
    const format = TOOL_FORMATS[c.key];
    const spec = { kind: 'structural_tag' as const, tag: toolCallTag(format, tools, c.choice, true) };
    const grammar = accepts(grammarFromSpec(c.start === 'closed' ? spec : afterThinking(spec, c.start, format.thinking)));
    assert.ok(grammar(c.output), `the grammar accepts ${JSON.stringify(c.output)}`);
    for (const bad of c.malformed) assert.not.ok(grammar(bad), `the grammar refuses ${JSON.stringify(bad)}`);
  });
});

test('without tools: the answer markup stays out of the content, and a response_format may follow it', () => {
  for (const [key, output, reasoning, answer] of [
    ['kimi_k3', 'Hmm.<|close|>think<|sep|><|open|>response<|sep|>{"ok": true}<|close|>response<|sep|><|close|>message<|sep|>', 'Hmm.', '{"ok": true}'],
    ['cohere', 'Hmm.<|END_THINKING|><|START_RESPONSE|>{"ok": true}<|END_RESPONSE|>', 'Hmm.', '{"ok": true}'],
    ['harmony', '<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>final<|message|>{"ok": true}', 'Hmm.', '{"ok": true}'],
  ] as const) {
    const format = TOOL_FORMATS[key];
    const start = key === 'harmony' ? 'model' : 'open';
    for (const pieces of chunkings(output)) {
      const choice: ChatChoice = { finish: undefined, parser: undefined, splitter: new ReasoningSplitter(start, format.thinking), markup: new MarkupFilter(format.markup ?? []) };
      const deltas = [...pieces.flatMap((p) => advance(choice, p)), ...advance(choice, undefined)];
      assert.is(deltas.map((d) => d.reasoning_content ?? '').join(''), reasoning, `${key} reasoning of ${JSON.stringify(pieces)}`);
      assert.is(deltas.map((d) => d.content ?? '').join(''), answer, `${key} content of ${JSON.stringify(pieces)}`);
    }
    // A response_format after the thinking: the answer's opening markup may come first.
    const json = { kind: 'json_schema' as const, schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } };
    const grammar = accepts(grammarFromSpec(afterThinking(json, start, format.thinking)));
    const lead = format.thinking!.answerLeads![0]!;
    const thinking = key === 'harmony' ? `${format.thinking!.open}Hmm.${format.thinking!.close}` : `Hmm.${format.thinking!.close}`;
    assert.ok(grammar(`${thinking}${lead}{"ok": true}`), `${key}: with the answer's markup`);
    assert.ok(grammar(`${thinking}{"ok": true}`), `${key}: without it`);
    assert.not.ok(grammar(`${thinking}${lead}${lead}{"ok": true}`), `${key}: the markup once`);
  }
});

test.run();
