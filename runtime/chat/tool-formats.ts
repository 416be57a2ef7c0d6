// How each model family writes a tool call (see TOOL-FORMATS.md), as data: the text that opens
// and closes a call, an optional section wrapping several calls, and how arguments are written.
// The same description drives the structural tag that enforces calls while decoding
// (tool-call-tag.ts) and the parser that reads them back (tool-call-parser.ts), so the two
// cannot disagree about the syntax.
import type { JsonSchemaStyle } from '../../compiler/index.js';

export type ToolFormatKey = 'hermes' | 'llama' | 'qwen3_coder' | 'glm' | 'mistral' | 'minimax' | 'deepseek_v3_1' | 'deepseek_v3_2' | 'deepseek_r1' | 'kimi';

export interface ToolFormat {
  key: ToolFormatKey;
  /** Free text that, once produced, must continue as calls (a prefix of `section.begin` or of every call's begin). */
  trigger: string;
  /** A block holding one or more calls, joined by `separator`. */
  section?: { begin: string; end: string; separator: string };
  /** The exact text opening a call to `name`. */
  callBegin(name: string): string;
  /**
   * A call index the model writes right after `callBegin` (Kimi's `functions.F:N`): a regex for
   * it, the literal that follows it before the arguments, and the response's call id it makes.
   */
  callIndex?: { pattern: string; after: string; id(name: string, index: string): string };
  /** The text closing a call, after the arguments (leading whitespace in it is optional when parsing). */
  callEnd: string;
  /** `json`: the arguments object as JSON; otherwise the XML style of its top-level properties. */
  args: 'json' | Exclude<JsonSchemaStyle, 'json'>;
}

const DSML = '｜DSML｜';

export const TOOL_FORMATS: Record<ToolFormatKey, ToolFormat> = {
  // Hermes 2 Pro, Qwen2.5, Qwen3, the ChatML fallback and the tiny test models.
  hermes: {
    key: 'hermes',
    trigger: '<tool_call>',
    callBegin: (name) => `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": `,
    callEnd: '}\n</tool_call>',
    args: 'json',
  },
  // Llama 3.1/3.2/3.3 JSON tool calling (the call is the whole message, ended by <|eom_id|>/<|eot_id|>).
  llama: {
    key: 'llama',
    trigger: '{"name": ',
    callBegin: (name) => `{"name": ${JSON.stringify(name)}, "parameters": `,
    callEnd: '}',
    args: 'json',
  },
  // Qwen3-Coder, Qwen3.5/3.6: <function=F> with <parameter=K> blocks.
  qwen3_coder: {
    key: 'qwen3_coder',
    trigger: '<tool_call>\n<function=',
    callBegin: (name) => `<tool_call>\n<function=${name}>\n`,
    callEnd: '\n</function>\n</tool_call>',
    args: 'qwen_xml',
  },
  // GLM-4.5/4.6/4.7, GLM-5: the name right after <tool_call>, then <arg_key>/<arg_value> pairs.
  glm: {
    key: 'glm',
    trigger: '<tool_call>',
    callBegin: (name) => `<tool_call>${name}`,
    callEnd: '</tool_call>',
    args: 'glm_xml',
  },
  // Mistral Small 3.2, Magistral, Devstral: [TOOL_CALLS]F[ARGS] JSON, one marker per call.
  mistral: {
    key: 'mistral',
    trigger: '[TOOL_CALLS]',
    callBegin: (name) => `[TOOL_CALLS]${name}[ARGS]`,
    callEnd: '',
    args: 'json',
  },
  // MiniMax-M2: invokes inside one <minimax:tool_call> block.
  minimax: {
    key: 'minimax',
    trigger: '<minimax:tool_call>',
    section: { begin: '<minimax:tool_call>\n', end: '</minimax:tool_call>', separator: '' },
    callBegin: (name) => `<invoke name="${name}">\n`,
    callEnd: '\n</invoke>\n',
    args: 'minimax_xml',
  },
  // DeepSeek V3.1 / V3.2-Exp: name, separator, JSON.
  deepseek_v3_1: {
    key: 'deepseek_v3_1',
    trigger: '<｜tool▁calls▁begin｜>',
    section: { begin: '<｜tool▁calls▁begin｜>', end: '<｜tool▁calls▁end｜>', separator: '' },
    callBegin: (name) => `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>`,
    callEnd: '<｜tool▁call▁end｜>',
    args: 'json',
  },
  // DeepSeek V3.2: DSML invokes with typed parameters.
  deepseek_v3_2: {
    key: 'deepseek_v3_2',
    trigger: `<${DSML}function_calls>`,
    section: { begin: `<${DSML}function_calls>\n`, end: `</${DSML}function_calls>`, separator: '' },
    callBegin: (name) => `<${DSML}invoke name="${name}">\n`,
    callEnd: `\n</${DSML}invoke>\n`,
    args: 'deepseek_xml',
  },
  // DeepSeek R1 (and R1-0528): a fenced JSON block per call, calls separated by newlines.
  deepseek_r1: {
    key: 'deepseek_r1',
    trigger: '<｜tool▁calls▁begin｜>',
    section: { begin: '<｜tool▁calls▁begin｜>', end: '<｜tool▁calls▁end｜>', separator: '\n' },
    callBegin: (name) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n`,
    callEnd: '\n```<｜tool▁call▁end｜>',
    args: 'json',
  },
  // Kimi-K2 / K2.5: numbered calls `functions.F:N` inside one section; the call id is that text.
  kimi: {
    key: 'kimi',
    trigger: '<|tool_calls_section_begin|>',
    section: { begin: '<|tool_calls_section_begin|>', end: '<|tool_calls_section_end|>', separator: '' },
    callBegin: (name) => `<|tool_call_begin|>functions.${name}:`,
    callIndex: { pattern: '[0-9]+', after: '<|tool_call_argument_begin|>', id: (name, index) => `functions.${name}:${index}` },
    callEnd: '<|tool_call_end|>',
    args: 'json',
  },
};

export const TOOL_FORMAT_KEYS = Object.keys(TOOL_FORMATS) as ToolFormatKey[];

export function isToolFormatKey(value: string): value is ToolFormatKey {
  return Object.hasOwn(TOOL_FORMATS, value);
}
