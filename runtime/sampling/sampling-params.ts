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
}

/** OpenAI's defaults: plain sampling at temperature 1, no nucleus cut, no penalties. */
export const defaultSamplingParams: Readonly<SamplingParams> = Object.freeze({
  temperature: 1,
  topP: 1,
  frequencyPenalty: 0,
  presencePenalty: 0,
  logprobs: false,
  topLogprobs: 0,
});
