// OpenAI's usage object, the same for chat and text completions.

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** cached_tokens: prompt tokens whose KV cells came from the prefix cache. */
  prompt_tokens_details: { cached_tokens: number };
}

export function usageOf(promptTokens: number, completionTokens: number, cachedTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  };
}
