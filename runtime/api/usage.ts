// OpenAI's usage object, the same for chat and text completions.
import type { PredictionCounts } from '../engine/protocol.js';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** cached_tokens: prompt tokens whose KV cells came from the prefix cache. */
  prompt_tokens_details: { cached_tokens: number };
  /** Only for a request with a prediction: its drafted tokens the output kept, and those it did not. */
  completion_tokens_details?: { accepted_prediction_tokens: number; rejected_prediction_tokens: number };
}

export function usageOf(promptTokens: number, completionTokens: number, cachedTokens: number, prediction?: PredictionCounts): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    ...(prediction ? { completion_tokens_details: { accepted_prediction_tokens: prediction.accepted, rejected_prediction_tokens: prediction.rejected } } : {}),
  };
}
