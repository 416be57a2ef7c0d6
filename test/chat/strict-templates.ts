// Test helper: chat templates as strict as some models' own (Gemma's, Llama 2's, Mistral's
// raise on roles out of order), and a round of two tool calls whose two results come in a row.
// Not a suite (no .test.ts suffix).
import type OpenAI from 'openai';

/** A user question, two calls in one assistant turn, and their results as two tool messages. */
export const twoResultsInARow: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'Weather in Paris and Rome?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '18 C' },
  { role: 'tool', tool_call_id: 'call_2', content: '24 C' },
];

/** Knows no tools; a system message is folded in front; then user and assistant must alternate. */
export const alternatingTemplate = [
  "{%- set ns = namespace(turns=messages) %}",
  "{%- if messages | length > 0 and messages[0].role == 'system' %}{{- '[system]' + messages[0].content + '\\n' }}{%- set ns.turns = messages[1:] %}{%- endif %}",
  "{%- for message in ns.turns %}",
  "{%- if (message.role == 'user') != (loop.index0 % 2 == 0) %}{{- raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%- endif %}",
  "{{- '[' + message.role + ']' + message.content + '\\n' }}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '[assistant]' }}{%- endif %}",
].join('\n');

/** Renders tools and tool messages itself, but refuses a tool message right after another. */
export const toolRunRefusingTemplate = [
  "{%- if tools %}{{- '<tools>' + (tools | tojson) + '</tools>\\n' }}{%- endif %}",
  "{%- for message in messages %}",
  "{%- if message.role == 'tool' and not loop.first and messages[loop.index0 - 1].role == 'tool' %}{{- raise_exception('a tool message must follow an assistant message') }}{%- endif %}",
  "{%- if message.role == 'tool' %}{{- '<tool id=' + message.tool_call_id + '>' + message.content + '</tool>\\n' }}",
  "{%- else %}{{- '<' + message.role + '>' + message.content + '</' + message.role + '>\\n' }}{%- endif %}",
  "{%- endfor %}",
  "{%- if add_generation_prompt %}{{- '<assistant>' }}{%- endif %}",
].join('\n');
