// For chat templates that know nothing of tools: the tools reach the model through a system
// prompt block that shows the format's own call syntax, past calls are written into the
// assistant text in that syntax, and tool results become user turns in <tool_response> tags,
// the results of one round of calls in one turn (as Hermes-style templates write them, and as
// templates that demand alternating roles require).
import { mergeToolRuns } from './chat-messages.js';
import type { TemplateMessage } from './chat-template.js';
import type { ToolDefinition } from './tool-call-tag.js';
import type { ToolFormat } from './tool-formats.js';

const XML_PARAM: Record<string, (key: string, value: string) => string> = {
  qwen_xml: (k, v) => `<parameter=${k}>\n${v}\n</parameter>\n`,
  minimax_xml: (k, v) => `<parameter name="${k}">${v}</parameter>\n`,
  deepseek_xml: (k, v) => `<｜DSML｜parameter name="${k}" string="true">${v}</｜DSML｜parameter>\n`,
  glm_xml: (k, v) => `<arg_key>${k}</arg_key><arg_value>${v}</arg_value>`,
};

/** One call as the format writes it (a whole section for sectioned formats). */
export function renderToolCall(format: ToolFormat, name: string, args: Record<string, unknown> | string, index = 0): string {
  let body: string;
  if (format.args === 'json') body = typeof args === 'string' ? args : JSON.stringify(args);
  else {
    const entries = typeof args === 'string' ? { arguments: args } : args;
    body = Object.entries(entries)
      .map(([k, v]) => XML_PARAM[format.args]!(k, typeof v === 'string' ? v : JSON.stringify(v)))
      .join('');
  }
  const numbered = format.callIndex ? `${index}${format.callIndex.after}` : '';
  const call = `${format.callBegin(name)}${numbered}${body}${format.callEnd}`;
  return format.section ? `${format.section.begin}${call}${format.section.end}` : call;
}

function toolsBlock(format: ToolFormat, tools: readonly ToolDefinition[]): string {
  const signatures = tools.map((tool) => JSON.stringify({ type: 'function', function: tool })).join('\n');
  const example = renderToolCall(format, '<function-name>', format.args === 'json' ? '<arguments-json-object>' : '<value>');
  return `# Tools\n\nYou may call one or more functions. Function signatures:\n<tools>\n${signatures}\n</tools>\n\nTo call a function, write:\n${example}`;
}

export function withToolPrompt(messages: readonly TemplateMessage[], tools: readonly ToolDefinition[], format: ToolFormat): TemplateMessage[] {
  const wrapped = messages.map((message): TemplateMessage => {
    if (message.role === 'tool') return { role: 'tool', content: `<tool_response>\n${message.content}\n</tool_response>` };
    if (message.role !== 'assistant' || !message.tool_calls) return message;
    const calls = message.tool_calls.map((call, index) => renderToolCall(format, call.function.name, call.function.arguments, index));
    return { role: 'assistant', content: [message.content, ...calls].filter((part) => part !== '').join('\n') };
  });
  const out = mergeToolRuns(wrapped).map((message) => (message.role === 'tool' ? { ...message, role: 'user' } : message));
  if (tools.length === 0) return out;
  const block = toolsBlock(format, tools);
  const first = out[0];
  if (first?.role === 'system') out[0] = { ...first, content: `${first.content}\n\n${block}` };
  else out.unshift({ role: 'system', content: block });
  return out;
}
