// Where draft tokens come from, as `--speculative-mode` names them: `small_draft` (a second
// model, --additional-models) and `ngram` (prompt lookup, an addition that needs no second
// model); both draft the text a grammar forces. The spec's `eagle` and `medusa` need trained
// heads and are not available yet.
export const SPECULATIVE_MODES_AVAILABLE = ['disable', 'ngram', 'small_draft'] as const;
export type SpeculativeMode = (typeof SPECULATIVE_MODES_AVAILABLE)[number];
