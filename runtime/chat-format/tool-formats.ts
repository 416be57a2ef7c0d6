// How each model family writes a tool call (see TOOL-FORMATS.md), as data: the text that opens
// and closes a call, an optional section wrapping several calls, and how arguments are written.
// The same description drives the structural tag that enforces calls while decoding
// (tool-call-tag.ts) and the parser that reads them back (tool-call-parser.ts), so the two
// cannot disagree about the syntax.
import type { JsonSchemaStyle } from '../../compiler/index.js';

export type ToolFormatKey = 'hermes' | 'llama' | 'qwen3_coder' | 'glm' | 'mistral' | 'minimax' | 'deepseek_v3_1' | 'deepseek_v3_2' | 'deepseek_r1' | 'kimi' | 'kimi_k3' | 'cohere' | 'cohere_xml' | 'command_r' | 'harmony';

/** Where a model's thinking is: the text that opens and closes it (`<think>`, `</think>` by
 * default); `answerOpen`: a prompt ending with it starts in the answer (thinking switched off). */
export interface ThinkMarkers {
  open: string;
  close: string;
  answerOpen?: string;
  /** What in a chat template shows that the model thinks (default: `close`). */
  inTemplate?: string;
  /** Markup the answer may open with after the thinking (a response block, the final channel). */
  answerLeads?: string[];
}

export const THINK_TAGS: ThinkMarkers = { open: '<think>', close: '</think>' };

/** Text a section accepts in several spellings: `pattern` (a regex) is what the grammar and the
 * parser accept, `text` how the server writes it. */
export interface SectionText {
  pattern: string;
  text: string;
}

export interface ToolFormat {
  key: ToolFormatKey;
  /** Free text that, once produced, must continue as calls (a prefix of `section.begin` or of every call's begin). */
  trigger: string;
  /** Further triggers, for call openings that do not start with `trigger` (Harmony's recipient first). */
  otherTriggers?: string[];
  /**
   * A block holding one or more calls, joined by `separator` (`spaced`: with whitespace around
   * calls and separators); `open` and `close`: text the model writes in more than one way, right
   * after `begin` and right before `end` (Command-R's code fence).
   */
  section?: { begin: string; end: string; separator: string; spaced?: boolean; open?: SectionText; close?: SectionText };
  /** The exact text opening a call to `name` (after `callIndex.lead` and the index, where the index comes first). */
  callBegin(name: string): string;
  /** Other openings of a call to `name` that the model writes too (Harmony's header orders). */
  callVariants?(name: string): string[];
  /**
   * A call index the model writes: a regex for it; right after `callBegin`, followed by `after`
   * (Kimi's `functions.F:N`), or with `lead`, between `lead` and `callBegin` (Cohere's
   * `id="N" name="F"`); `id`: the response's call id it makes (else one is generated).
   */
  callIndex?: { pattern: string; after: string; lead?: string; id?(name: string, index: string): string };
  /** Markup around the answer (response blocks, channel headers, end markers): never content. */
  markup?: string[];
  /** For tool_choice required or named: structural-tag nodes before and after the calls (a
   * response block the template always writes first, the message's end). */
  around?: { before: object[]; after: object[] };
  /**
   * A message to the user that may come before the calls under tool_choice required (gpt-oss's
   * commentary preamble): `begin` (after `around.before`), its text, `end`. Its text is content.
   */
  preamble?: { begin: string; end: string };
  /** The model's think block, where it is not <think>…</think>. */
  thinking?: ThinkMarkers;
  /**
   * A tool of the template's own that says "no tool is needed" (Command-R+'s `directly-answer`):
   * under tool_choice auto the grammar allows a call to it (with `{}`), and the parser reads
   * such a call as no call at all: the reply is the text around it, plain content.
   */
  directAnswer?: string;
  /** The text closing a call, after the arguments (leading whitespace in it is optional when parsing). */
  callEnd: string;
  /** `json`: the arguments object as JSON; otherwise the XML style of its top-level properties. */
  args: 'json' | Exclude<JsonSchemaStyle, 'json'>;
}

const DSML = '｜DSML｜';
/** A call number: bounded, so that a model cannot write digits forever. */
const CALL_NUMBER = '[0-9]{1,6}';
const COHERE_MARKUP = ['<|START_RESPONSE|>', '<|END_RESPONSE|>', '<|START_TEXT|>', '<|END_TEXT|>'];
const COHERE_THINKING: ThinkMarkers = { open: '<|START_THINKING|>', close: '<|END_THINKING|>', answerLeads: ['<|START_RESPONSE|>', '<|START_TEXT|>'] };
/** Kimi-K3 writes attribute values with & and " escaped. */
const k3Attribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

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
    callIndex: { pattern: CALL_NUMBER, after: '<|tool_call_argument_begin|>', id: (name, index) => `functions.${name}:${index}` },
    callEnd: '<|tool_call_end|>',
    args: 'json',
  },
  // Kimi-K3 (XTML): a response block, then numbered calls in a tools block, typed arguments.
  kimi_k3: {
    key: 'kimi_k3',
    trigger: '<|open|>tools<|sep|>',
    section: { begin: '<|open|>tools<|sep|>', end: '<|close|>tools<|sep|>', separator: '' },
    callBegin: (name) => `<|open|>call tool="${k3Attribute(name)}" index="`,
    callIndex: { pattern: CALL_NUMBER, after: '"<|sep|>' },
    callEnd: '<|close|>call<|sep|>',
    args: 'kimi_k3_xml',
    markup: ['<|open|>response<|sep|>', '<|close|>response<|sep|>', '<|close|>message<|sep|>'],
    around: {
      before: [{ type: 'optional', content: { type: 'const_string', value: '<|open|>response<|sep|>' } }, { type: 'const_string', value: '<|close|>response<|sep|>' }],
      after: [{ type: 'const_string', value: '<|close|>message<|sep|>' }],
    },
    // The template builds its tags with macros: open_tag('think').
    thinking: { open: '<|open|>think<|sep|>', close: '<|close|>think<|sep|>', answerOpen: '<|open|>response<|sep|>', inTemplate: "tag('think'", answerLeads: ['<|open|>response<|sep|>'] },
  },
  // Cohere Command-A, Command-R7B: a JSON list of numbered calls between action markers.
  cohere: {
    key: 'cohere',
    trigger: '<|START_ACTION|>',
    section: { begin: '<|START_ACTION|>[', end: ']<|END_ACTION|>', separator: ',', spaced: true },
    callIndex: { lead: '{"tool_call_id": "', pattern: CALL_NUMBER, after: '' },
    callBegin: (name) => `", "tool_name": ${JSON.stringify(name)}, "parameters": `,
    callEnd: '}',
    args: 'json',
    markup: COHERE_MARKUP,
    thinking: COHERE_THINKING,
  },
  // Cohere Command-R, Command-R+ (their tool_use template): `Action:`, then a fenced JSON list of
  // {"tool_name", "parameters"} objects, pretty-printed as the template writes past calls (it
  // puts the fence on a line of its own and closes it right after the list; Cohere's examples
  // write `Action: ```json` and a fence on its own line: both are accepted).
  command_r: {
    key: 'command_r',
    trigger: 'Action:',
    section: {
      begin: 'Action:',
      open: { pattern: '[ \\n]?```json\\n\\[', text: '\n```json\n[\n    ' },
      close: { pattern: '\\]\\n?```', text: '\n]```' },
      end: '',
      separator: ',',
      spaced: true,
    },
    callBegin: (name) => `{\n        "tool_name": ${JSON.stringify(name)},\n        "parameters": `,
    callEnd: '\n    }',
    args: 'json',
    // The template tells the model to use it "if calling the other tools is unnecessary".
    directAnswer: 'directly-answer',
  },
  // Cohere's later Command models: <cofl:tool_call> elements with nested <cofl:value> arguments.
  cohere_xml: {
    key: 'cohere_xml',
    trigger: '<cofl:tool_calls>',
    section: { begin: '<cofl:tool_calls>', end: '</cofl:tool_calls>', separator: '', spaced: true },
    callIndex: { lead: '<cofl:tool_call id="', pattern: CALL_NUMBER, after: '' },
    callBegin: (name) => `" name="${name}">`,
    callEnd: '</cofl:tool_call>',
    args: 'cohere_xml',
    markup: COHERE_MARKUP,
    thinking: COHERE_THINKING,
  },
  // OpenAI Harmony (gpt-oss): a call is a commentary message to functions.F, its JSON ended by
  // <|call|>, the stop token (so the text of a call ends with its JSON); the answer is the final
  // channel; the analysis channel is the thinking.
  harmony: {
    key: 'harmony',
    trigger: '<|channel|>commentary to=functions.',
    otherTriggers: [' to=functions.'],
    callBegin: (name) => `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>`,
    callVariants: (name) => [`<|channel|>commentary to=functions.${name}<|message|>`, ` to=functions.${name}<|channel|>commentary json<|message|>`, ` to=functions.${name}<|channel|>commentary <|constrain|>json<|message|>`],
    callEnd: '',
    args: 'json',
    // A commentary message without a recipient is a preamble to the user: content too.
    markup: ['<|start|>assistant', '<|channel|>final<|message|>', '<|channel|>commentary<|message|>', '<|return|>', '<|end|>', '<|call|>'],
    around: { before: [{ type: 'optional', content: { type: 'const_string', value: '<|start|>assistant' } }], after: [] },
    // gpt-oss often tells the user what it is about to do before calling, under required too.
    preamble: { begin: '<|channel|>commentary<|message|>', end: '<|end|>' },
    thinking: { open: '<|channel|>analysis<|message|>', close: '<|end|>', answerLeads: ['<|start|>assistant<|channel|>final<|message|>'] },
  },
};

/** Every literal opening of a call to `name` (after the lead and index where those come first). */
export function callOpenings(format: ToolFormat, name: string): string[] {
  return [format.callBegin(name), ...(format.callVariants?.(name) ?? [])];
}

/** Every trigger of the format. */
export function triggersOf(format: ToolFormat): string[] {
  return [format.trigger, ...(format.otherTriggers ?? [])];
}

export const TOOL_FORMAT_KEYS = Object.keys(TOOL_FORMATS) as ToolFormatKey[];

export function isToolFormatKey(value: string): value is ToolFormatKey {
  return Object.hasOwn(TOOL_FORMATS, value);
}
