// Which tool-call format a model writes, recognised from the literal markers in its chat
// template (the template is the ground truth of the format). A template that shows no known
// format, or none at all, gets the Hermes `<tool_call>` form, which the ChatML fallback uses.
import type { ToolFormatKey } from './tool-formats.js';

export interface DetectedToolFormat {
  key: ToolFormatKey;
  /** Whether the template renders `tools` itself; if not, the server adds a system-prompt block. */
  templateKnowsTools: boolean;
  /** How it was decided, for the start-up log. */
  reason: string;
}

const RULES: { key: ToolFormatKey; test: (t: string) => boolean; reason: string }[] = [
  { key: 'deepseek_v3_2', test: (t) => t.includes('｜DSML｜'), reason: 'DSML invoke markers' },
  { key: 'deepseek_r1', test: (t) => t.includes('<｜tool▁call▁begin｜>') && t.includes('```json'), reason: 'tool▁call markers with fenced JSON' },
  { key: 'deepseek_v3_1', test: (t) => t.includes('<｜tool▁call▁begin｜>'), reason: 'tool▁call markers' },
  { key: 'kimi', test: (t) => t.includes('<|tool_calls_section_begin|>'), reason: '<|tool_calls_section_begin|> with functions.F:N calls' },
  { key: 'kimi_k3', test: (t) => t.includes('<|open|>') && t.includes('<|sep|>') && t.includes('argument'), reason: '<|open|>…<|sep|> blocks with call and argument elements (Kimi-K3)' },
  { key: 'harmony', test: (t) => t.includes('<|channel|>') && t.includes('to=') && t.includes('functions.'), reason: '<|channel|> messages to=functions.F (Harmony)' },
  { key: 'cohere_xml', test: (t) => t.includes('<cofl:tool_call'), reason: '<cofl:tool_call> elements (Cohere)' },
  { key: 'cohere', test: (t) => t.includes('<|START_ACTION|>'), reason: '<|START_ACTION|> JSON calls (Cohere Command)' },
  // After Cohere's <|START_ACTION|>: Command-R7B's template also says "Action:" and "```json".
  { key: 'command_r', test: (t) => t.includes('Action:') && t.includes('```json') && t.includes('"tool_name"'), reason: "'Action:' and a ```json list of tool_name/parameters calls (Command-R, Command-R+)" },
  { key: 'minimax', test: (t) => t.includes('<minimax:tool_call>'), reason: '<minimax:tool_call>' },
  { key: 'glm', test: (t) => t.includes('<arg_key>'), reason: '<tool_call> with <arg_key>/<arg_value>' },
  { key: 'mistral', test: (t) => t.includes('[TOOL_CALLS]') && t.includes('[ARGS]'), reason: '[TOOL_CALLS]…[ARGS]' },
  { key: 'qwen3_coder', test: (t) => t.includes('<tool_call>') && t.includes('<function='), reason: '<tool_call> with <function=…>' },
  { key: 'hermes', test: (t) => t.includes('<tool_call>'), reason: '<tool_call> with JSON' },
  { key: 'llama', test: (t) => t.includes('<|start_header_id|>') && /"parameters"|ipython/.test(t), reason: 'Llama 3 headers with JSON "parameters"' },
];

export function detectToolFormat(template: string | undefined): DetectedToolFormat {
  if (!template) return { key: 'hermes', templateKnowsTools: true, reason: 'ChatML fallback template' };
  const templateKnowsTools = /\btools\b/.test(template);
  for (const rule of RULES) {
    if (rule.test(template)) return { key: rule.key, templateKnowsTools, reason: rule.reason };
  }
  return { key: 'hermes', templateKnowsTools, reason: 'no known tool-call markers in the template; the generic <tool_call> form' };
}
