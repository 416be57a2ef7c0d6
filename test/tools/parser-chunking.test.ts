// The incremental parser's deltas, concatenated, give exactly the whole-text result however
// the text is split (one character at a time, random pieces, one piece), for every family,
// including texts cut inside a call; and text that may open a call is never sent as content.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ToolCallParser, type ParsedDelta } from '../../runtime/chat-format/tool-call-parser.js';
import { renderToolCall } from '../../runtime/chat-format/tool-prompt.js';
import { TOOL_FORMATS, TOOL_FORMAT_KEYS, type ToolFormat } from '../../runtime/chat-format/tool-formats.js';
import { foldDeltas } from '../helpers/stream-deltas.js';

const test = suite('tool-call parser chunking');

const schemas = new Map<string, Record<string, unknown>>([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } }],
  ['note', { type: 'object', properties: { text: { type: 'string' } } }],
  // A name that is a prefix of another: GLM writes no delimiter after the name.
  ['get', { type: 'object', properties: {} }],
]);


function run(format: ToolFormat, pieces: string[]) {
  const parser = new ToolCallParser(format, schemas, 'call_');
  const deltas: ParsedDelta[] = [];
  for (const piece of pieces) {
    const delta = parser.push(piece);
    if (delta) deltas.push(delta);
  }
  const last = parser.finish();
  if (last) deltas.push(last);
  return { streamed: foldDeltas(deltas), whole: parser.message, sofar: parser.streamedMessage };
}

/** A deterministic pseudo-random split of `text`. */
function split(text: string, seed: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(next() * 12);
    pieces.push(text.slice(i, i + n));
    i += n;
  }
  return pieces;
}

function samples(format: ToolFormat): string[] {
  const weather = renderToolCall(format, 'get_weather', { city: 'Paris {x} "q"', days: 3 });
  const note = renderToolCall(format, 'note', { text: `mentions ${format.trigger.slice(0, 4)} inside` });
  const sep = format.key === 'llama' ? ' ' : '\n';
  return [
    'Plain text, no calls at all.  \n',
    weather,
    `Let me check.${sep}${weather}`,
    `${weather}${sep}${note}`,
    `Text ending in a partial opener ${format.trigger.slice(0, 3)}`,
    `Cut inside a call: ${weather.slice(0, Math.floor(weather.length * 0.7))}`,
    `${weather}${sep}${note.slice(0, note.length - 3)}`,
    `${renderToolCall(format, 'get', {})}${sep}${weather}`,
    `${weather}${sep}  Done, text after a call.`,
  ];
}

for (const key of TOOL_FORMAT_KEYS) {
  test(`${key}: every chunking concatenates to the whole result`, () => {
    const format = TOOL_FORMATS[key];
    for (const text of samples(format)) {
      const reference = run(format, [text]).whole;
      const chunkings = [[text], [...text], split(text, 1), split(text, 7), split(text, 42)];
      for (const pieces of chunkings) {
        const { streamed, whole, sofar } = run(format, pieces);
        assert.equal(whole, reference, `same whole result for ${JSON.stringify(pieces)}`);
        assert.is(streamed.content, whole.content ?? '', `content of ${JSON.stringify(pieces)}`);
        // Complete calls match exactly; a call cut short is streamed as far as it went, left
        // out of the whole result, and in the message as streamed.
        assert.equal(streamed.calls.slice(0, whole.toolCalls.length), whole.toolCalls, `calls of ${JSON.stringify(pieces)}`);
        assert.equal(sofar.toolCalls, streamed.calls, `calls so far of ${JSON.stringify(pieces)}`);
        assert.is(sofar.content ?? '', streamed.content);
        for (const call of whole.toolCalls) assert.type(JSON.parse(call.arguments), 'object');
      }
    }
  });
}

test('text that may open a call is withheld until it is known not to be one', () => {
  const parser = new ToolCallParser(TOOL_FORMATS.hermes, schemas, 'call_');
  assert.equal(parser.push('Hello <tool'), { content: 'Hello' });
  assert.is(parser.push('_call>\n{"name": "no'), undefined, 'an opener in progress sends nothing');
  const named = parser.push('te", "arguments": {"text": "a"}}\n</tool_call>');
  assert.equal(named?.tool_calls, [{ index: 0, id: 'call_0', type: 'function', function: { name: 'note', arguments: '{"text": "a"}' } }]);
  const other = new ToolCallParser(TOOL_FORMATS.hermes, schemas, 'call_');
  other.push('a <tool');
  assert.equal(other.push('kit'), { content: ' <toolkit' }, 'released once it cannot be an opener');
  assert.equal(other.finish(), undefined);
  assert.equal(other.message, { content: 'a <toolkit', toolCalls: [] });
});

test('content is null when there are calls and no text; trailing whitespace before calls is dropped', () => {
  const call = renderToolCall(TOOL_FORMATS.hermes, 'note', { text: 'x' });
  assert.equal(run(TOOL_FORMATS.hermes, [`\n${call}\n`]).whole.content, null);
  assert.equal(run(TOOL_FORMATS.hermes, [`Sure.\n\n${call}`]).whole.content, 'Sure.');
  assert.equal(run(TOOL_FORMATS.hermes, ['No calls.\n']).whole.content, 'No calls.\n');
});

test('XML arguments become JSON typed by the schema', () => {
  const call = '<tool_call>\n<function=get_weather>\n<parameter=city>\n42\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>';
  const { whole } = run(TOOL_FORMATS.qwen3_coder, [call]);
  assert.equal(JSON.parse(whole.toolCalls[0]!.arguments), { city: '42', days: 3 });
});

test('a call as the tool prompt writes it reads back as its arguments, types included, in every format', () => {
  const args = { city: 'Paris', days: 3 };
  for (const key of TOOL_FORMAT_KEYS) {
    const { whole } = run(TOOL_FORMATS[key], [renderToolCall(TOOL_FORMATS[key], 'get_weather', args)]);
    // deepseek_xml's past calls said string="true" of every value: days came back "3".
    assert.equal(JSON.parse(whole.toolCalls[0]!.arguments), args, key);
  }
});

test('XML arguments are typed by every schema that applies to the key, patterns read as the grammar reads them', () => {
  const tools = new Map<string, Record<string, unknown>>([['f', { type: 'object', properties: { code: { type: ['string', 'integer'] } }, patternProperties: { '^c': { type: 'string' }, '(?i)^x': { type: 'integer' } } }]]);
  const parser = new ToolCallParser(TOOL_FORMATS.qwen3_coder, tools, 'call_');
  parser.push('<tool_call>\n<function=f>\n<parameter=code>\n5\n</parameter>\n<parameter=Xa>\n6\n</parameter>\n</function>\n</tool_call>');
  parser.finish();
  // code is a string as its pattern says too (it was read as the number 5); (?i) threw in JavaScript's RegExp.
  assert.equal(JSON.parse(parser.toolCalls[0]!.arguments), { code: '5', Xa: 6 });
});

test('qwen_xml newlines come off free text and listed values, never off a constrained string', () => {
  const tools = new Map<string, Record<string, unknown>>([
    ['f', { type: 'object', properties: { free: { type: 'string' }, unit: { type: 'string', enum: ['c', '\nf\n'] }, code: { type: 'string', minLength: 3 } } }],
  ]);
  const args = (params: string): unknown => {
    const parser = new ToolCallParser(TOOL_FORMATS.qwen3_coder, tools, 'call_');
    parser.push(`<tool_call>\n<function=f>\n${params}</function>\n</tool_call>`);
    parser.finish();
    return JSON.parse(parser.toolCalls[0]!.arguments);
  };
  assert.equal(args('<parameter=free>\nParis\n</parameter>\n'), { free: 'Paris' });
  assert.equal(args('<parameter=unit>\nc\n</parameter>\n'), { unit: 'c' }, 'framed');
  assert.equal(args('<parameter=unit>c</parameter>\n'), { unit: 'c' }, 'bare');
  assert.equal(args('<parameter=unit>\nf\n</parameter>\n'), { unit: '\nf\n' }, 'a listed value is taken as it is');
  assert.equal(args('<parameter=code>\n\n\n</parameter>\n'), { code: '\n\n\n' }, 'three characters, as the grammar counted them');
});

test.run();
