// Turns a request body into a checked ResponsesRequest, or a 400 naming the offending field: the
// schema (responses-request-schema.ts), then what it cannot say.
import { badRequest } from '../api-error.js';
import { requestValidator } from '../request-validator.js';
import { responsesRequestSchema } from './responses-request-schema.js';

export type TextPart = { type: 'input_text' | 'output_text'; text: string } | { type: 'refusal'; refusal: string };

export type InputItem =
  | { type?: 'message'; role: 'user' | 'system' | 'developer' | 'assistant'; content: string | TextPart[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | TextPart[] }
  | { type: 'reasoning' };

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

export interface NamedFunction {
  type: 'function';
  name: string;
}

export type TextFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean | null; description?: string };

export const LOGPROBS_INCLUDE = 'message.output_text.logprobs';

export interface ResponsesRequest {
  model: string;
  input: string | InputItem[];
  instructions?: string | null;
  tools?: FunctionTool[] | null;
  tool_choice?: 'none' | 'auto' | 'required' | NamedFunction | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: NamedFunction[] } | null;
  parallel_tool_calls?: boolean | null;
  text?: { format?: TextFormat } | null;
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  top_logprobs?: number | null;
  include?: string[] | null;
  stream?: boolean | null;
  truncation?: 'disabled' | 'auto' | null;
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  background?: boolean | null;
  store?: boolean | null;
  /** A stored response to go on from: its conversation and its output come before `input`. */
  previous_response_id?: string | null;
  user?: string | null;
  metadata?: Record<string, string> | null;
  service_tier?: string | null;
  prompt_cache_key?: string | null;
  safety_identifier?: string | null;
}

const validate = requestValidator<ResponsesRequest>(responsesRequestSchema);

export function parseResponsesRequest(body: unknown): ResponsesRequest {
  const request = validate(body);
  if (request.background === true) {
    throw badRequest('background is not supported: nothing runs in the background here; send the request without it (or stream it).', 'background', 'unsupported_parameter');
  }
  checkTools(request);
  // Going on from a stored response, the input may answer its calls: checked with them (responses.ts).
  if (request.previous_response_id == null) {
    if (typeof request.input !== 'string' && request.input.every((item) => item.type === 'reasoning')) {
      throw badRequest('input has no message to answer: reasoning items alone are left out of the prompt.', 'input');
    }
    checkCallOutputs(request.input, 0);
  }
  return request;
}

/** Unique names, object parameters, tool_choice naming one of them, and tools to choose from. */
function checkTools(request: ResponsesRequest): void {
  const names = new Set<string>();
  (request.tools ?? []).forEach((tool, i) => {
    if (names.has(tool.name)) throw badRequest(`tools[${i}].name '${tool.name}' is already the name of an earlier tool; names must be unique.`, `tools[${i}].name`);
    names.add(tool.name);
    const type = tool.parameters?.type;
    if (type !== undefined && type !== 'object') throw badRequest(`tools[${i}].parameters must describe an object (type 'object').`, `tools[${i}].parameters`);
  });
  const choice = request.tool_choice;
  if (choice != null && choice !== 'auto' && choice !== 'none' && names.size === 0) throw badRequest(`tool_choice ${JSON.stringify(choice)} needs 'tools' to choose from.`, 'tool_choice');
  if (typeof choice === 'object' && choice?.type === 'function' && !names.has(choice.name)) {
    throw badRequest(`tool_choice names the function '${choice.name}', which is not among the tools.`, 'tool_choice.name');
  }
  if (typeof choice === 'object' && choice?.type === 'allowed_tools') {
    choice.tools.forEach((tool, i) => {
      if (!names.has(tool.name)) throw badRequest(`tool_choice.tools names the function '${tool.name}', which is not among the tools.`, `tool_choice.tools[${i}].name`);
    });
  }
}

/**
 * As OpenAI's: every function_call_output answers an earlier function_call by its call_id, and
 * every call is answered (a template would otherwise show the model a call that never returned).
 * The items before `first` are a stored conversation's (previous_response_id), the rest the
 * request's `input`, which the errors name.
 */
export function checkCallOutputs(items: ResponsesRequest['input'], first: number): void {
  if (typeof items === 'string') return;
  const where = (i: number) => (i >= first ? `input[${i - first}]` : 'previous_response_id');
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  items.forEach((item, i) => {
    if (item.type === 'function_call') {
      if (calls.has(item.call_id)) throw badRequest(`${where(i)}.call_id '${item.call_id}' is the id of an earlier function_call; call ids must be unique.`, `${where(i)}.call_id`);
      calls.set(item.call_id, i);
    } else if (item.type === 'function_call_output') {
      if (!calls.has(item.call_id)) throw badRequest(`${where(i)}.call_id '${item.call_id}' answers no function_call before it.`, `${where(i)}.call_id`);
      answered.add(item.call_id);
    }
  });
  for (const [id, i] of calls) {
    if (answered.has(id)) continue;
    if (i < first) throw badRequest(`The previous response's function_call '${id}' has no function_call_output with its call_id in input; send its output.`, 'input');
    throw badRequest(`${where(i)}: the function_call '${id}' has no function_call_output with its call_id; send its output after it.`, where(i));
  }
}
