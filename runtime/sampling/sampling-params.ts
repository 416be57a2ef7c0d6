// The sampling knobs of one choice, already validated by the server (ranges below are OpenAI's).
// Usage: `const params: SamplingParams = { ...defaultSamplingParams, temperature: 0.7 };`

/** The largest `top_logprobs` OpenAI accepts. */
export const MAX_TOP_LOGPROBS = 20;

export interface SamplingParams {
  /** [0, 2]. 0 means greedy: the highest processed logit, ties to the lowest token id. */
  temperature: number;
  /**
   * (0, 1]. Keep the smallest set of most probable tokens holding at least this much of the
   * probability (at the given temperature); 1 keeps every token, ≤ 0 only the most probable.
   */
  topP: number;
  /** [-2, 2]. Subtracted once per earlier occurrence of a token in the generated text. */
  frequencyPenalty: number;
  /** [-2, 2]. Subtracted once from every token that occurs in the generated text at all. */
  presencePenalty: number;
  /** Token id (< vocabulary size) to a value in [-100, 100] added to its logit. */
  logitBias?: ReadonlyMap<number, number>;
  /** Report the alternatives (`topLogprobs` of them) beside each chosen token. */
  logprobs: boolean;
  /** [0, 20]. How many most likely tokens to report; only read when `logprobs` is set. */
  topLogprobs: number;

  // The fields local servers add (vLLM's and llama-server's). Each default turns its stage off.
  /** ≥ 1 keeps the k most likely tokens (ties to the lower id); ≤ 0 keeps all. */
  topK?: number;
  /** [0, 1]. Drops tokens less likely than min_p times the most likely one; 0 keeps all. */
  minP?: number;
  /** [0, 1]. Locally typical sampling (Meister et al.); 1 keeps all. */
  typicalP?: number;
  /** > 0 keeps the tokens whose logit is within n standard deviations of the best; ≤ 0 keeps all. */
  topNSigma?: number;
  /** > 0. Divides a positive logit (multiplies a negative one) of each token in the window; 1 is off. */
  repetitionPenalty?: number;
  /** The repetition penalty's window: the last n tokens of prompt and output; -1 all of them, 0 none. */
  repeatLastN?: number;
  /** ≥ 0. DRY: the penalty for continuing a repeat of allowed length is this much; 0 is off. */
  dryMultiplier?: number;
  /** ≥ 1. DRY: each token of repeat beyond the allowed length multiplies the penalty by this. */
  dryBase?: number;
  /** ≥ 1. DRY: repeats up to this many tokens long are not penalised. */
  dryAllowedLength?: number;
  /** DRY's window: the last n tokens of prompt and output; -1 all of them, 0 none (off). */
  dryPenaltyLastN?: number;
  /** DRY: strings a repeat never extends across (a token containing one ends any repeat). */
  drySequenceBreakers?: readonly string[];
  /** [0, 1]. XTC: the chance, drawn from the seeded stream each step, that XTC applies; 0 is off. */
  xtcProbability?: number;
  /** [0, 1]. XTC: tokens at least this likely are removed, but for the least likely of them. */
  xtcThreshold?: number;
}

/** llama-server's defaults for DRY and XTC's secondary knobs (the stages stay off until their primary knob is set). */
export const DRY_DEFAULTS = Object.freeze({ base: 1.75, allowedLength: 2, penaltyLastN: -1, sequenceBreakers: Object.freeze(['\n', ':', '"', '*']) });
export const XTC_DEFAULT_THRESHOLD = 0.1;

/** OpenAI's defaults: plain sampling at temperature 1, no nucleus cut, no penalties. */
export const defaultSamplingParams: Readonly<SamplingParams> = Object.freeze({
  temperature: 1,
  topP: 1,
  frequencyPenalty: 0,
  presencePenalty: 0,
  logprobs: false,
  topLogprobs: 0,
});

const INT32_MAX = 2 ** 31 - 1;

/**
 * A numeric field's range: what the sampler is built to compute with. The HTTP fields' ranges
 * (api/api-schemas.ts, api/sampling-fields.ts) lie within these (a test holds them so); a
 * library caller may go beyond them where the sampler still computes (a penalty of 200).
 */
export interface SamplingRange {
  min: number;
  max: number;
  /** min itself is out of range. */
  exclusiveMin?: boolean;
  integer?: boolean;
}

export const SAMPLING_RANGES: Readonly<Record<Exclude<keyof SamplingParams, 'logitBias' | 'logprobs' | 'drySequenceBreakers'>, SamplingRange>> = Object.freeze({
  temperature: { min: 0, max: Infinity },
  topP: { min: 0, max: 1 },
  frequencyPenalty: { min: -Infinity, max: Infinity },
  presencePenalty: { min: -Infinity, max: Infinity },
  topLogprobs: { min: 0, max: MAX_TOP_LOGPROBS, integer: true },
  topK: { min: -Infinity, max: Infinity, integer: true },
  minP: { min: 0, max: 1 },
  typicalP: { min: 0, max: 1 },
  topNSigma: { min: -Infinity, max: Infinity },
  repetitionPenalty: { min: 0, max: Infinity, exclusiveMin: true },
  repeatLastN: { min: -1, max: Infinity, integer: true },
  dryMultiplier: { min: 0, max: Infinity },
  dryBase: { min: 1, max: Infinity },
  dryAllowedLength: { min: 1, max: Infinity, integer: true },
  dryPenaltyLastN: { min: -1, max: Infinity, integer: true },
  xtcProbability: { min: 0, max: 1 },
  xtcThreshold: { min: 0, max: 1 },
});

/** "a number in [0, 1]", "an integer ≥ -1", "a number > 0", "a finite number". */
function describeRange(range: SamplingRange): string {
  const kind = range.integer ? 'an integer' : range.min === -Infinity && range.max === Infinity ? 'a finite number' : 'a number';
  if (range.min === -Infinity && range.max === Infinity) return kind;
  if (range.max === Infinity) return `${kind} ${range.exclusiveMin ? '>' : '≥'} ${range.min}`;
  return `${kind} in ${range.exclusiveMin ? '(' : '['}${range.min}, ${range.max}]`;
}

/**
 * What is wrong with a request's sampling fields, naming the field, or undefined. The server's
 * requests are checked against the same ranges before they get here; this guards the engine
 * from callers of the library, whose bad value would otherwise throw inside the engine's loop.
 */
export function samplingParamProblem(params: Partial<SamplingParams>): { param: string; message: string } | undefined {
  if (typeof params !== 'object' || params === null) return { param: 'sampling', message: 'sampling must be an object of sampling fields' };
  for (const [name, range] of Object.entries(SAMPLING_RANGES) as [keyof typeof SAMPLING_RANGES, SamplingRange][]) {
    const value = params[name];
    if (value === undefined) continue;
    const inRange = typeof value === 'number' && Number.isFinite(value) && (range.exclusiveMin ? value > range.min : value >= range.min) && value <= range.max;
    if (!inRange || (range.integer && !Number.isInteger(value))) {
      return { param: name, message: `${name} must be ${describeRange(range)}, got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}` };
    }
  }
  if (params.logprobs !== undefined && typeof params.logprobs !== 'boolean') return { param: 'logprobs', message: `logprobs must be true or false, got ${JSON.stringify(params.logprobs)}` };
  if (params.logitBias !== undefined) {
    if (!(params.logitBias instanceof Map)) return { param: 'logitBias', message: 'logitBias must be a Map from token id to a bias' };
    for (const [token, bias] of params.logitBias) {
      if (typeof bias !== 'number' || !Number.isFinite(bias)) return { param: 'logitBias', message: `logitBias for token ${token} must be a finite number, got ${typeof bias === 'number' ? String(bias) : JSON.stringify(bias)}` };
    }
  }
  const breakers = params.drySequenceBreakers;
  if (breakers !== undefined && (!Array.isArray(breakers) || !breakers.every((b) => typeof b === 'string' && b.length > 0))) {
    return { param: 'drySequenceBreakers', message: 'drySequenceBreakers must be a list of non-empty strings' };
  }
  return undefined;
}
