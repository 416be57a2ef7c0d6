// The sampling fields local servers accept beyond OpenAI's, under vLLM's names and
// llama-server's: their schemas (validator and /openapi.json), the check between the two
// spellings of the repetition penalty, and the engine's SamplingParams they become. Every
// default leaves its stage off, so a request without them samples exactly as before.
import type { SamplingParams } from '../sampling/index.js';
import { badRequest } from './api-error.js';

export interface SamplingFields {
  top_k?: number | null;
  min_p?: number | null;
  typical_p?: number | null;
  top_n_sigma?: number | null;
  repetition_penalty?: number | null;
  repeat_penalty?: number | null;
  repeat_last_n?: number | null;
  dry_multiplier?: number | null;
  dry_base?: number | null;
  dry_allowed_length?: number | null;
  dry_penalty_last_n?: number | null;
  dry_sequence_breakers?: string[] | null;
  xtc_probability?: number | null;
  xtc_threshold?: number | null;
}

/** llama-server's window for `repeat_penalty` when `repeat_last_n` is not sent. */
const LLAMA_SERVER_REPEAT_LAST_N = 64;

const INT32_MAX = 2 ** 31 - 1;

const window = (what: string) => ({ type: ['integer', 'null'], minimum: -1, maximum: INT32_MAX, description: what });

export const samplingFieldProperties = {
  top_k: {
    type: ['integer', 'null'],
    minimum: -1,
    maximum: INT32_MAX,
    default: 0,
    description: 'Keep only the k most likely tokens (ties to the lower token id); 0 or -1 keeps all (vLLM, llama-server).',
  },
  min_p: { type: ['number', 'null'], minimum: 0, maximum: 1, default: 0, description: 'Drop tokens less likely than min_p times the most likely one; 0 keeps all (vLLM, llama-server).' },
  typical_p: {
    type: ['number', 'null'],
    minimum: 0,
    maximum: 1,
    default: 1,
    description: 'Locally typical sampling: keep the tokens whose surprise is closest to the entropy, at least typical_p of the probability; 1 keeps all (llama-server).',
  },
  top_n_sigma: {
    type: ['number', 'null'],
    minimum: -1,
    maximum: 1000,
    default: -1,
    description: 'Keep the tokens whose logit is at least max - top_n_sigma × the standard deviation of the allowed logits; ≤ 0 keeps all (llama-server).',
  },
  repetition_penalty: {
    type: ['number', 'null'],
    exclusiveMinimum: 0,
    maximum: 100,
    default: 1,
    description:
      "Each distinct token in the window (repeat_last_n tokens of prompt and output; all of them unless repeat_last_n is sent) has a positive logit divided by it, any other multiplied by it; 1 is off (vLLM's name).",
  },
  repeat_penalty: {
    type: ['number', 'null'],
    exclusiveMinimum: 0,
    maximum: 100,
    default: 1,
    description: `llama-server's name for repetition_penalty; its window defaults to the last ${LLAMA_SERVER_REPEAT_LAST_N} tokens, as there. Sent with repetition_penalty, the two must be equal.`,
  },
  repeat_last_n: window('The repetition penalty looks at the last n tokens of prompt and output; -1 all of them, 0 none (llama-server).'),
  dry_multiplier: {
    type: ['number', 'null'],
    minimum: 0,
    maximum: 100,
    default: 0,
    description:
      'DRY: a token that would extend a repeat of n ≥ dry_allowed_length earlier tokens loses dry_multiplier × dry_base^(n - dry_allowed_length) from its logit; 0 is off (llama-server, koboldcpp).',
  },
  dry_base: { type: ['number', 'null'], minimum: 1, maximum: 100, default: 1.75, description: 'DRY: how fast the penalty grows with the length of the repeat.' },
  dry_allowed_length: { type: ['integer', 'null'], minimum: 1, maximum: INT32_MAX, default: 2, description: 'DRY: repeats shorter than this are not penalised.' },
  dry_penalty_last_n: window('DRY looks for repeats in the last n tokens of prompt and output; -1 (the default) all of them, 0 none.'),
  dry_sequence_breakers: {
    type: ['array', 'null'],
    items: { type: 'string', minLength: 1, maxLength: 40 },
    maxItems: 40,
    default: ['\n', ':', '"', '*'],
    description: 'DRY: a token whose text contains one of these strings ends any repeat and is never penalised itself; [] for none.',
  },
  xtc_probability: {
    type: ['number', 'null'],
    minimum: 0,
    maximum: 1,
    default: 0,
    description: "XTC: the chance, drawn from the request's seeded stream each step, that the top choices are excluded; 0 is off (llama-server).",
  },
  xtc_threshold: {
    type: ['number', 'null'],
    minimum: 0,
    maximum: 1,
    default: 0.1,
    description: 'XTC: when at least two tokens are this likely, all of them but the least likely are removed.',
  },
} as const;

/** What the schema cannot say: the two spellings of the repetition penalty must agree. */
export function checkSamplingFields(request: SamplingFields): void {
  const { repetition_penalty: vllm, repeat_penalty: llama } = request;
  if (vllm != null && llama != null && vllm !== llama) {
    throw badRequest("'repetition_penalty' and 'repeat_penalty' are two names for one penalty and disagree; send one of them.", 'repeat_penalty');
  }
}

/** The engine's parameters for the fields a request sets (nothing for those it leaves out). */
export function samplingParamsOf(request: SamplingFields): Partial<SamplingParams> {
  const repetition = request.repetition_penalty ?? request.repeat_penalty;
  const repeatLastN = request.repeat_last_n ?? (request.repeat_penalty != null ? LLAMA_SERVER_REPEAT_LAST_N : -1);
  const entries: [keyof SamplingParams, unknown][] = [
    ['topK', request.top_k],
    ['minP', request.min_p],
    ['typicalP', request.typical_p],
    ['topNSigma', request.top_n_sigma],
    ['repetitionPenalty', repetition],
    ['repeatLastN', repetition != null ? repeatLastN : undefined],
    ['dryMultiplier', request.dry_multiplier],
    ['dryBase', request.dry_base],
    ['dryAllowedLength', request.dry_allowed_length],
    ['dryPenaltyLastN', request.dry_penalty_last_n],
    ['drySequenceBreakers', request.dry_sequence_breakers],
    ['xtcProbability', request.xtc_probability],
    ['xtcThreshold', request.xtc_threshold],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value != null));
}
