// Kimi's call index: the model writes `functions.F:N` itself, so the tag must let a decimal N
// of up to six digits through (and nothing else: a model must not write digits forever), and the response's call id is Kimi's own `functions.F:N` as
// written, streamed with the name before any arguments.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar } from '../../compiler/index.js';
import { toolCallTag, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';
import { accepts } from '../compiler/helpers.js';

const test = suite('kimi call indexes');
const kimi = TOOL_FORMATS.kimi;
const tools: ToolDefinition[] = [{ name: 'note', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }];
const schemas = new Map(tools.map((tool) => [tool.name, tool.parameters]));
const call = (index: string, args = '{"text": "a"}') => `<|tool_call_begin|>functions.note:${index}<|tool_call_argument_begin|>${args}<|tool_call_end|>`;
const section = (...calls: string[]) => `<|tool_calls_section_begin|>${calls.join('')}<|tool_calls_section_end|>`;

test('a decimal index of up to six digits is accepted; a missing, non-decimal or longer one is not', () => {
  const required = accepts(Grammar.fromStructuralTag(toolCallTag(kimi, tools, { mode: 'required' }, true)));
  const auto = accepts(Grammar.fromStructuralTag(toolCallTag(kimi, tools, { mode: 'auto' }, true)));
  assert.ok(required(section(call('0'))));
  assert.ok(required(section(call('12'), call('13'))));
  assert.ok(auto(`Noting it. ${section(call('7'))}`));
  assert.ok(required(section(call('999999'))), 'six digits');
  for (const bad of ['', 'x', '-1', '1a', '1234567']) assert.not.ok(required(section(call(bad))), `index ${JSON.stringify(bad)}`);
  assert.not.ok(required(`${section(call('0'))} and more text`), 'required is the section and nothing after it');
  assert.not.ok(required(section()), 'an empty section is not a call');
});

test('call ids are the written functions.F:N, sent with the name once the index is complete', () => {
  const parser = new ToolCallParser(kimi, schemas, 'call_');
  assert.is(parser.push('<|tool_calls_section_begin|><|tool_call_begin|>functions.note:1'), undefined, 'the index may go on');
  const first = parser.push('4<|tool_call_argument_begin|>{"te');
  assert.equal(first?.tool_calls, [{ index: 0, id: 'functions.note:14', type: 'function', function: { name: 'note', arguments: '{"te' } }]);
  parser.push(`xt": "a"}<|tool_call_end|>${call('15', '{"text": "b"}')}<|tool_calls_section_end|>`);
  parser.finish();
  assert.equal(
    parser.message.toolCalls.map((c) => [c.id, c.arguments]),
    [['functions.note:14', '{"text": "a"}'], ['functions.note:15', '{"text": "b"}']],
  );
});

test.run();
