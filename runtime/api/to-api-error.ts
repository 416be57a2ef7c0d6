// The one place where what went wrong becomes what a client is told: domain errors (the
// engine's refusals, templates that cannot render, formats that do not compile) map onto an
// HTTP status and OpenAI's error envelope here, and nowhere else.
import { ChatTemplateError } from '../chat-format/chat-template.js';
import { EngineRequestError } from '../engine/client/engine.js';
import type { EngineErrorInfo } from '../engine/protocol.js';
import { ApiError, badRequest } from './api-error.js';
import { InterruptedGeneration } from './interrupted-generation.js';
import { OutputFormatError } from './output-format.js';

/** How the endpoint names the engine's prompt: `messages` for chat, `prompt` (or `prompt[2]`) for text. */
export interface PromptNaming {
  prompt: string;
}

/** Any thrown value as an ApiError: ours pass through, domain errors are mapped, anything else is a bug (500). */
export function toApiError(error: unknown, naming: PromptNaming = { prompt: 'prompt' }): ApiError {
  if (error instanceof InterruptedGeneration) return toApiError(error.reason, naming);
  if (error instanceof ApiError) return error;
  if (error instanceof EngineRequestError) return engineErrorToApi(error.info, naming);
  if (error instanceof ChatTemplateError) return badRequest(error.message, 'messages');
  if (error instanceof OutputFormatError) return outputFormatErrorToApi(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(500, `internal error: ${message}`, 'server_error', null, 'internal_error');
}

/** Maps an engine refusal onto the HTTP status and OpenAI error it means. */
function engineErrorToApi(info: EngineErrorInfo, naming: PromptNaming): ApiError {
  const param = info.param === 'prompt' ? naming.prompt : (info.param ?? null);
  switch (info.code) {
    case 'context_length_exceeded':
      return new ApiError(400, info.message, 'invalid_request_error', param ?? naming.prompt, 'context_length_exceeded');
    case 'server_is_overloaded':
      return new ApiError(503, info.message, 'server_error', null, 'server_is_overloaded');
    case 'invalid_request':
      return new ApiError(400, info.message, 'invalid_request_error', param, null);
    default:
      return new ApiError(500, info.message, 'server_error', null, 'internal_error');
  }
}

function outputFormatErrorToApi({ reason, source }: OutputFormatError): ApiError {
  // No worker was free for it: nothing is wrong with the format, so the answer says retry.
  if (reason.overloaded) return new ApiError(503, reason.message, 'server_error', null, 'server_is_overloaded');
  const code = reason.timedOut ? 'grammar_timeout' : 'invalid_grammar';
  // The schemas were checked one by one; what is left is the tag as a whole (e.g. too slow).
  if (source.field === 'tools') return badRequest(`The tools could not be compiled: ${reason.message}`, 'tools', code);
  const param = reason.pointer && reason.pointer !== '/' ? `${source.param}${reason.pointer}` : source.param;
  return badRequest(`Invalid response_format: ${reason.message}`, param, code);
}
