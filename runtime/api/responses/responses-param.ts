// The chat pipeline names the fields it refuses as a chat request has them; a Responses client
// sent them elsewhere. This says where: a tool's parameters are flat here, the JSON schema sits
// in text.format, the conversation is `input` and the output limit `max_output_tokens`.
import { ApiError } from '../api-error.js';
import { toApiError } from '../to-api-error.js';

const RENAMES: [RegExp, string][] = [
  [/^tools\[(\d+)\]\.function\./, 'tools[$1].'],
  [/^tool_choice\.function\.name$/, 'tool_choice.name'],
  [/^response_format\.json_schema\./, 'text.format.'],
  [/^response_format\.schema/, 'text.format.schema'],
  [/^response_format/, 'text.format'],
  [/^messages(\[\d+\])?/, 'input'],
  [/^max_completion_tokens$|^max_tokens$/, 'max_output_tokens'],
];

export function responsesParamOf(param: string | null): string | null {
  if (param === null) return null;
  for (const [pattern, replacement] of RENAMES) if (pattern.test(param)) return param.replace(pattern, replacement);
  return param;
}

/** Whatever the chat pipeline threw, as the error a Responses client is told. */
export function asResponsesError(error: unknown): ApiError {
  const api = toApiError(error, { prompt: 'input', maxTokens: 'max_output_tokens' });
  const param = responsesParamOf(api.param);
  return param === api.param ? api : new ApiError(api.status, api.message, api.type, param, api.code);
}
