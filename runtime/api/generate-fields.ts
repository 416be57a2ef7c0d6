// The request fields chat and text completions share, as the engine takes them: choices, stop
// strings, seed and sampling. Each endpoint adds its prompt, max_tokens and logprobs.
import type { EngineInfo, GenerateRequest } from '../engine/protocol.js';
import { badRequest } from './api-error.js';
import { samplingParamsOf, type SamplingFields } from './sampling-fields.js';

export interface SharedRequestFields extends SamplingFields {
  n?: number | null;
  seed?: number | null;
  stop?: string | string[] | null;
  temperature?: number | null;
  top_p?: number | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  logit_bias?: Record<string, number> | null;
  ignore_eos?: boolean;
  cache_prompt?: boolean;
  skip_special_tokens?: boolean;
  stop_token_ids?: number[] | null;
  include_stop_str_in_output?: boolean | null;
  min_tokens?: number | null;
  allowed_token_ids?: number[] | null;
  bad_words?: string[] | null;
  truncate_prompt_tokens?: number | null;
  return_tokens_as_token_ids?: boolean | null;
}

export interface EndpointFields {
  maxTokens: number | undefined;
  logprobs: boolean;
  topLogprobs: number;
  traceId: string;
}

export function generateFieldsOf(request: SharedRequestFields, fields: EndpointFields): Omit<GenerateRequest, 'prompt'> {
  return {
    n: request.n ?? 1,
    ...(fields.maxTokens !== undefined ? { maxTokens: fields.maxTokens } : {}),
    stop: stopStringsOf(request.stop),
    ...(request.include_stop_str_in_output && request.stop != null ? { outputStops: stopStringsOf(request.stop) } : {}),
    ...(request.stop_token_ids?.length ? { stopTokenIds: request.stop_token_ids } : {}),
    ...(request.min_tokens ? { minTokens: request.min_tokens } : {}),
    ...(request.allowed_token_ids ? { allowedTokenIds: request.allowed_token_ids } : {}),
    ...(request.bad_words?.length ? { badWords: request.bad_words } : {}),
    ...(request.truncate_prompt_tokens != null ? { truncatePromptTokens: request.truncate_prompt_tokens } : {}),
    ignoreEos: request.ignore_eos ?? false,
    skipSpecialTokens: request.skip_special_tokens ?? true,
    ...(request.cache_prompt === false ? { cachePrompt: false } : {}),
    ...(request.seed != null ? { seed: request.seed } : {}),
    sampling: {
      temperature: request.temperature ?? 1,
      topP: request.top_p ?? 1,
      frequencyPenalty: request.frequency_penalty ?? 0,
      presencePenalty: request.presence_penalty ?? 0,
      ...samplingParamsOf(request),
      logprobs: fields.logprobs,
      topLogprobs: fields.topLogprobs,
      ...(request.logit_bias ? { logitBias: new Map(Object.entries(request.logit_bias).map(([k, v]) => [Number(k), v])) } : {}),
    },
    traceId: fields.traceId,
  };
}

/** A lone UTF-16 surrogate: half of a character, which no output text holds whole. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The stop strings as a list; one with half a character (JSON's `"\udf4f"`) would cut a character in two. */
function stopStringsOf(stop: SharedRequestFields['stop']): string[] {
  if (stop == null) return [];
  const list = typeof stop === 'string' ? [stop] : stop;
  list.forEach((text, i) => {
    const half = LONE_SURROGATE.exec(text);
    if (!half) return;
    const param = typeof stop === 'string' ? 'stop' : `stop[${i}]`;
    const code = half[0].charCodeAt(0).toString(16);
    throw badRequest(`Invalid value for '${param}': it holds a lone UTF-16 surrogate (\\u${code}), half of a character, which no output can contain.`, param);
  });
  return list;
}

/** Checked before anything per choice is built: n decides how much a request allocates. */
export function checkChoicesFit(n: number, info: EngineInfo): void {
  const { maxNumSequence } = info.config;
  if (n > maxNumSequence) throw badRequest(`n=${n} is not possible: this server decodes at most ${maxNumSequence} ${maxNumSequence === 1 ? 'sequence' : 'sequences'} together (max_num_sequence).`, 'n');
}

/** Whether the tokenizer adds BOS to a text prompt: when the model wants one and the text does not already begin with it. */
export function addsBos(prompt: string, info: EngineInfo): boolean {
  return info.addBos && !(info.bosText !== '' && prompt.startsWith(info.bosText));
}
