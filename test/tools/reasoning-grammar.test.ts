// The think block in front of a constrained part: any text up to `</think>` is free, and only
// what follows it must be a call (or the response_format); a call inside the thinking counts
// for nothing, and the block cannot be skipped or closed twice.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { grammarFromSpec, type GrammarSpec } from '../../runtime/grammar-service/grammar-spec.js';
import { afterThinking, thinkStartOf } from '../../runtime/chat-format/reasoning.js';
import { toolCallTag, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { renderToolCall } from '../../runtime/chat-format/tool-prompt.js';
import { TOOL_FORMATS } from '../../runtime/chat-format/tool-formats.js';
import { accepts } from '../compiler/helpers.js';

const test = suite('reasoning grammar');
const tools: ToolDefinition[] = [{ name: 'note', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }];
const call = renderToolCall(TOOL_FORMATS.hermes, 'note', { text: 'a' });
const tagSpec = (mode: 'required' | 'auto'): GrammarSpec => ({ kind: 'structural_tag', tag: toolCallTag(TOOL_FORMATS.hermes, tools, { mode }, true) });
const wrapped = (spec: GrammarSpec, start: 'open' | 'model') => accepts(grammarFromSpec(afterThinking(spec, start)));

test('where thinking starts is read off the rendered prompt', () => {
  assert.is(thinkStartOf('<|im_start|>assistant\n<think>\n'), 'open');
  assert.is(thinkStartOf('<|im_start|>assistant\n<think>\n\n</think>\n\n'), 'closed');
  assert.is(thinkStartOf('<|im_start|>assistant\n'), 'model');
});

test('required: free thinking, then a call; the call must come after </think>', () => {
  const required = wrapped(tagSpec('required'), 'open');
  assert.ok(required(`Let me see: <tool_call> is how I call.\n</think>\n\n${call}`));
  assert.ok(required(`</think>${call}`), 'empty thinking');
  assert.not.ok(required(call), 'a call inside the unclosed thinking is not a call');
  assert.not.ok(required('hmm</think>\n\nNo call.'), 'text after thinking under required');
  assert.not.ok(required(`hmm</think>more thinking</think>\n\n${call}`), 'the thinking ends at the first </think>');
});

test('required: calls only, as OpenAI\'s are: several between whitespace, nothing after the last; auto allows text after one', () => {
  const required = accepts(grammarFromSpec(tagSpec('required')));
  assert.ok(required(call));
  assert.ok(required(`${call}\n${call}`), 'parallel calls');
  assert.not.ok(required(`${call}\n\nThe note is written.`), 'text after the call ran to max_tokens');
  assert.not.ok(required(`Sure. ${call}`), 'text before the call');
  const single = accepts(grammarFromSpec({ kind: 'structural_tag', tag: toolCallTag(TOOL_FORMATS.hermes, tools, { mode: 'required' }, false) }));
  assert.ok(single(call));
  assert.not.ok(single(`${call}\n${call}`), 'parallel_tool_calls false: one call');
  assert.ok(accepts(grammarFromSpec(tagSpec('auto')))(`${call}\n\nThe note is written.`));
});

test('the model may open the block itself; auto and response_format follow the thinking', () => {
  assert.ok(wrapped(tagSpec('required'), 'model')(`<think>\nhm\n</think>\n\n${call}`));
  assert.not.ok(wrapped(tagSpec('required'), 'model')(`hm\n</think>\n\n${call}`), 'must open with <think>');
  const auto = wrapped(tagSpec('auto'), 'open');
  assert.ok(auto('hm</think>\n\nJust text.'));
  assert.ok(auto(`hm</think>\n\nFirst: ${call}`));
  const json = wrapped({ kind: 'json_schema', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, 'open');
  assert.ok(json('{"n": "x"} is wrong, {"n": 1} is right</think>\n{"n": 1}'));
  assert.not.ok(json('ok</think>\n{"n": "x"}'));
  assert.ok(wrapped({ kind: 'regex', pattern: '[0-9]+' }, 'open')('count</think>42'));
  assert.not.ok(wrapped({ kind: 'ebnf', text: 'root ::= "yes" | "no"' }, 'open')('hm</think>maybe'));
});

test('after the thinking, JSON mode is any object, whitespace is bounded, and max_whitespace carries over', () => {
  const object = wrapped({ kind: 'json_object' }, 'open');
  assert.ok(object('hm</think>\n\n{"a": [1, {"b": null}]}'), 'any object, not only {}');
  assert.not.ok(object('hm</think>\n\n{"a": 1}\n'), 'nothing after the value');
  assert.not.ok(object(`hm</think>${'\n'.repeat(40)}{}`), 'no endless whitespace before the answer');
  const lifted = wrapped({ kind: 'json_object', options: { maxWhitespace: null } }, 'open');
  assert.ok(lifted(`hm</think>\n{\n\n${' '.repeat(40)}"a": 1}`));
  const bounded = wrapped({ kind: 'json_schema', schema: { type: 'object', properties: { n: { type: 'integer' } } }, options: { maxWhitespace: 2 } }, 'open');
  assert.not.ok(bounded('hm</think>{   "n": 1}'));
});

test.run();
