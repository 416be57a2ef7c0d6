// The one place where what went wrong becomes what a client is told. Domain errors (the engine's
// refusals, templates that cannot render, formats that do not compile) carry their HTTP status
// and OpenAI error fields (LmforgeError); here they become OpenAI's error envelope.
import { LmforgeError } from '../../compiler/lmforge-error.js';
import { EngineRequestError } from '../engine/client/engine.js';
import { ApiError } from './api-error.js';
import { InterruptedGeneration } from './interrupted-generation.js';

/**
 * How the endpoint names the engine's fields: its prompt `messages` for chat, `prompt` (or
 * `prompt[2]`) for text; its output limit as the request sent it (`max_completion_tokens`).
 */
export interface PromptNaming {
  prompt: string;
  maxTokens?: string;
}

/**
 * Any thrown value as an ApiError: ours pass through, user-facing errors answer with their own
 * status, type, code and param, anything else is a bug (500).
 */
export function toApiError(error: unknown, naming: PromptNaming = { prompt: 'prompt' }): ApiError {
  if (error instanceof InterruptedGeneration) return toApiError(error.reason, naming);
  if (error instanceof ApiError) return error;
  if (error instanceof LmforgeError && error.userFacing) {
    // The engine names the prompt `prompt` and the output limit `max_tokens`; the endpoint names them as its request does.
    const param = error instanceof EngineRequestError ? engineParamIn(error.param, naming) : error.param;
    return new ApiError(error.status, error.message, error.type, param, error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(500, `internal error: ${message}`, 'server_error', null, 'internal_error');
}

function engineParamIn(param: string | null, naming: PromptNaming): string | null {
  if (param === 'prompt') return naming.prompt;
  if (param === 'max_tokens') return naming.maxTokens ?? param;
  return param;
}
