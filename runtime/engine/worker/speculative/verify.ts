// Verification of a drafted step. The target computed the sequence's last token and the k
// draft tokens after it, with a row of logits at each. Position after position, the token is
// chosen exactly as without speculation (the same sampler, penalties, grammar mask and the
// next two keys of the sequence's own seeded stream) and committed; while it equals the
// draft, the next row is valid too. The first difference is itself the next token (the
// correction), and if every draft matches, the last row gives one more (the bonus).
//
// Acceptance by equality with the target's own draw keeps every output identical to the one
// without speculation, token for token and seed for seed, whatever is drafted or batched. It
// is the classic rejection rule (accept x with probability min(1, p(x)/q(x)), else resample
// from max(0, p - q)) for the drafters lmforge has, which all propose deterministically: with q
// one-hot at the draft token d, the rule accepts with probability p(d) and resamples from p
// without d, which is exactly "the target's draw, accepted where it is d". The rule's own
// randomness would change seeded outputs; the target's draw does not. (A drafter that samples
// would draw with the same race keys, sampling/exponential-race.ts, to stay about as likely to
// be accepted as under the rule.)
import type { Sequence } from '../sequence.js';

/**
 * Commits tokens from the rows of a drafted entry until one differs from the draft or the
 * sequence finishes. Returns how many draft tokens were accepted (their KV cells are valid).
 */
export function verifyDraft(
  sequence: Sequence,
  draft: readonly number[],
  row: (k: number) => Float32Array,
  sampleAndCommit: (sequence: Sequence, logits: Float32Array) => void,
): number {
  const base = sequence.tokens.length;
  let accepted = 0;
  for (let k = 0; k <= draft.length && sequence.finish === undefined; k++) {
    sampleAndCommit(sequence, row(k));
    // An end-of-generation token or the grammar's end adds no token: then nothing more is valid.
    if (k === draft.length || sequence.tokens.length !== base + k + 1 || sequence.tokens[base + k] !== draft[k]) break;
    accepted++;
  }
  return accepted;
}
