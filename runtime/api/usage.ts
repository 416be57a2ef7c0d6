// OpenAI's usage object, the same for chat and text completions.
import type { PredictionCounts } from '../engine/protocol.js';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** cached_tokens: prompt tokens whose KV cells came from the prefix cache. */
  prompt_tokens_details: { cached_tokens: number };
  /**
   * reasoning_tokens: of completion_tokens, the thinking, only where the model may think. The
   * prediction's counts only for a request with one: its drafted tokens the output kept, and those it did not.
   */
  completion_tokens_details?: { reasoning_tokens?: number; accepted_prediction_tokens?: number; rejected_prediction_tokens?: number };
}

export function usageOf(promptTokens: number, completionTokens: number, cachedTokens: number, prediction?: PredictionCounts, reasoningTokens?: number): Usage {
  const details = {
    ...(reasoningTokens !== undefined ? { reasoning_tokens: reasoningTokens } : {}),
    ...(prediction ? { accepted_prediction_tokens: prediction.accepted, rejected_prediction_tokens: prediction.rejected } : {}),
  };
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    ...(Object.keys(details).length > 0 ? { completion_tokens_details: details } : {}),
  };
}
