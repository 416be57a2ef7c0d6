// The structural tag that enforces `tool_choice` while decoding, for one tool format:
//   auto      free text and calls (triggered_tags on the format's trigger)
//   required  at least one call (+ at_least_one: the output starts with a call; for formats
//             with a section, exactly one section)
//   named     exactly one call to that function, nothing else
//   parallel_tool_calls: false   at most one call (stop_after_first)
// Every call's arguments follow its `parameters` schema (as JSON, or in the format's XML style).
import type { ToolFormat } from './tool-formats.js';

export interface ToolDefinition {
  name: string;
  description?: string;
  /** An object schema (see `argumentsSchema`). */
  parameters: Record<string, unknown>;
}

export type ToolChoice = { mode: 'none' } | { mode: 'auto' } | { mode: 'required' } | { mode: 'named'; name: string };

/** OpenAI allows `parameters` to be left out (no arguments) or to leave out `type: "object"`. */
export function argumentsSchema(parameters: unknown): Record<string, unknown> {
  if (parameters === undefined) return { type: 'object', properties: {} };
  const schema = parameters as Record<string, unknown>;
  return schema.type === undefined ? { ...schema, type: 'object' } : schema;
}

function callTag(format: ToolFormat, tool: ToolDefinition): object {
  const args = { type: 'json_schema', json_schema: tool.parameters, ...(format.args === 'json' ? {} : { style: format.args }) };
  const index = format.callIndex;
  const content = index ? { type: 'sequence', elements: [{ type: 'regex', pattern: index.pattern }, { type: 'const_string', value: index.after }, args] } : args;
  return { type: 'tag', begin: format.callBegin(tool.name), content, end: format.callEnd };
}

/** The `{type: "structural_tag", format}` for a choice other than `none`. */
export function toolCallTag(format: ToolFormat, tools: readonly ToolDefinition[], choice: Exclude<ToolChoice, { mode: 'none' }>, parallel: boolean): object {
  const named = choice.mode === 'named' ? tools.find((tool) => tool.name === choice.name) : undefined;
  if (choice.mode === 'named' && !named) throw new Error(`tool_choice names '${choice.name}', which is not among the tools`);
  const calls = (named ? [named] : tools).map((tool) => callTag(format, tool));
  const flags = { ...(choice.mode === 'required' ? { at_least_one: true } : {}), ...(parallel ? {} : { stop_after_first: true }) };
  let top: object;
  if (!format.section) {
    top = named ? calls[0]! : { type: 'triggered_tags', triggers: [format.trigger], tags: calls, ...flags };
  } else {
    const { begin, end, separator } = format.section;
    const inner = named ? calls[0]! : { type: 'tags_with_separator', tags: calls, separator, at_least_one: true, ...(parallel ? {} : { stop_after_first: true }) };
    const section = { type: 'tag', begin, content: inner, end };
    // required is the section itself (it holds at least one call), as TOOL-FORMATS.md maps it.
    top = named || choice.mode === 'required' ? section : { type: 'triggered_tags', triggers: [format.trigger], tags: [section], ...flags };
  }
  return { type: 'structural_tag', format: top };
}
