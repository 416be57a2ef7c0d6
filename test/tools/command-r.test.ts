// Cohere's Command-R and Command-R+ (`command_r`: `Action:`, then a fenced JSON list of
// {"tool_name", "parameters"} objects) and Command-R7B (`cohere`: a <|START_ACTION|> list of
// numbered calls) through their real tool_use templates from llama.cpp's tree: each template is
// recognised as its family; a conversation with calls and results renders through it as the
// server renders it, and the calls the template writes for the assistant's turn are what the
// grammar the server builds accepts and what the parser reads back; a model output streams, at
// every chunking, to exactly the whole response; the grammar enforces tool_choice auto, required
// and named, parallel_tool_calls and the parameters' schemas.
import { readFile } from 'node:fs/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { llamaTemplatePath } from '../../fixtures/vocabularies.js';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { modelThinks, thinkStartOf } from '../../runtime/chat-format/reasoning.js';
import { toolCallTag, type ToolChoice, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser, type ParsedDelta } from '../../runtime/chat-format/tool-call-parser.js';
import { detectToolFormat } from '../../runtime/chat-format/tool-format-detect.js';
import { TOOL_FORMATS, type ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';
import { renderToolCall } from '../../runtime/chat-format/tool-prompt.js';
import { grammarFromSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { toGenerateRequest } from '../../runtime/api/chat-completions/chat-prompt.js';
import { parseChatRequest } from '../../runtime/api/chat-completions/chat-request.js';
import type { CompletionContext } from '../../runtime/api/completion-context.js';
import type { EngineClient } from '../../runtime/engine/client/engine-client.js';
import { toolSetupOf } from '../../runtime/api/chat-completions/tool-calls.js';
import { accepts } from '../compiler/helpers.js';
import { foldDeltas } from '../helpers/stream-deltas.js';

const test = suite('Command-R tool calls');

const COMMAND_R_PLUS = 'CohereForAI-c4ai-command-r-plus-tool_use';
const COMMAND_R7B = 'CohereForAI-c4ai-command-r7b-12-2024-tool_use';
const template = async (name: string) => readFile(await llamaTemplatePath(name), 'utf8');

const weatherSchema = { type: 'object', properties: { city: { type: 'string', description: 'The city' }, days: { type: 'integer', description: 'How many days' } }, required: ['city'] };
const timeSchema = { type: 'object', properties: { zone: { type: 'string', description: 'A time zone' } }, required: ['zone'] };
const tools: ToolDefinition[] = [
  { name: 'get_weather', description: 'The weather in a city.', parameters: weatherSchema },
  { name: 'get_time', description: 'The time in a zone.', parameters: timeSchema },
];
const schemas = new Map(tools.map((t) => [t.name, t.parameters]));
const format = TOOL_FORMATS.command_r;

const grammar = (key: ToolFormatKey, choice: Exclude<ToolChoice, { mode: 'none' }>, parallel = true) =>
  accepts(grammarFromSpec({ kind: 'structural_tag', tag: toolCallTag(TOOL_FORMATS[key], tools, choice, parallel) }));

function parse(key: ToolFormatKey, text: string, startsWithCall = false) {
  const parser = new ToolCallParser(TOOL_FORMATS[key], schemas, 'call_', startsWithCall);
  parser.push(text);
  parser.finish();
  return { content: parser.message.content, calls: parser.toolCalls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) as unknown })) };
}

test('the real templates: Command-R+ writes command_r calls (it was taken for Hermes), Command-R7B Cohere actions', async () => {
  const plus = await template(COMMAND_R_PLUS);
  const detected = detectToolFormat(plus);
  assert.equal([detected.key, detected.templateKnowsTools], ['command_r', true]);
  assert.not.ok(modelThinks('auto', plus), 'Command-R+ does not think');
  const r7b = await template(COMMAND_R7B);
  assert.is(detectToolFormat(r7b).key, 'cohere', 'R7B: its template says "Action:" and "```json" too, but writes <|START_ACTION|>');
  const prompt = new ChatTemplate(r7b, { bos: '', eos: '' }).render([{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true, tools: [] });
  assert.is(thinkStartOf(prompt, TOOL_FORMATS.cohere.thinking), 'closed', 'R7B\'s prompt closes an empty think block unless thinking is asked for');
});

// A conversation with a round of two calls and their results, as a client sends it (one
// call's arguments as JSON text, the other as an object).
const conversation = {
  model: 'm',
  tools: tools.map((t) => ({ type: 'function' as const, function: t })),
  messages: [
    { role: 'user', content: 'Weather in Paris, and the time in UTC?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "days": 3}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: { zone: 'UTC' } } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: '18 C, sunny' },
    { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
    { role: 'user', content: 'And in Oslo?' },
  ],
};
const madeCalls = [
  { name: 'get_weather', arguments: { city: 'Paris', days: 3 } },
  { name: 'get_time', arguments: { zone: 'UTC' } },
];

/** The prompt the server renders for the conversation with this template and family. */
function serverPrompt(source: string, key: ToolFormatKey): string {
  const request = parseChatRequest(conversation);
  const context = {
    engine: { info: { addBos: false, bosText: '' } } as unknown as EngineClient,
    template: new ChatTemplate(source, { bos: '<BOS_TOKEN>', eos: '<|END_OF_TURN_TOKEN|>' }),
    tools: { format: TOOL_FORMATS[key], templateKnowsTools: true, arguments: 'object' },
    reasoning: false,
  } as CompletionContext;
  const { prompt } = toGenerateRequest(request, context, 'trace', toolSetupOf(request, TOOL_FORMATS[key]));
  assert.type(prompt, 'string');
  return prompt as string;
}

/** The part of `text` from `open` (after `after`) through `close`. */
function between(text: string, after: string, open: string, close: string): string {
  const at = text.indexOf(after + open);
  assert.ok(at >= 0, `${JSON.stringify(after + open)} in the prompt`);
  const start = at + after.length;
  const end = text.indexOf(close, start);
  assert.ok(end >= 0, `${JSON.stringify(close)} after it`);
  return text.slice(start, end + close.length);
}

test('Command-R+: the conversation renders through the real template, and the calls it writes are accepted and read back', async () => {
  const prompt = serverPrompt(await template(COMMAND_R_PLUS), 'command_r');
  assert.ok(prompt.includes('def get_weather(city: str, days: Optional[int] = None) -> List[Dict]:'), 'the tools as Python signatures');
  assert.ok(prompt.includes('<results>\n18 C, sunny</results>') && prompt.includes('<results>\n12:00</results>'), 'both results');
  assert.ok(prompt.endsWith('<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>'), 'the generation prompt last');
  const written = between(prompt, '<|CHATBOT_TOKEN|>\n', 'Action:', ']```');
  assert.is(written, 'Action:\n```json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {\n            "city": "Paris",\n            "days": 3\n        }\n    },\n    {\n        "tool_name": "get_time",\n        "parameters": {\n            "zone": "UTC"\n        }\n    }\n]```');
  assert.ok(grammar('command_r', { mode: 'required' })(written), 'required accepts the template\'s calls');
  assert.ok(grammar('command_r', { mode: 'auto' })(`I will check both.\n${written}`), 'auto accepts text, then the calls');
  assert.not.ok(grammar('command_r', { mode: 'required' }, false)(written), 'parallel_tool_calls: false refuses two calls');
  assert.not.ok(grammar('command_r', { mode: 'named', name: 'get_weather' })(written), 'named refuses a second call');
  assert.equal(parse('command_r', written, true), { content: null, calls: madeCalls });
  // One call, as the template writes it, for each of the other choices.
  const one = written.replace(/,\n    \{\n        "tool_name": "get_time"[^]*\n    \}(?=\n\]```$)/, '');
  assert.ok(one.length < written.length && one.endsWith('\n    }\n]```'), one);
  assert.ok(grammar('command_r', { mode: 'named', name: 'get_weather' })(one), 'named accepts its call');
  assert.ok(grammar('command_r', { mode: 'required' }, false)(one), 'parallel_tool_calls: false accepts one call');
  assert.not.ok(grammar('command_r', { mode: 'named', name: 'get_time' })(one), 'named refuses a call to another tool');
});

test('Command-R7B: the conversation renders through the real template, and the calls it writes are Cohere actions, accepted and read back', async () => {
  const prompt = serverPrompt(await template(COMMAND_R7B), 'cohere');
  assert.ok(prompt.includes('"tool_call_id": "0",\n        "results": {\n            "0": "18 C, sunny"'), 'the first result, by the call\'s position');
  assert.ok(prompt.includes('"tool_call_id": "1",\n        "results": {\n            "0": "12:00"'), 'the second result');
  assert.ok(prompt.endsWith('<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|><|END_THINKING|>'), JSON.stringify(prompt.slice(-80)));
  const written = between(prompt, '<|END_THINKING|>', '<|START_ACTION|>', '<|END_ACTION|>');
  assert.is(written, '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris", "days": 3}},\n    {"tool_call_id": "1", "tool_name": "get_time", "parameters": {"zone": "UTC"}}\n]<|END_ACTION|>');
  assert.ok(grammar('cohere', { mode: 'required' })(written), 'required accepts the template\'s calls');
  assert.ok(grammar('cohere', { mode: 'auto' })(`<|START_RESPONSE|>Checking.<|END_RESPONSE|>${written}`), 'auto accepts a response, then the calls');
  assert.not.ok(grammar('cohere', { mode: 'required' }, false)(written), 'parallel_tool_calls: false refuses two calls');
  assert.equal(parse('cohere', written, true), { content: null, calls: madeCalls });
});

const CALL = (name: string, args: string) => `{\n        "tool_name": "${name}",\n        "parameters": ${args}\n    }`;
const action = (...calls: string[]) => `Action:\n\`\`\`json\n[\n    ${calls.join(',\n    ')}\n]\`\`\``;

test('the grammar: the spellings Cohere\'s examples use too, the schemas, the tools, and nothing but calls when required', () => {
  const required = grammar('command_r', { mode: 'required' });
  const auto = grammar('command_r', { mode: 'auto' });
  const weather = CALL('get_weather', '{"city": "Oslo"}');
  assert.ok(required(action(weather)));
  assert.ok(required(`Action: \`\`\`json\n[\n    ${weather}\n]\n\`\`\``), '`Action: ```json` on one line, the fence on a line of its own');
  assert.ok(required(`Action:\n\`\`\`json\n[${weather}]\`\`\``), 'no whitespace around the call');
  assert.ok(auto('It is sunny in Oslo.'), 'auto: an answer without calls');
  assert.ok(auto(`Let me see.\n${action(weather)}`), 'auto: text, then calls');
  for (const bad of [
    'It is sunny in Oslo.',
    'Action:\n```json\n[]```',
    action(CALL('get_weather', '{"city": 3}')),
    action(CALL('get_weather', '{"days": 2}')),
    action(CALL('directly-answer', '{}')),
    action(`{"tool_name": "get_weather", "parameters": {"city": "Oslo"}}`),
    `Action:\n\`\`\`\n[\n    ${weather}\n]\`\`\``,
    `Action:\n\`\`\`json\n[\n    ${weather},\n]\`\`\``,
    action(weather).slice(0, -1),
  ]) assert.not.ok(required(bad), `required refuses ${JSON.stringify(bad)}`);
  assert.not.ok(auto(`Let me see.\n${action(CALL('get_weather', '{"city": 3}'))}`), 'auto: a call breaks no schema either');
});

/** The message a client builds from the deltas: no content beside calls is null, as in the parser's message. */
function accumulate(deltas: ParsedDelta[]) {
  const { content, calls } = foldDeltas(deltas);
  return { content: content === '' && calls.length > 0 ? null : content, toolCalls: calls };
}

test('streamed at every chunking, the deltas add up to the whole response', () => {
  const outputs = [
    action(CALL('get_weather', '{\n            "city": "Paris",\n            "days": 3\n        }'), CALL('get_time', '{"zone": "UTC"}')),
    `I will look that up.\n${action(CALL('get_time', '{"zone": "Europe/Oslo"}'))}`,
    `Action: \`\`\`json\n[\n    ${CALL('get_weather', '{"city": "]```"}')}\n]\n\`\`\``,
    `Cut short: ${action(CALL('get_weather', '{"city": "Paris"}')).slice(0, 70)}`,
  ];
  for (const text of outputs) {
    const whole = new ToolCallParser(format, schemas, 'call_');
    whole.push(text);
    whole.finish();
    for (const size of [1, 2, 3, 5, 8, 13, text.length]) {
      const parser = new ToolCallParser(format, schemas, 'call_');
      const deltas: ParsedDelta[] = [];
      for (let i = 0; i < text.length; i += size) {
        const delta = parser.push(text.slice(i, i + size));
        if (delta) deltas.push(delta);
      }
      const last = parser.finish();
      if (last) deltas.push(last);
      assert.equal(parser.message, whole.message, `size ${size}: the same whole response`);
      assert.equal(accumulate(deltas), parser.streamedMessage, `size ${size}: the deltas add up to it`);
    }
  }
  assert.equal(parse('command_r', outputs[2]!).calls, [{ name: 'get_weather', arguments: { city: ']```' } }], 'a closing fence inside a string is text');
});

test('the deltas, piece by piece: nothing until the call is named, then its arguments as written', () => {
  const parser = new ToolCallParser(format, schemas, 'call_');
  assert.equal(parser.push('Checking. Act'), { content: 'Checking.' }, 'a possible `Action:` is withheld');
  assert.is(parser.push('ion:\n```json\n[\n    {\n        "tool_name": "get_'), undefined);
  assert.equal(parser.push('time",\n        "parameters": {"zo'), { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_time', arguments: '{"zo' } }] });
  assert.equal(parser.push('ne": "UTC"}\n    },\n    {\n        "tool_name": "get_weather",\n        "parameters": '), { tool_calls: [{ index: 0, function: { arguments: 'ne": "UTC"}' } }, { index: 1, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] });
  assert.equal(parser.push('{"city": "Rome"}\n    }\n]```'), { tool_calls: [{ index: 1, function: { arguments: '{"city": "Rome"}' } }] });
  assert.is(parser.finish(), undefined);
  assert.equal(parser.message, { content: 'Checking.', toolCalls: [{ id: 'call_0', name: 'get_time', arguments: '{"zone": "UTC"}' }, { id: 'call_1', name: 'get_weather', arguments: '{"city": "Rome"}' }] });
});

test('directly-answer, the template\'s "no tool needed": allowed under auto only, and read as no call, the text around it plain content', () => {
  const direct = action(CALL('directly-answer', '{}'));
  const auto = grammar('command_r', { mode: 'auto' });
  assert.ok(auto(direct), 'auto: the template\'s own tool');
  assert.ok(auto(`${direct}\nIt is sunny in Oslo.`), 'auto: the answer after it');
  assert.not.ok(auto(action(CALL('directly-answer', '{"x": 1}'))), 'it takes no parameters');
  assert.not.ok(grammar('command_r', { mode: 'required' })(direct), 'required: a real call');
  assert.not.ok(grammar('command_r', { mode: 'named', name: 'get_time' })(direct), 'named: that call');
  assert.equal(parse('command_r', direct), { content: '', calls: [] });
  assert.equal(parse('command_r', `Let me answer.\n${direct}\nIt is sunny.`), { content: 'Let me answer.\n\nIt is sunny.', calls: [] });
  assert.equal(parse('command_r', action(CALL('get_time', '{"zone": "UTC"}'), CALL('directly-answer', '{}'))).calls, [{ name: 'get_time', arguments: { zone: 'UTC' } }], 'beside a real call, only the real one');
  // Streamed at every chunking, the same message.
  const text = `Let me answer.\n${direct}\nIt is sunny.`;
  for (const size of [1, 2, 5, 13]) {
    const parser = new ToolCallParser(format, schemas, 'call_');
    const deltas: ParsedDelta[] = [];
    for (let i = 0; i < text.length; i += size) {
      const delta = parser.push(text.slice(i, i + size));
      if (delta) deltas.push(delta);
    }
    const last = parser.finish();
    if (last) deltas.push(last);
    assert.equal(accumulate(deltas), { content: 'Let me answer.\n\nIt is sunny.', toolCalls: [] }, `size ${size}`);
  }
});

test('a template without tools gets the calls written in the family\'s own syntax, which the grammar accepts', () => {
  const written = renderToolCall(format, 'get_time', { zone: 'UTC' });
  assert.is(written, 'Action:\n```json\n[\n    {\n        "tool_name": "get_time",\n        "parameters": {"zone":"UTC"}\n    }\n]```', 'laid out as the tool_use template writes past calls');
  assert.ok(grammar('command_r', { mode: 'required' })(written));
  assert.equal(parse('command_r', written).calls, [{ name: 'get_time', arguments: { zone: 'UTC' } }]);
});

test.run();
