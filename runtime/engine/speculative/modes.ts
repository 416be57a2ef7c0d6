// Where draft tokens come from, as `--speculative-mode` names them. The spec's `small_draft`,
// `eagle` and `medusa` need a second model or trained heads and are not available yet;
// `ngram` (prompt lookup, plus forced text under a grammar) is an addition that needs neither.
export const SPECULATIVE_MODES_AVAILABLE = ['disable', 'ngram'] as const;
export type SpeculativeMode = (typeof SPECULATIVE_MODES_AVAILABLE)[number];
