// The sizes a request may have. Every one is checked before anything is allocated for
// the request, so no single body can make the server build something huge; the request
// schema (and so /openapi.json and /docs) carries them, and README.md lists them.

export const REQUEST_LIMITS = {
  /** Choices per request; the engine's max_num_sequence may allow fewer. */
  n: 128,
  /** max_tokens / max_completion_tokens; the context window usually allows fewer. */
  maxTokens: 2 ** 31 - 1,
  /** Entries in logit_bias. */
  logitBiasEntries: 1024,
  /** Stop strings, and characters in each. */
  stopStrings: 16,
  stopLength: 1024,
  /** Tokens in stop_token_ids (vLLM's). */
  stopTokenIds: 1024,
  /** Words in bad_words (vLLM's), each of at most stopLength characters. */
  badWords: 1024,
  /** Tokens in allowed_token_ids (vLLM's): a vocabulary's worth. */
  allowedTokenIds: 262_144,
  /** Prompts in one text completion request (each gets n choices; all of them together at most `n`). */
  prompts: 128,
  /** Messages in the conversation. */
  messages: 4096,
  /** Tools offered in one request (OpenAI's own limit). */
  tools: 128,
  /** Characters of `user`, tool-call ids and names. */
  shortString: 256,
  /** JSON nesting of the whole body: objects and arrays inside each other. */
  bodyDepth: 256,
} as const;
