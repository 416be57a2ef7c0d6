// A request's tools, tool_choice and parallel_tool_calls, turned into what the completion needs:
// the structural tag that enforces them (as a GrammarSpec), the parsers that read calls back per
// choice.
import { Grammar, GrammarError } from '../../../compiler/index.js';
import type { GrammarSpec } from '../../grammar-service/grammar-spec.js';
import { argumentsSchema, toolCallTag, type ToolChoice, type ToolDefinition } from '../../chat-format/tool-call-tag.js';
import { ToolCallParser } from '../../chat-format/tool-call-parser.js';
import type { ToolFormat } from '../../chat-format/tool-formats.js';
import { formatNodeOf } from '../../chat-format/reasoning.js';
import { badRequest } from '../api-error.js';
import type { ChatRequest } from './chat-request.js';
import type { RequestedFormat } from '../requested-format.js';

/** How `function.arguments` is answered: an object (the spec) or OpenAI's JSON string. */
export type ToolCallArguments = 'object' | 'string';

export interface ToolSetup {
  format: ToolFormat;
  /** Every tool, as the prompt lists them. */
  offered: ToolDefinition[];
  /** The tools the model may call: all, or tool_choice's allowed_tools. */
  tools: ToolDefinition[];
  choice: ToolChoice;
  parallel: boolean;
  /** The grammar enforcing the choice; undefined for `none`. */
  spec: GrammarSpec | undefined;
}

function choiceOf(request: ChatRequest): ToolChoice {
  const choice = request.tool_choice ?? 'auto';
  if (typeof choice === 'string') return { mode: choice };
  return choice.type === 'allowed_tools' ? { mode: choice.allowed_tools.mode } : { mode: 'named', name: choice.function.name };
}

/** The names tool_choice's allowed_tools limits calls to, or undefined for every tool. */
function allowedNames(request: ChatRequest): Set<string> | undefined {
  const choice = request.tool_choice;
  return typeof choice === 'object' && choice?.type === 'allowed_tools' ? new Set(choice.allowed_tools.tools.map((tool) => tool.function.name)) : undefined;
}

/**
 * undefined without tools; a 400 naming the spot when a parameters schema does not compile.
 * `answer` (the request's output format): under tool_choice auto, what an answer without calls
 * must be; the other choices answer with calls only.
 */
export function toolSetupOf(request: ChatRequest, format: ToolFormat, answer?: RequestedFormat): ToolSetup | undefined {
  if (!request.tools || request.tools.length === 0) return undefined;
  const offered = request.tools.map((tool, i): ToolDefinition => {
    const parameters = argumentsSchema(tool.function.parameters);
    try {
      Grammar.fromJSONSchema(parameters, format.args === 'json' ? {} : { style: format.args });
    } catch (error) {
      if (!(error instanceof GrammarError)) throw error;
      const pointer = error.location.kind === 'pointer' ? error.location.pointer : '';
      throw badRequest(`Invalid tools[${i}].function.parameters: ${error.message}`, `tools[${i}].function.parameters${pointer}`, 'invalid_tool_schema');
    }
    return { name: tool.function.name, ...(tool.function.description !== undefined ? { description: tool.function.description } : {}), parameters };
  });
  const allowed = allowedNames(request);
  // Only the allowed tools can be called; the prompt lists them all (so it stays the same, and cached, as the allowed set changes).
  const tools = allowed ? offered.filter((tool) => allowed.has(tool.name)) : offered;
  const choice = choiceOf(request);
  const parallel = request.parallel_tool_calls ?? true;
  const answerNode = answer && choice.mode === 'auto' ? formatNodeOf(answer.spec) : undefined;
  // A format whose calls are bare JSON (`{"name": ...`) could not tell a JSON answer from a call.
  if (answerNode && format.trigger.startsWith('{')) {
    const field = answer!.source.field;
    throw badRequest(`'${field}' with tools and tool_choice 'auto' is not possible with this model: it writes its calls as bare JSON (${format.trigger}…), which a JSON answer could not be told apart from. Send tool_choice 'none' for the answer, or leave ${field} out.`, field);
  }
  const spec: GrammarSpec | undefined = choice.mode === 'none' ? undefined : { kind: 'structural_tag', tag: toolCallTag(format, tools, choice, parallel, answerNode) };
  return { format, offered, tools, choice, parallel, spec };
}

/** tool_choice 'required' or a named function: the answer begins with a call (the grammar forces it). */
export function callIsForced(setup: ToolSetup | undefined): boolean {
  return setup?.choice.mode === 'required' || setup?.choice.mode === 'named';
}

/** A parser per choice when calls are possible; call ids are unique within the completion. */
export function toolParserFor(setup: ToolSetup | undefined, completionId: string, choice: number): ToolCallParser | undefined {
  if (!setup || setup.choice.mode === 'none') return undefined;
  const schemas = new Map(setup.tools.map((tool) => [tool.name, tool.parameters]));
  return new ToolCallParser(setup.format, schemas, `call_${completionId.replace(/^(chatcmpl-|resp_)/, '')}_${choice}_`, callIsForced(setup));
}
