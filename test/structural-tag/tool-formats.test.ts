// Tool-call structural tags for the families of TOOL-FORMATS.md, built the way the server will
// build them (auto = triggered_tags on the call's opening text), checked against what each
// family's chat template writes for a call, and against malformed calls.
import { suite } from 'uvu';
import { check, tag } from './helpers.js';

const test = suite('structural-tag tool formats');

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } },
  required: ['city'],
};
const json = { type: 'json_schema', json_schema: schema };
// The XML styles write enum strings bare, as the Qwen3-Coder template does (unit), and numbers
// as JSON (days).
const xmlSchema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['city'] };
const xml = (style: string) => ({ type: 'json_schema', json_schema: xmlSchema, style });
const auto = (trigger: string, begin: string, content: unknown, end: string, extra: object = {}) => ({
  type: 'structural_tag',
  format: { type: 'triggered_tags', triggers: [trigger], tags: [{ type: 'tag', begin, content, end }], ...extra },
});

test('llama: {"name": "F", "parameters": JSON}', () => {
  const ok = tag(auto('{"name": ', '{"name": "get_weather", "parameters": ', json, '}'));
  check(ok, ['{"name": "get_weather", "parameters": {"city": "Paris"}}', 'Sure. {"name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius"}}'], [
    '{"name": "get_weather", "parameters": {"town": "Paris"}}',
    '{"name": "get_time", "parameters": {"city": "Paris"}}',
    '{"name": "get_weather", "parameters": {"city": "Paris", "unit": "kelvin"}}',
  ]);
});

test('qwen_3 (also exaone-like): <tool_call> JSON </tool_call>, after the think block', () => {
  const call = auto('<tool_call>', '<tool_call>\n{"name": "get_weather", "arguments": ', json, '}\n</tool_call>');
  const withThink = tag({
    type: 'sequence',
    elements: [{ type: 'tag', begin: '', content: { type: 'any_text' }, end: '</think>' }, { type: 'const_string', value: '\n\n' }, call.format],
  });
  const good = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
  check(tag(call), [good, `Let me check.\n${good}\n${good}`], [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": 3}}\n</tool_call>',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
  ]);
  check(withThink, [`I should call it.</think>\n\n${good}`, '</think>\n\nNo tool needed.'], [good, `a</think>b</think>\n\n${good}`]);
  const required = tag(auto('<tool_call>', '<tool_call>\n{"name": "get_weather", "arguments": ', json, '}\n</tool_call>', { at_least_one: true, stop_after_first: true }));
  check(required, [good], ['No tool needed.', `${good}\n${good}`]);
});

test('qwen_3_coder: <function=F> with qwen_xml parameters', () => {
  const ok = tag(auto('<tool_call>\n<function=', '<tool_call>\n<function=get_weather>\n', xml('qwen_xml'), '\n</function>\n</tool_call>'));
  check(ok, [
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
    'ok\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>',
  ], [
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=unit>\n"celsius"\n</parameter>\n</function>\n</tool_call>',
    '<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
    '<tool_call>\n<function=get_weather>\n{"city": "Paris"}\n</function>\n</tool_call>',
  ]);
});

test('glm_4_7: <tool_call>F with glm_xml arguments', () => {
  const ok = tag(auto('<tool_call>', '<tool_call>get_weather', xml('glm_xml'), '</tool_call>'));
  check(ok, ['<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>', 'x<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>'], [
    '<tool_call>get_weather\n<arg_key>town</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>',
    '<tool_call>get_weather\n<arg_key>city</arg_key>\n</tool_call>',
  ]);
});

test('minimax: invokes with minimax_xml inside one <minimax:tool_call> block', () => {
  const invoke = { type: 'tag', begin: '<invoke name="get_weather">\n', content: xml('minimax_xml'), end: '\n</invoke>\n' };
  const block = { type: 'tags_with_separator', tags: [invoke], separator: '', at_least_one: true };
  const ok = tag(auto('<minimax:tool_call>', '<minimax:tool_call>\n', block, '</minimax:tool_call>'));
  const one = '<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n';
  check(ok, [`<minimax:tool_call>\n${one}</minimax:tool_call>`, `Checking.<minimax:tool_call>\n${one}${one}</minimax:tool_call>`], [
    '<minimax:tool_call>\n</minimax:tool_call>',
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter=city>Paris</parameter>\n</invoke>\n</minimax:tool_call>',
  ]);
});

test('deepseek_v3_2: DSML invokes with deepseek_xml parameters (fullwidth bars)', () => {
  const invoke = { type: 'tag', begin: '<｜DSML｜invoke name="get_weather">\n', content: xml('deepseek_xml'), end: '\n</｜DSML｜invoke>\n' };
  const block = { type: 'tags_with_separator', tags: [invoke], separator: '', at_least_one: true };
  const ok = tag(auto('<｜DSML｜function_calls>', '<｜DSML｜function_calls>\n', block, '</｜DSML｜function_calls>'));
  const one = '<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n';
  check(ok, [`<｜DSML｜function_calls>\n${one}</｜DSML｜function_calls>`], [
    `<|DSML|function_calls>\n${one}</|DSML|function_calls>x<｜DSML｜function_calls>\n</｜DSML｜function_calls>`,
    '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
  ]);
});

test('kimi: a calls section with numbered calls (regex index) and JSON arguments', () => {
  const call = {
    type: 'sequence',
    elements: [
      { type: 'const_string', value: '<|tool_call_begin|>functions.get_weather:' },
      { type: 'regex', pattern: '\\d+' },
      { type: 'tag', begin: '<|tool_call_argument_begin|>', content: json, end: '<|tool_call_end|>' },
    ],
  };
  const ok = tag(auto('<|tool_calls_section_begin|>', '<|tool_calls_section_begin|>', { type: 'plus', content: call }, '<|tool_calls_section_end|>'));
  const one = (i: number) => `<|tool_call_begin|>functions.get_weather:${i}<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>`;
  check(ok, [`<|tool_calls_section_begin|>${one(0)}<|tool_calls_section_end|>`, `hm<|tool_calls_section_begin|>${one(0)}${one(1)}<|tool_calls_section_end|>`], [
    `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:x<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>`,
    '<|tool_calls_section_begin|><|tool_calls_section_end|>',
  ]);
});

test('kimi_k3: a tools block of numbered calls with kimi_k3_xml arguments, after the response block', () => {
  const call = { type: 'tag', begin: '<|open|>call tool="get_weather" index="', content: { type: 'sequence', elements: [{ type: 'regex', pattern: '[0-9]+' }, { type: 'const_string', value: '"<|sep|>' }, xml('kimi_k3_xml')] }, end: '<|close|>call<|sep|>' };
  const block = { type: 'tags_with_separator', tags: [call], separator: '', at_least_one: true };
  const ok = tag(auto('<|open|>tools<|sep|>', '<|open|>tools<|sep|>', block, '<|close|>tools<|sep|>'));
  const arg = (k: string, t: string, v: string) => `<|open|>argument key="${k}" type="${t}"<|sep|>${v}<|close|>argument<|sep|>`;
  const one = (i: number, args: string) => `<|open|>call tool="get_weather" index="${i}"<|sep|>${args}<|close|>call<|sep|>`;
  check(ok, [
    `<|open|>response<|sep|>Sure.<|close|>response<|sep|><|open|>tools<|sep|>${one(1, arg('city', 'string', 'Paris') + arg('unit', 'string', 'celsius'))}<|close|>tools<|sep|><|close|>message<|sep|>`,
    `<|open|>tools<|sep|>${one(1, arg('city', 'string', 'Paris'))}${one(2, arg('city', 'string', 'Rome') + arg('days', 'number', '3'))}<|close|>tools<|sep|>`,
  ], [
    `<|open|>tools<|sep|>${one(1, arg('city', 'number', '3'))}<|close|>tools<|sep|>`,
    `<|open|>tools<|sep|>${one(1, arg('city', 'string', 'Paris') + arg('unit', 'string', 'kelvin'))}<|close|>tools<|sep|>`,
    '<|open|>tools<|sep|><|close|>tools<|sep|>',
  ]);
});

test('cohere (cofl): numbered <cofl:tool_call> elements with cohere_xml arguments', () => {
  const call = { type: 'tag', begin: '<cofl:tool_call id="', content: { type: 'sequence', elements: [{ type: 'regex', pattern: '[0-9]+' }, { type: 'const_string', value: '" name="get_weather">' }, xml('cohere_xml')] }, end: '</cofl:tool_call>' };
  const block = { type: 'tags_with_separator', tags: [call], separator: '', at_least_one: true };
  const ok = tag(auto('<cofl:tool_calls>', '<cofl:tool_calls>', block, '</cofl:tool_calls>'));
  const one = (i: number, args: string) => `<cofl:tool_call id="${i}" name="get_weather">${args}</cofl:tool_call>`;
  check(ok, [`<cofl:tool_calls>${one(0, '<cofl:value name="city" type="raw">Paris</cofl:value><cofl:value name="days" type="json">2</cofl:value>')}</cofl:tool_calls>`], [
    `<cofl:tool_calls>${one(0, '<cofl:value name="city" type="json">"Paris"</cofl:value>')}</cofl:tool_calls>`,
    `<cofl:tool_calls>${one(0, '<cofl:value name="days" type="json">2</cofl:value>')}</cofl:tool_calls>`,
  ]);
});

test('harmony: a commentary message to functions.F with JSON arguments, either header order', () => {
  const variants = [
    '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>',
    ' to=functions.get_weather<|channel|>commentary json<|message|>',
  ];
  const ok = tag({ type: 'structural_tag', format: { type: 'triggered_tags', triggers: ['<|channel|>commentary to=functions.', ' to=functions.'], tags: variants.map((begin) => ({ type: 'tag', begin, content: json, end: '' })) } });
  check(ok, [
    `<|channel|>analysis<|message|>Think.<|end|><|start|>assistant${variants[0]}{"city": "Paris"}`,
    `<|start|>assistant${variants[1]}{"city": "Paris", "unit": "celsius"}`,
    '<|channel|>final<|message|>No call.',
  ], [`<|start|>assistant${variants[0]}{"city": 3}`, `<|start|>assistant${variants[1]}{"town": "Paris"}`]);
});

test.run();
