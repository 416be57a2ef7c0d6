// Where draft tokens come from, as `--speculative-mode` names them: `small_draft` (a second
// model, --additional-models), `medusa` (heads on the target's hidden state,
// --additional-models HEADS.gguf) and `ngram` (prompt lookup, an addition that needs no second
// model); all draft the text a grammar forces. The spec's `eagle` is not available yet.
export const SPECULATIVE_MODES_AVAILABLE = ['disable', 'ngram', 'small_draft', 'medusa'] as const;
export type SpeculativeMode = (typeof SPECULATIVE_MODES_AVAILABLE)[number];

/** Modes that read a file given with --additional-models (a draft model, or Medusa heads). */
export const MODES_WITH_ADDITIONAL_MODEL: readonly SpeculativeMode[] = ['small_draft', 'medusa'];
