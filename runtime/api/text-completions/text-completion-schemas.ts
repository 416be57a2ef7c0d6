// The JSON schemas of POST /v1/completions (OpenAI's legacy text completions): the request, the
// response and a stream chunk. The sampling fields are the chat API's (api-schemas.ts).
import { completionEnvelope, continuousUsageRule, promptLogprobsProperty, promptLogprobsResponseSchema, promptLogprobsRule, sharedRequestProperties, streamOptionsRule } from '../api-schemas.js';
import { REQUEST_LIMITS as LIMITS } from '../request-limits.js';
import { sets, type RequestRule } from '../request-rules.js';

const tokenIds = { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } } as const;

const textCompletionRules: RequestRule[] = [
  streamOptionsRule,
  continuousUsageRule,
  promptLogprobsRule,
  {
    'x-param': 'suffix',
    description: "'suffix' (text after the completion, for fill-in-the-middle) is not supported: send only a prompt, or use a model's own fill-in-the-middle tokens in it.",
    if: { required: ['suffix'], properties: { suffix: { type: 'string', minLength: 1 } } },
    then: false,
  },
  {
    'x-param': 'truncate_prompt_tokens',
    description: "'truncate_prompt_tokens' with 'echo': true is not taken: the echo would be the whole prompt while the model saw its last tokens.",
    if: { allOf: [sets('truncate_prompt_tokens'), { required: ['echo'], properties: { echo: { const: true } } }] },
    then: false,
  },
  {
    'x-param': 'max_tokens',
    description: "'max_tokens': 0 generates nothing: it is only allowed with 'echo': true, which returns the prompt (with 'logprobs', scored token by token), or with 'prompt_logprobs', which scores it.",
    if: { required: ['max_tokens'], properties: { max_tokens: { const: 0 } } },
    then: { anyOf: [{ required: ['echo'], properties: { echo: { const: true } } }, sets('prompt_logprobs')] },
  },
];

export const textCompletionRequestSchema = {
  type: 'object',
  description: 'Completion Request: text in, text out, without a chat template (for base models).',
  properties: {
    prompt: {
      anyOf: [
        { type: 'string' },
        { type: 'array', minItems: 1, maxItems: LIMITS.prompts, items: { type: 'string' } },
        tokenIds,
        { type: 'array', minItems: 1, maxItems: LIMITS.prompts, items: tokenIds },
      ],
      description: `A string, a list of strings, a list of token ids, or a list of lists of token ids (at most ${LIMITS.prompts} prompts; each gets n choices, numbered prompt by prompt).`,
    },
    ...sharedRequestProperties,
    max_tokens: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: LIMITS.maxTokens,
      default: 16,
      description: "Most tokens generated per choice (16 when not given, as OpenAI); 0, with 'echo' or 'prompt_logprobs', generates nothing (the prompt returned or scored).",
    },
    logprobs: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 20,
      description: "Per token: its logprob and the logprobs of the this-many most likely tokens (the token itself is always among them). With 'echo', the prompt's tokens too, the first with null (nothing comes before it).",
    },
    prompt_logprobs: promptLogprobsProperty,
    echo: { type: ['boolean', 'null'], default: false, description: "Put the prompt in front of the generated text (with 'logprobs', its tokens scored by the model)." },
    best_of: { type: ['integer', 'null'], minimum: 1, maximum: LIMITS.n, description: 'Accepted when it equals n (no choices are generated to be left out).' },
    suffix: { type: ['string', 'null'], description: 'Not supported; only null or "" are accepted.' },
  },
  required: ['model', 'prompt'],
  additionalProperties: false,
  allOf: textCompletionRules,
} as const;

const legacyLogprobsSchema = {
  type: ['object', 'null'],
  properties: {
    tokens: { type: 'array', items: { type: 'string' }, description: 'Each token\'s text; a token that is not whole UTF-8 is written "bytes:\\\\xNN...".' },
    token_logprobs: { type: 'array', items: { type: ['number', 'null'] }, description: "null only for an echoed prompt's first token." },
    top_logprobs: {
      type: 'array',
      items: { type: ['object', 'null'], additionalProperties: { type: 'number' } },
      description: "Per token: the most likely tokens (text to logprob), the token itself included; null only for an echoed prompt's first token.",
    },
    text_offset: { type: 'array', items: { type: 'integer' }, description: "Where each token starts in the choice's text (echoed prompt included)." },
  },
  required: ['tokens', 'token_logprobs', 'top_logprobs', 'text_offset'],
} as const;

function textCompletionSchema(options: { description: string; stream: boolean }) {
  return completionEnvelope({
    description: options.description,
    object: 'text_completion',
    choice: {
      type: 'object',
      properties: {
        index: { type: 'integer', description: 'prompt number × n + choice number' },
        text: { type: 'string' },
        logprobs: legacyLogprobsSchema,
        finish_reason: { enum: options.stream ? ['stop', 'length', null] : ['stop', 'length', 'error'] },
        ...(options.stream ? {} : { prompt_logprobs: promptLogprobsResponseSchema }),
      },
      required: ['index', 'text', 'logprobs', 'finish_reason'],
    },
    usage: options.stream ? 'last chunk' : 'required',
  });
}

export const textCompletionResponseSchema = textCompletionSchema({ description: 'Completion (stream: false)', stream: false });

export const textCompletionChunkSchema = textCompletionSchema({
  description: 'One `data:` event of a completion stream (stream: true), which ends with `data: [DONE]` (after an engine failure mid-stream, an error envelope is the last event before it)',
  stream: true,
});
