// Where draft tokens come from, as `--speculative-mode` names them: `small_draft` (a second
// model, --additional-models), `medusa` (heads on the target's hidden state,
// --additional-models HEADS.gguf), `eagle` (an EAGLE-3 draft in llama.cpp's eagle3 GGUF,
// --additional-models EAGLE3.gguf) and `ngram` (prompt lookup, an addition that needs no second
// model); all draft the text a grammar forces.
export const SPECULATIVE_MODES_AVAILABLE = ['disable', 'ngram', 'small_draft', 'eagle', 'medusa'] as const;
export type SpeculativeMode = (typeof SPECULATIVE_MODES_AVAILABLE)[number];

/** Modes that read a file given with --additional-models (a draft model, an EAGLE-3 draft, or Medusa heads). */
export const MODES_WITH_ADDITIONAL_MODEL: readonly SpeculativeMode[] = ['small_draft', 'eagle', 'medusa'];
