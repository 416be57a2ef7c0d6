// For chat templates that know nothing of tools: the tools reach the model through a system
// prompt block that shows the format's own call syntax, past calls are written into the
// assistant text in that syntax, and tool results become user turns in <tool_response> tags,
// the results of one round of calls in one turn (as Hermes-style templates write them, and as
// templates that demand alternating roles require).
import { mergeToolRuns } from './chat-messages.js';
import type { TemplateMessage } from './chat-messages.js';
import type { ToolDefinition } from './tool-call-tag.js';
import type { ToolFormat } from './tool-formats.js';

/** A parameter: `value` is the string itself, or the JSON of a value of another type (`json`). */
const XML_PARAM: Record<string, (key: string, value: string, json: boolean) => string> = {
  qwen_xml: (k, v) => `<parameter=${k}>\n${v}\n</parameter>\n`,
  minimax_xml: (k, v) => `<parameter name="${k}">${v}</parameter>\n`,
  // DeepSeek-V3.2's encoder says which: string="true" for a string, "false" for JSON.
  deepseek_xml: (k, v, json) => `<｜DSML｜parameter name="${k}" string="${!json}">${v}</｜DSML｜parameter>\n`,
  glm_xml: (k, v) => `<arg_key>${k}</arg_key><arg_value>${v}</arg_value>`,
};

/** A Kimi-K3 argument: its JSON type named, strings raw, the rest as JSON. */
function kimiArgument(key: string, value: unknown): string {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  const attr = key.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<|open|>argument key="${attr}" type="${type}"<|sep|>${typeof value === 'string' ? value : JSON.stringify(value)}<|close|>argument<|sep|>`;
}

/** A Cohere value: strings raw, objects and arrays nested, the rest JSON. */
function cohereValue(key: string | null, value: unknown): string {
  const name = key === null ? '' : ` name="${key.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)}"`;
  if (typeof value === 'string') return `<cofl:value${name} type="raw">${value}</cofl:value>`;
  if (Array.isArray(value)) return `<cofl:value${name} type="list">${value.map((v) => cohereValue(null, v)).join('')}</cofl:value>`;
  if (value !== null && typeof value === 'object') return `<cofl:value${name} type="dict">${Object.entries(value).map(([k, v]) => cohereValue(k, v)).join('')}</cofl:value>`;
  return `<cofl:value${name} type="json">${JSON.stringify(value)}</cofl:value>`;
}

/** One call as the format writes it (a whole section for sectioned formats). */
export function renderToolCall(format: ToolFormat, name: string, args: Record<string, unknown> | string, index = 0): string {
  let body: string;
  if (format.args === 'json') body = typeof args === 'string' ? args : JSON.stringify(args);
  else {
    const entries = Object.entries(typeof args === 'string' ? { arguments: args } : args);
    if (format.args === 'kimi_k3_xml') body = entries.map(([k, v]) => kimiArgument(k, v)).join('');
    else if (format.args === 'cohere_xml') body = entries.map(([k, v]) => cohereValue(k, v)).join('');
    else body = entries.map(([k, v]) => XML_PARAM[format.args]!(k, typeof v === 'string' ? v : JSON.stringify(v), typeof v !== 'string')).join('');
  }
  const lead = format.callIndex?.lead;
  const numbered = format.callIndex && lead === undefined ? `${index}${format.callIndex.after}` : '';
  const call = `${lead === undefined ? '' : `${lead}${index}`}${format.callBegin(name)}${numbered}${body}${format.callEnd}`;
  const section = format.section;
  return section ? `${section.begin}${section.open?.text ?? ''}${call}${section.close?.text ?? ''}${section.end}` : call;
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
