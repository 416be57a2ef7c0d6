// gpt-oss (Harmony) under tool_choice "required": the model may tell the user what it is about
// to do in one commentary message without a recipient (a preamble) before its call, as it does
// under "auto". The grammar admits at most one such message and still requires a call; the
// preamble's text is content, read as under "auto" (whole, and streamed at every chunking to
// the same deltas), and shown as it is written, before the call is known.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { afterThinking, ReasoningSplitter } from '../../runtime/chat-format/reasoning.js';
import { toolCallTag, type ToolChoice, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';
import { grammarFromSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { advance, type ChatChoice, type MessageDelta } from '../../runtime/api/chat-completions/chat-choice.js';
import { accepts } from '../compiler/helpers.js';
import { foldDeltas } from '../helpers/stream-deltas.js';

const test = suite('harmony preamble under tool_choice required');

const format = TOOL_FORMATS.harmony;
const tools: ToolDefinition[] = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];
const schemas = new Map(tools.map((t) => [t.name, t.parameters]));

/** The grammar the server compiles for a thinking gpt-oss (the analysis channel first). */
const grammar = (choice: Exclude<ToolChoice, { mode: 'none' }>, parallel = true) =>
  accepts(grammarFromSpec(afterThinking({ kind: 'structural_tag', tag: toolCallTag(format, tools, choice, parallel) }, 'model', format.thinking)));
/** Without thinking (`--reasoning off`): the output starts in the prompt's assistant message. */
const plainGrammar = (choice: Exclude<ToolChoice, { mode: 'none' }>) => accepts(grammarFromSpec({ kind: 'structural_tag', tag: toolCallTag(format, tools, choice, true) }));

const ANALYSIS = '<|channel|>analysis<|message|>Tell them, then look.<|end|>';
const PREAMBLE = '<|start|>assistant<|channel|>commentary<|message|>Looking it up.<|end|>';
const CALL = '<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone": "UTC"}';
const RECIPIENT_FIRST = '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Oslo"}';

test('required: at most one preamble, then at least one call', () => {
  const required = grammar({ mode: 'required' });
  assert.ok(required(`${ANALYSIS}${CALL}`), 'a call alone, as before');
  assert.ok(required(`${ANALYSIS}${PREAMBLE}${CALL}`), 'a preamble, then the call');
  assert.ok(required(`${ANALYSIS}${PREAMBLE}${RECIPIENT_FIRST}`), 'a preamble, then a call with the recipient first');
  assert.ok(plainGrammar({ mode: 'required' })(`<|channel|>commentary<|message|>Looking it up.<|end|>${CALL}`), 'without thinking, the preamble is the prompt\'s message');
  for (const bad of [
    `${ANALYSIS}${PREAMBLE}`,
    `${ANALYSIS}${PREAMBLE}<|start|>assistant<|channel|>final<|message|>It is noon.`,
    `${ANALYSIS}${PREAMBLE}${PREAMBLE}${CALL}`,
    `${ANALYSIS}<|start|>assistant<|channel|>final<|message|>It is noon.<|end|>${CALL}`,
    `${ANALYSIS}<|start|>assistant<|channel|>commentary<|message|>I will send it to=functions.get_time now.<|end|>${CALL}`,
    `${ANALYSIS}${PREAMBLE}<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{"zone": 3}`,
  ]) assert.not.ok(required(bad), `required refuses ${JSON.stringify(bad)}`);
  assert.not.ok(plainGrammar({ mode: 'required' })('<|channel|>commentary<|message|>Looking it up.<|end|>'), 'without thinking: a preamble alone is refused too');
});

test('named and parallel_tool_calls: false are as before', () => {
  assert.not.ok(grammar({ mode: 'named', name: 'get_time' })(`${ANALYSIS}${PREAMBLE}${CALL}`), 'named: the call alone');
  assert.ok(grammar({ mode: 'named', name: 'get_time' })(`${ANALYSIS}${CALL}`));
  assert.ok(grammar({ mode: 'required' }, false)(`${ANALYSIS}${PREAMBLE}${CALL}`), 'one call after the preamble');
  assert.ok(grammar({ mode: 'auto' })(`${ANALYSIS}${PREAMBLE}${CALL}`), 'auto: as before');
});

/** Reasoning, content and calls as the server folds a choice's deltas, and its whole message. */
function read(pieces: string[], startsWithCall: boolean) {
  const parser = new ToolCallParser(format, schemas, 'call_', startsWithCall);
  const choice: ChatChoice = { finish: undefined, parser, splitter: new ReasoningSplitter('model', format.thinking) };
  const deltas: MessageDelta[] = [...pieces.flatMap((p) => advance(choice, p)), ...advance(choice, undefined)];
  const { content, calls } = foldDeltas(deltas);
  return { reasoning: deltas.map((d) => d.reasoning_content ?? '').join(''), content, calls, whole: parser.message };
}

function chunkings(text: string): string[][] {
  const out = [[text], [...text]];
  for (const size of [2, 3, 7, 13]) out.push(Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size)));
  return out;
}

test('the preamble is content, as under auto, whole and streamed at every chunking', () => {
  const output = `${ANALYSIS}${PREAMBLE}${CALL}`;
  const auto = read([output], false);
  assert.equal(auto.whole, { content: 'Looking it up.', toolCalls: [{ id: 'call_0', name: 'get_time', arguments: '{"zone": "UTC"}' }] });
  for (const pieces of chunkings(output)) {
    const got = read(pieces, true);
    assert.is(got.reasoning, 'Tell them, then look.');
    assert.is(got.content, 'Looking it up.', `content of ${JSON.stringify(pieces)}`);
    assert.equal(got.calls, [{ id: 'call_0', name: 'get_time', arguments: '{"zone": "UTC"}' }], `calls of ${JSON.stringify(pieces)}`);
    assert.equal(got.whole, auto.whole, 'the same message as under auto');
  }
});

test('the preamble is sent as it is written, before the call is known; an opener alone never is', () => {
  const parser = new ToolCallParser(format, schemas, 'call_', true);
  assert.is(parser.push('<|start|>assistant<|channel|>commentary'), undefined, 'a header that may still become a call');
  assert.equal(parser.push('<|message|>Looking it'), { content: 'Looking it' });
  assert.equal(parser.push(' up. <|e'), { content: ' up.' }, 'trailing space and a partial <|end|> withheld');
  assert.is(parser.push('nd|><|start|>assistant<|channel|>commentary to=functions.get_'), undefined);
  assert.equal(parser.push('time <|constrain|>json<|message|>{"zone": "UTC"}'), { tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_time', arguments: '{"zone": "UTC"}' } }] });
  assert.is(parser.finish(), undefined);
  assert.equal(parser.message, { content: 'Looking it up.', toolCalls: [{ id: 'call_0', name: 'get_time', arguments: '{"zone": "UTC"}' }] });
  // Cut short before any call: the preamble so far is the content, a bare opener is nothing.
  for (const [text, content] of [
    ['<|start|>assistant<|channel|>commentary<|message|>Looking', 'Looking'],
    ['<|start|>assistant<|channel|>commentary<|message|>Looking it up.<|end|><|start|>assistant<|channel|>comm', 'Looking it up.'],
    ['<|start|>assistant<|channel|>commentary to=functions.get', ''],
  ] as const) {
    const cut = new ToolCallParser(format, schemas, 'call_', true);
    cut.push(text);
    cut.finish();
    assert.equal(cut.message, { content, toolCalls: [] }, text);
  }
});

test.run();
