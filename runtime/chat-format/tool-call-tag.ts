// The structural tag that enforces `tool_choice` while decoding, for one tool format:
//   auto      free text and calls (triggered_tags on the format's trigger); with an answer format
//             (response_format), either an answer in that format or calls as under required
//   required  calls only, at least one, as OpenAI's, vLLM's and llama-server's are: the output
//             starts with a call and ends after the last (whitespace between calls); for formats
//             with a section, exactly one section; where the format has a preamble message,
//             gpt-oss's, at most one such message may come first
//   named     exactly one call to that function, nothing else
//   parallel_tool_calls: false   at most one call (stop_after_first)
// Every call's arguments follow its `parameters` schema (as JSON, or in the format's XML style).
import { callOpenings, type ToolFormat, triggersOf } from './tool-formats.js';

export interface ToolDefinition {
  name: string;
  description?: string;
  /** An object schema (see `argumentsSchema`). */
  parameters: Record<string, unknown>;
}

export type ToolChoice = { mode: 'none' } | { mode: 'auto' } | { mode: 'required' } | { mode: 'named'; name: string };

/** OpenAI allows `parameters` to be left out ("an empty parameter list": the arguments are `{}`) or to leave out `type: "object"`. */
export function argumentsSchema(parameters: unknown): Record<string, unknown> {
  if (parameters === undefined) return { type: 'object', properties: {}, additionalProperties: false };
  const schema = parameters as Record<string, unknown>;
  return schema.type === undefined ? { ...schema, type: 'object' } : schema;
}

/** The calls to one tool, one tag per opening the model writes. */
function callTags(format: ToolFormat, tool: ToolDefinition): object[] {
  const args = { type: 'json_schema', json_schema: tool.parameters, ...(format.args === 'json' ? {} : { style: format.args }) };
  const index = format.callIndex;
  const numbered = index && index.lead === undefined ? [{ type: 'regex', pattern: index.pattern }, { type: 'const_string', value: index.after }] : [];
  const content = numbered.length > 0 ? { type: 'sequence', elements: [...numbered, args] } : args;
  const tags = callOpenings(format, tool.name).map((begin) => ({ type: 'tag', begin, content, end: format.callEnd }));
  if (index?.lead === undefined) return tags;
  // The index comes first: the tag begins with the text before it, the name follows it.
  return tags.map((tag) => ({ type: 'tag', begin: index.lead, content: { type: 'sequence', elements: [{ type: 'regex', pattern: index.pattern }, { type: 'const_string', value: tag.begin }, args] }, end: format.callEnd }));
}

/** Whitespace around calls in a spaced section (a pretty-printed JSON list). */
const SPACE = { type: 'regex', pattern: '[ \\t\\r\\n]{0,16}' };

/** The calls inside a section: one, or several joined by its separator. */
function sectionCalls(format: ToolFormat, calls: object[], several: boolean): object {
  const { separator, spaced } = format.section!;
  if (!spaced) return several ? { type: 'tags_with_separator', tags: calls, separator, at_least_one: true } : calls.length === 1 ? calls[0]! : { type: 'or', elements: calls };
  const one = calls.length === 1 ? calls[0]! : { type: 'or', elements: calls };
  const more = { type: 'star', content: { type: 'sequence', elements: [SPACE, ...(separator === '' ? [] : [{ type: 'const_string', value: separator }, SPACE]), one] } };
  return { type: 'sequence', elements: [SPACE, one, ...(several ? [more] : []), SPACE] };
}

/** At most one preamble message; its text cannot hold a trigger, which the parser would read as a call. */
function preambleOf(format: ToolFormat): object {
  const { begin, end } = format.preamble!;
  const message = { type: 'tag', begin, content: { type: 'any_text', excludes: triggersOf(format) }, end };
  return { type: 'optional', content: { type: 'sequence', elements: [...(format.around?.before ?? []), message] } };
}

/**
 * The `{type: "structural_tag", format}` for a choice other than `none`. `answer`, a structural
 * tag node, is what an answer that calls nothing must be (response_format); only `auto` has such
 * answers.
 */
export function toolCallTag(format: ToolFormat, tools: readonly ToolDefinition[], choice: Exclude<ToolChoice, { mode: 'none' }>, parallel: boolean, answer?: object): object {
  const named = choice.mode === 'named' ? tools.find((tool) => tool.name === choice.name) : undefined;
  if (choice.mode === 'named' && !named) throw new Error(`tool_choice names '${choice.name}', which is not among the tools`);
  // Under auto, the template's own "no tool needed" call is allowed too (no arguments).
  const direct = choice.mode === 'auto' && format.directAnswer ? [{ name: format.directAnswer, parameters: { type: 'object', properties: {}, additionalProperties: false } }] : [];
  const calls = [...(named ? [named] : tools), ...direct].flatMap((tool) => callTags(format, tool));
  const flags = { ...(choice.mode === 'required' ? { at_least_one: true } : {}), ...(parallel ? {} : { stop_after_first: true }) };
  const triggers = triggersOf(format);
  // Tags per trigger: the first trigger each call's begin starts with.
  const triggered = (tags: object[]) => ({ type: 'triggered_tags', triggers: triggers.filter((t) => tags.some((tag) => (tag as { begin: string }).begin.startsWith(t))), tags, ...flags });
  const forced = (node: object): object => (format.around ? { type: 'sequence', elements: [...format.around.before, node, ...format.around.after] } : node);
  // What required is: calls only (text after a required call ran to max_tokens, finish_reason
  // "length", and broke the SDKs' tool helpers), or, for formats with a section, the section
  // itself (it holds at least one call), as TOOL-FORMATS.md maps it.
  let callsOnly: object;
  let top: object;
  if (!format.section) {
    const one = calls.length === 1 ? calls[0]! : { type: 'or', elements: calls };
    callsOnly = forced(parallel ? { type: 'sequence', elements: [one, { type: 'star', content: { type: 'sequence', elements: [SPACE, one] } }] } : one);
    top = named ? forced(one) : choice.mode === 'required' ? callsOnly : triggered(calls);
  } else {
    const { begin, end, open, close } = format.section;
    const inner = sectionCalls(format, calls, !named && parallel);
    const content = open || close ? { type: 'sequence', elements: [...(open ? [{ type: 'regex', pattern: open.pattern }] : []), inner, ...(close ? [{ type: 'regex', pattern: close.pattern }] : [])] } : inner;
    callsOnly = forced({ type: 'tag', begin, content, end });
    top = named || choice.mode === 'required' ? callsOnly : triggered([{ type: 'tag', begin, content, end }]);
  }
  const withPreamble = (node: object) => (format.preamble ? { type: 'sequence', elements: [preambleOf(format), node] } : node);
  if (choice.mode === 'required') top = withPreamble(top);
  else if (choice.mode === 'auto' && answer) top = { type: 'or', elements: [answer, withPreamble(callsOnly)] };
  return { type: 'structural_tag', format: top };
}
