// The legacy converter ({begin, schema, end} items plus triggers -> triggered_tags), and the
// built-in structural tags in grammars/ that the server uses.
import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar, GrammarError, structuralTagFromLegacy } from '../../compiler/index.js';
import { check, tag } from './helpers.js';

const test = suite('structural-tag legacy and built-ins');

const item = { begin: '<function=get_weather>', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, end: '</function>' };

test('legacy items become a triggered_tags of json_schema tags', () => {
  const converted = structuralTagFromLegacy([item, { ...item, begin: '<function=get_time>', schema: JSON.stringify({ type: 'object' }) }], ['<function=']);
  assert.equal(converted, {
    type: 'structural_tag',
    format: {
      type: 'triggered_tags',
      triggers: ['<function='],
      tags: [
        { type: 'tag', begin: '<function=get_weather>', content: { type: 'json_schema', json_schema: item.schema }, end: '</function>' },
        { type: 'tag', begin: '<function=get_time>', content: { type: 'json_schema', json_schema: { type: 'object' } }, end: '</function>' },
      ],
    },
  });
  check(tag(converted), ['', 'hi <function=get_weather>{"city": "Rome"}</function> and <function=get_time>{}</function>'], ['<function=get_weather>{}</function>', '<function=get_date>{}</function>']);
});

test('malformed legacy input is rejected with a pointer into the arguments', () => {
  const at = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (e instanceof GrammarError && e.location.kind === 'pointer') return e.location.pointer;
    }
    return 'not rejected';
  };
  assert.is(at(() => structuralTagFromLegacy([{ ...item, begin: 3 } as never], ['<f'])), '/tags/0/begin');
  assert.is(at(() => structuralTagFromLegacy([{ ...item, schema: '{nope' }], ['<f'])), '/tags/0/schema');
  assert.is(at(() => structuralTagFromLegacy([{ ...item, extra: 1 } as never], ['<f'])), '/tags/0/extra');
  assert.is(at(() => structuralTagFromLegacy([item, 'x' as never], ['<f'])), '/tags/1');
  assert.is(at(() => structuralTagFromLegacy([item], 'x' as never)), '/triggers');
  // A trigger that starts no item fails when the result is compiled, like any structural tag.
  assert.is(at(() => Grammar.fromStructuralTag(structuralTagFromLegacy([item], ['<tool>']))), '/format/tags/0/begin');
});

const dir = new URL('../../grammars/', import.meta.url);
const builtin = (name: string) => tag(JSON.parse(readFileSync(new URL(name, dir), 'utf8')));

test('every grammars/*.structural-tag.json compiles', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.structural-tag.json'));
  assert.ok(files.length >= 2);
  for (const f of files) builtin(f);
});

test('JSON mode: any JSON object, the value alone', () => {
  check(builtin('json-mode.structural-tag.json'), ['{}', '{"a": [1, {"b": null}], "c": "d"}', '{ "x": true }'], ['[]', '"s"', '{"a": }', '', ' {"x": true}', '{"x": true} ', '{}\n']);
});

test('the Qwen3 tool-call tag: free text and <tool_call> calls of get_weather', () => {
  const call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>';
  check(builtin('qwen3-tool-call.structural-tag.json'), ['Just text.', call, `Checking.\n${call}\n${call}`], [
    '<tool_call>\n{"name": "get_weather", "arguments": {"unit": "celsius"}}\n</tool_call>',
    '<tool_call>\n{"name": "get_news", "arguments": {}}\n</tool_call>',
  ]);
});

test.run();
