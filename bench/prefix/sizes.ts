// How big each scenario is: the full run the issue describes, and --quick, a small run that
// only checks the harness end to end. Text lengths are in words (WordText); the report gives
// the prompt tokens each server counted.

export interface MultiTurnSize {
  conversations: number;
  turns: number;
  systemWords: number;
  turnWords: number;
  maxTokens: number;
}

export interface SharedSystemSize {
  users: number;
  /** Questions each user asks, one after another. */
  rounds: number;
  systemWords: number;
  questionWords: number;
  maxTokens: number;
}

export interface LongPromptSize {
  streams: number;
  streamWords: number;
  /** Streams are cut once the long prompt's first token is out; this only has to outlast that (1,024 did not: SmolLM2 streams on 2 cores ended ~70 s in, before a prefill of 67-78 s with per-sequence KV). */
  streamMaxTokens: number;
  longWords: number;
  /** Steady streaming measured before the long prompt is sent. */
  beforeMs: number;
}

export interface Sizes {
  multiTurn: MultiTurnSize;
  sharedSystem: SharedSystemSize;
  longPrompt: LongPromptSize;
}

// SmolLM2's tokenizer gives about 1.12 tokens a WordText word (800 words: 909 prompt tokens
// with the template): 1,330 words ≈ 1,500 tokens, 3,100 ≈ 3,500.
export const FULL: Sizes = {
  multiTurn: { conversations: 4, turns: 6, systemWords: 200, turnWords: 150, maxTokens: 32 },
  sharedSystem: { users: 16, rounds: 3, systemWords: 1330, questionWords: 20, maxTokens: 32 },
  longPrompt: { streams: 8, streamWords: 40, streamMaxTokens: 2048, longWords: 3100, beforeMs: 2000 },
};

export const QUICK: Sizes = {
  multiTurn: { conversations: 2, turns: 3, systemWords: 200, turnWords: 150, maxTokens: 16 },
  sharedSystem: { users: 4, rounds: 2, systemWords: 400, questionWords: 20, maxTokens: 16 },
  longPrompt: { streams: 2, streamWords: 40, streamMaxTokens: 512, longWords: 800, beforeMs: 1000 },
};
