// For each supported family: what the family's own chat template writes for an assistant turn
// with calls (the call-writing part of the real template, minus the turn header and end token)
// is accepted by the structural tag the server builds, read back by the parser as the same
// calls, and a malformed call is rejected. The template is also recognised as that family.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Grammar } from '../../compiler/index.js';
import type { TemplateMessage } from '../../runtime/chat-format/chat-messages.js';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { toolCallTag, type ToolDefinition } from '../../runtime/chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../runtime/chat-format/tool-call-parser.js';
import { TOOL_FORMATS, type ToolFormatKey } from '../../runtime/chat-format/tool-formats.js';
import { detectToolFormat } from '../../runtime/chat-format/tool-format-detect.js';
import { accepts } from '../compiler/helpers.js';

const test = suite('tool formats against their templates');

const tools: ToolDefinition[] = [
  {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
  },
  { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];
type Call = { name: string; arguments: Record<string, unknown> };
const calls: Call[] = [
  { name: 'get_weather', arguments: { city: 'Paris', days: 3, unit: 'celsius' } },
  { name: 'get_time', arguments: { zone: 'Europe/Paris' } },
];

const assistantOnly = (body: string) => `{%- for message in messages %}{%- if message.role == 'assistant' %}${body}{%- endif %}{%- endfor %}`;

// The call-writing code of each family's template (Qwen2.5, Llama 3.1, Qwen3-Coder, MiniMax-M2,
// DeepSeek V3.1 / R1 with their JSON-string arguments, Kimi-K2, DeepSeek V3.2's DSML encoding).
const TEMPLATES: Record<ToolFormatKey, { template: string; stringArguments?: boolean }> = {
  hermes: {
    template: assistantOnly(`{%- if message.content %}{{- message.content }}{%- endif %}{%- for tool_call in message.tool_calls %}{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}{%- if message.content or not loop.first %}{{- '\\n' }}{%- endif %}{{- '<tool_call>\\n{"name": "' }}{{- tool_call.name }}{{- '", "arguments": ' }}{{- tool_call.arguments | tojson }}{{- '}\\n</tool_call>' }}{%- endfor %}`),
  },
  llama: {
    // Llama 3.1 writes one call per message; '<|start_header_id|>ipython' marks the template.
    template: `{#- <|start_header_id|>ipython #}` + assistantOnly(`{%- set tool_call = message.tool_calls[0].function %}{{- '{"name": "' + tool_call.name + '", ' }}{{- '"parameters": ' }}{{- tool_call.arguments | tojson }}{{- "}" }}`),
  },
  qwen3_coder: {
    // The template writes every value between newlines, an enum value too.
    template: assistantOnly(`{%- for tool_call in message.tool_calls %}{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}{%- if loop.first %}{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- else %}{{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- endif %}{%- for args_name, args_value in tool_call.arguments|items %}{{- '<parameter=' + args_name + '>\\n' }}{%- set args_value = args_value | tojson if args_value is mapping else args_value | string %}{{- args_value }}{{- '\\n</parameter>\\n' }}{%- endfor %}{{- '</function>\\n</tool_call>' }}{%- endfor %}`),
  },
  glm: {
    // GLM-4.7 writes the pairs back to back; GLM-4.5 puts newlines between them (both allowed).
    template: assistantOnly(`{%- for tc in message.tool_calls %}{%- if tc.function %}{%- set tc = tc.function %}{%- endif %}{{- '<tool_call>' + tc.name -}}{%- for k, v in tc.arguments|items %}<arg_key>{{ k }}</arg_key><arg_value>{%- if v is string %}{{ v }}{%- else %}{{ v | tojson }}{%- endif %}</arg_value>{%- endfor %}</tool_call>{%- endfor %}`),
  },
  mistral: {
    template: assistantOnly(`{%- for tool in message.tool_calls %}{%- set arguments = tool['function']['arguments'] %}{%- if arguments is not string %}{%- set arguments = arguments | tojson %}{%- endif %}{{- '[TOOL_CALLS]' + tool['function']['name'] + '[ARGS]' + arguments }}{%- endfor %}`),
  },
  minimax: {
    template: assistantOnly(`{{- '<minimax:tool_call>\\n' }}{%- for tool_call in message.tool_calls %}{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}{{- '<invoke name="' + tool_call.name + '">\\n' }}{%- for key, value in tool_call.arguments|items %}{{- '<parameter name="' + key + '">' }}{%- if value is string %}{{- value }}{%- else %}{{- value | tojson }}{%- endif %}{{- '</parameter>\\n' }}{%- endfor %}{{- '</invoke>\\n' }}{%- endfor %}{{- '</minimax:tool_call>' }}`),
  },
  deepseek_v3_1: {
    stringArguments: true,
    template: assistantOnly(`{%- for tool in message.tool_calls %}{%- if loop.first %}{{- '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>' }}{%- else %}{{- '<｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>' }}{%- endif %}{%- endfor %}{{- '<｜tool▁calls▁end｜>' }}`),
  },
  deepseek_r1: {
    stringArguments: true,
    template: assistantOnly(`{%- for tool in message.tool_calls %}{%- if loop.first %}{{- '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '\`\`\`json' + '\\n' + tool['function']['arguments'] + '\\n' + '\`\`\`' + '<｜tool▁call▁end｜>' }}{%- else %}{{- '\\n' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '\`\`\`json' + '\\n' + tool['function']['arguments'] + '\\n' + '\`\`\`' + '<｜tool▁call▁end｜>' }}{%- endif %}{%- endfor %}{{- '<｜tool▁calls▁end｜>' }}`),
  },
  kimi: {
    // Kimi-K2's template writes the call id given in the history (`functions.F:N`) verbatim.
    template: assistantOnly(`{{- '<|tool_calls_section_begin|>' -}}{%- for tool_call in message['tool_calls'] -%}{%- set formatted_id = tool_call['id'] -%}<|tool_call_begin|>{{ formatted_id }}<|tool_call_argument_begin|>{% if tool_call['function']['arguments'] is string %}{{ tool_call['function']['arguments'] }}{% else %}{{ tool_call['function']['arguments'] | tojson }}{% endif %}<|tool_call_end|>
{%- endfor -%}<|tool_calls_section_end|>`),
  },
  kimi_k3: {
    // Kimi-K3 (XTML): an empty response block, a tools block of numbered calls, typed arguments.
    template: assistantOnly(`<|open|>response<|sep|>{{- message.content -}}<|close|>response<|sep|><|open|>tools<|sep|>{%- for tc in message.tool_calls -%}<|open|>call tool="{{ tc.function.name }}" index="{{ loop.index }}"<|sep|>{%- for key, value in tc.function.arguments|items -%}<|open|>argument key="{{ key }}" type="{%- if value is string -%}string{%- elif value is boolean -%}boolean{%- elif value is number -%}number{%- elif value is none -%}null{%- elif value is mapping -%}object{%- else -%}array{%- endif -%}"<|sep|>{%- if value is string -%}{{ value }}{%- else -%}{{ value | tojson }}{%- endif -%}<|close|>argument<|sep|>{%- endfor -%}<|close|>call<|sep|>{%- endfor -%}<|close|>tools<|sep|><|close|>message<|sep|>`),
  },
  cohere: {
    // Command-A / Command-R7B: a pretty-printed JSON list of numbered calls.
    template: assistantOnly(`<|START_ACTION|>[{%- for tc in message.tool_calls %}
    {"tool_call_id": "{{ loop.index0 }}", "tool_name": "{{ tc.function.name }}", "parameters": {{ tc.function.arguments | tojson }}}{%- if not loop.last %},{%- endif %}{%- endfor %}
]<|END_ACTION|>`),
  },
  command_r: {
    // Command-R / Command-R+ (tool_use template): `Action:` and a fenced, pretty-printed JSON list.
    template: assistantOnly(`{{- 'Action:\\n\`\`\`json\\n[\\n' }}{%- for tool_call in message.tool_calls %}{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}{{- '{\\n'|indent(4, first=true) }}{{- '"tool_name": "'|indent(8, first=true) + tool_call.name + '",\\n' }}{{- '"parameters": '|indent(8, first=true) }}{{- tool_call.arguments|tojson(indent=4)|indent(8) }}{{- '\\n' }}{{- '}'|indent(4, first=true) }}{%- if not loop.last %}{{- ',\\n' }}{%- endif %}{%- endfor %}{{- "\\n]\`\`\`" }}`),
  },
  cohere_xml: {
    // Cohere's later Command template: <cofl:tool_call> elements with <cofl:value> arguments.
    template: assistantOnly(`<cofl:tool_calls>{%- for tc in message.tool_calls %}<cofl:tool_call id="{{ loop.index0 }}" name="{{ tc.function.name }}">{%- for key, value in tc.function.arguments|items %}
<cofl:value name="{{ key }}" type="{%- if value is string -%}raw{%- else -%}json{%- endif -%}">{%- if value is string -%}{{ value }}{%- else -%}{{ value | tojson }}{%- endif -%}</cofl:value>{%- endfor %}
</cofl:tool_call>{%- endfor %}</cofl:tool_calls>`),
  },
  harmony: {
    // gpt-oss renders a past call with the recipient before the channel; <|call|>, the stop
    // token that ends it, is cut off (it is not part of the generated text).
    template: assistantOnly(`{%- set tc = message.tool_calls[0].function %}{{- '<|start|>assistant to=' -}}{{- 'functions.' + tc.name + '<|channel|>commentary json<|message|>' -}}{{- tc.arguments | tojson -}}<|call|>`),
  },
  deepseek_v3_2: {
    template: assistantOnly(`{{- '\\n\\n<｜DSML｜function_calls>\\n' }}{%- for tool_call in message.tool_calls %}{%- set tool_call = tool_call.function %}{{- '<｜DSML｜invoke name="' + tool_call.name + '">\\n' }}{%- for key, value in tool_call.arguments|items %}{%- if value is string %}{{- '<｜DSML｜parameter name="' + key + '" string="true">' + value + '</｜DSML｜parameter>\\n' }}{%- else %}{{- '<｜DSML｜parameter name="' + key + '" string="false">' + (value | tojson) + '</｜DSML｜parameter>\\n' }}{%- endif %}{%- endfor %}{{- '</｜DSML｜invoke>\\n' }}{%- endfor %}{{- '</｜DSML｜function_calls>' }}`),
  },
};

function render(key: ToolFormatKey, made: Call[]): string {
  const { template, stringArguments } = TEMPLATES[key];
  const message: TemplateMessage = {
    role: 'assistant',
    content: '',
    tool_calls: made.map((call, i) => ({ id: `functions.${call.name}:${i}`, type: 'function', function: { name: call.name, arguments: stringArguments ? JSON.stringify(call.arguments) : call.arguments } })),
  };
  const text = new ChatTemplate(template, { bos: '', eos: '' }).render([{ role: 'user', content: 'hi' }, message], { addGenerationPrompt: false });
  // V3.2 opens its calls block after a blank line that the tag leaves to the free text.
  if (key === 'deepseek_v3_2') return text.replace(/^\n\n/, '');
  return key === 'harmony' ? text.replace(/<\|call\|>$/, '') : text;
}

const parse = (key: ToolFormatKey, text: string) => {
  const parser = new ToolCallParser(TOOL_FORMATS[key], new Map(tools.map((tool) => [tool.name, tool.parameters])), 'call_');
  parser.push(text);
  parser.finish();
  return parser.message;
};

for (const key of Object.keys(TEMPLATES) as ToolFormatKey[]) {
  test(`${key}: the template's calls are accepted and read back; malformed calls are rejected`, () => {
    const format = TOOL_FORMATS[key];
    assert.is(detectToolFormat(TEMPLATES[key].template).key, key, 'recognised from its template');
    const one = render(key, calls.slice(0, 1));
    const required = accepts(Grammar.fromStructuralTag(toolCallTag(format, tools, { mode: 'required' }, true)));
    const auto = accepts(Grammar.fromStructuralTag(toolCallTag(format, tools, { mode: 'auto' }, true)));
    const named = accepts(Grammar.fromStructuralTag(toolCallTag(format, tools, { mode: 'named', name: 'get_weather' }, true)));
    const single = accepts(Grammar.fromStructuralTag(toolCallTag(format, tools, { mode: 'required' }, false)));
    assert.ok(required(one), `required accepts ${JSON.stringify(one)}`);
    assert.ok(named(one), 'named accepts the call to that function');
    assert.ok(single(one), 'parallel_tool_calls: false accepts one call');
    assert.ok(auto(`Let me look.${key === 'llama' ? ' ' : '\n'}${one}`), 'auto accepts text then a call');
    assert.ok(auto('No call needed.'), 'auto accepts plain text');
    assert.not.ok(required('No call needed.'), 'required refuses plain text');
    assert.equal(parse(key, one).toolCalls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) })), calls.slice(0, 1));
    // Llama and gpt-oss write one call per message.
    if (key !== 'llama' && key !== 'harmony') {
      const two = render(key, calls);
      assert.ok(required(two), `two calls: ${JSON.stringify(two)}`);
      assert.not.ok(single(two), 'parallel_tool_calls: false refuses two calls');
      assert.not.ok(named(two), 'named refuses a call to another function');
      assert.equal(parse(key, two).toolCalls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) })), calls);
    }
    // Malformed: an argument of the wrong type, an unknown function, a call left open.
    const weather = calls[0]!;
    const wrongType = render(key, [{ ...weather, arguments: { ...weather.arguments, days: 'three' } }]);
    const unknown = render(key, [{ ...weather, name: 'get_wether' }]);
    for (const bad of [wrongType, unknown, one.slice(0, -2)]) {
      assert.not.ok(required(bad), `required rejects ${JSON.stringify(bad)}`);
      assert.not.ok(named(bad), `named rejects ${JSON.stringify(bad)}`);
    }
  });
}

test.run();
