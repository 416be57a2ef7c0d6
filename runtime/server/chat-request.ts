// Turns a request body into a checked ChatRequest, or an ApiError naming the offending field.
import { Ajv, type ErrorObject } from 'ajv';
import type { IncomingMessage } from '../chat/chat-messages.js';
import { badRequest } from './api-error.js';
import { chatCompletionRequestSchema } from './api-schemas.js';
import { ruleChecker, withoutRules } from './request-rules.js';

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

export type ChatMessage = IncomingMessage & { role: 'system' | 'user' | 'assistant' | 'tool' };

export interface ChatRequest {
  messages: ChatMessage[];
  model: string;
  frequency_penalty?: number;
  presence_penalty?: number;
  logprobs?: boolean;
  top_logprobs?: number | null;
  logit_bias?: Record<string, number> | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number;
  seed?: number | null;
  stop?: string | string[] | null;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number | null;
  top_p?: number | null;
  tools?: ChatTool[] | null;
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } } | null;
  parallel_tool_calls?: boolean | null;
  user?: string | null;
  ignore_eos?: boolean;
  skip_special_tokens?: boolean;
  response_format?: ({ type: string } & Record<string, unknown>) | null;
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validate = ajv.compile<ChatRequest>(withoutRules(chatCompletionRequestSchema));
const checkRules = ruleChecker(chatCompletionRequestSchema);

/** `/messages/0/role` -> `messages[0].role`, the way OpenAI names parameters. */
export function pointerToParam(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((param, part) => (/^\d+$/.test(part) ? `${param}[${part}]` : param ? `${param}.${part}` : part), '');
}

function describe(error: ErrorObject): { param: string; message: string } {
  const at = pointerToParam(error.instancePath);
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = String(error.params.additionalProperty);
      const param = at ? `${at}.${extra}` : extra;
      return { param, message: `Unrecognized request argument supplied: ${param}` };
    }
    case 'required': {
      const missing = String(error.params.missingProperty);
      const param = at ? `${at}.${missing}` : missing;
      return { param, message: `Missing required parameter: '${param}'.` };
    }
    case 'enum':
      return { param: at, message: `Invalid value for '${at}': must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.` };
    case 'propertyNames':
      return { param: at, message: `Invalid key in '${at}': ${JSON.stringify(error.params.propertyName)} is not a token id.` };
    default:
      return { param: at, message: `Invalid value for '${at}': ${error.message ?? 'not valid'}.` };
  }
}

/**
 * The error to report. Validation stops at the first bad field, but a field with several
 * allowed shapes (anyOf: `stop` is a string or a list) fails every branch: the branch whose
 * type matched says what is wrong ("more than 16 items"), not the first ("must be string").
 */
function mostSpecific(errors: ErrorObject[]): ErrorObject | undefined {
  const keys = errors.find((error) => error.keyword === 'propertyNames');
  if (keys) return keys;
  const anyOf = errors.find((error) => error.keyword === 'anyOf');
  const sameField = anyOf && errors.find((error) => error.instancePath === anyOf.instancePath && error.keyword !== 'type' && error.keyword !== 'anyOf');
  return sameField ?? errors[0];
}

/** Schema checks, then the rules that tie fields together (in the schema, and those it cannot express). */
export function parseChatRequest(body: unknown): ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object.');
  }
  if (!validate(body)) {
    const error = mostSpecific(validate.errors ?? []);
    const { param, message } = error ? describe(error) : { param: '', message: 'Invalid request.' };
    throw badRequest(message, param || null);
  }
  const request = body;
  checkRules(request);
  if (request.max_tokens != null && request.max_completion_tokens != null && request.max_tokens !== request.max_completion_tokens) {
    throw badRequest("'max_tokens' and 'max_completion_tokens' disagree; send one of them.", 'max_completion_tokens');
  }
  checkTools(request);
  return request;
}

/** What the rules cannot say about tools: unique names, object parameters, a named choice among them (schemas compile later, per tool format). */
function checkTools(request: ChatRequest): void {
  const tools = request.tools ?? [];
  const names = new Set<string>();
  tools.forEach((tool, i) => {
    if (names.has(tool.function.name)) throw badRequest(`tools[${i}].function.name '${tool.function.name}' is already the name of an earlier tool; names must be unique.`, `tools[${i}].function.name`);
    names.add(tool.function.name);
    const type = tool.function.parameters?.type;
    if (type !== undefined && type !== 'object') throw badRequest(`tools[${i}].function.parameters must describe an object (type 'object').`, `tools[${i}].function.parameters/type`);
  });
  const choice = request.tool_choice;
  if (typeof choice === 'object' && choice !== null && !names.has(choice.function.name)) {
    throw badRequest(`tool_choice names the function '${choice.function.name}', which is not among the tools.`, 'tool_choice.function.name');
  }
}
