// Turns a /v1/completions body into a checked TextCompletionRequest, or an ApiError naming the
// offending field.
import { badRequest } from '../api-error.js';
import type { SharedRequestFields } from '../generate-fields.js';
import { REQUEST_LIMITS } from '../request-limits.js';
import { requestValidator } from '../request-validator.js';
import type { FormatFields } from '../requested-format.js';
import { withDefaultFormatType } from '../response-format.js';
import { checkSamplingFields } from '../sampling-fields.js';
import { textCompletionRequestSchema } from './text-completion-schemas.js';

export interface TextCompletionRequest extends SharedRequestFields, FormatFields {
  model: string;
  prompt: string | string[] | number[] | number[][];
  max_tokens?: number | null;
  logprobs?: number | null;
  echo?: boolean | null;
  prompt_logprobs?: number | null;
  best_of?: number | null;
  suffix?: string | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null; include_obfuscation?: boolean | null; continuous_usage_stats?: boolean | null } | null;
  user?: string | null;
}

/** One prompt: text, or token ids. */
export type Prompt = string | readonly number[];

const validate = requestValidator<TextCompletionRequest>(textCompletionRequestSchema);

/** Schema checks, then the rules that tie fields together (in the schema, and those it cannot express). */
export function parseTextCompletionRequest(body: unknown): TextCompletionRequest {
  checkPromptItems(body);
  const request = validate(withDefaultFormatType(body));
  checkSamplingFields(request);
  const n = request.n ?? 1;
  if (request.best_of != null && request.best_of !== n) {
    throw badRequest(`best_of=${request.best_of} is not supported: this server returns every choice it generates, so best_of must equal n (${n}) or be left out.`, 'best_of');
  }
  const prompts = promptsOf(request.prompt).length;
  if (prompts * n > REQUEST_LIMITS.n) {
    throw badRequest(`${prompts} prompts with n=${n} ask for ${prompts * n} choices; at most ${REQUEST_LIMITS.n} are allowed in one request.`, 'n');
  }
  return request;
}

/**
 * A list prompt's items, named down to the bad one (`prompt[2]`, `prompt[1][3]`): its first item
 * says which of the three list shapes it is (text, token ids, lists of token ids), where the
 * schema alone could only list the shapes. Anything else is left to the schema.
 */
function checkPromptItems(body: unknown): void {
  const prompt = typeof body === 'object' && body !== null ? (body as { prompt?: unknown }).prompt : undefined;
  if (!Array.isArray(prompt) || prompt.length === 0) return;
  const isTokenId = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
  const got = (value: unknown) => JSON.stringify(value)?.slice(0, 40) ?? String(value);
  const first = prompt[0];
  if (typeof first === 'string') {
    const bad = prompt.findIndex((item) => typeof item !== 'string');
    if (bad >= 0) throw badRequest(`Invalid value for 'prompt[${bad}]': a list of text prompts holds only strings, got ${got(prompt[bad])}.`, `prompt[${bad}]`);
  } else if (typeof first === 'number') {
    const bad = prompt.findIndex((item) => !isTokenId(item));
    if (bad >= 0) throw badRequest(`Invalid value for 'prompt[${bad}]': a token-id prompt holds only token ids (integers ≥ 0), got ${got(prompt[bad])}.`, `prompt[${bad}]`);
  } else if (Array.isArray(first)) {
    prompt.forEach((item, i) => {
      if (!Array.isArray(item) || item.length === 0) throw badRequest(`Invalid value for 'prompt[${i}]': a list of token-id prompts holds only non-empty lists of token ids, got ${got(item)}.`, `prompt[${i}]`);
      const bad = item.findIndex((token) => !isTokenId(token));
      if (bad >= 0) throw badRequest(`Invalid value for 'prompt[${i}][${bad}]': a token id is an integer ≥ 0, got ${got(item[bad])}.`, `prompt[${i}][${bad}]`);
    });
  }
}

/** The request's prompts: one for a string or a list of token ids, one per entry for a list of them. */
export function promptsOf(prompt: TextCompletionRequest['prompt']): Prompt[] {
  if (typeof prompt === 'string') return [prompt];
  if (prompt.every((entry) => typeof entry === 'number')) return [prompt as number[]];
  return prompt as (string | number[])[];
}

/** The parameter name of prompt `index`: `prompt` alone for a single one, `prompt[2]` in a list of several. */
export function promptParam(prompt: TextCompletionRequest['prompt'], index: number): string {
  return promptsOf(prompt).length === 1 && (typeof prompt === 'string' || typeof prompt[0] === 'number') ? 'prompt' : `prompt[${index}]`;
}
