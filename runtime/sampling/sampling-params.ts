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
