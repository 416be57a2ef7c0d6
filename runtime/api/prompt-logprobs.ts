// vLLM's `prompt_logprobs` (chat and text completions): every prompt token as the model scored it,
// in vLLM's shape, so that clients written for vLLM read it unchanged. One entry per prompt token:
// null for the first (nothing comes before it), then a map from token id to {logprob, rank,
// decoded_token} holding the prompt's own token first and the k most likely tokens after it,
// most likely first (an OrderedObject: JavaScript would sort the id keys).
import type { PromptTokenLogprob } from '../engine/protocol.js';
import { OrderedObject } from './ordered-json.js';
import { tokenText } from './token-text.js';

export interface PromptLogprob {
  logprob: number;
  /** 1 + how many tokens the model found more likely at that place. */
  rank: number;
  decoded_token: string;
}

export type PromptLogprobs = (OrderedObject | null)[];

/** `top`: the most alternatives listed at a place (the tokens may carry more, for the legacy echo beside them). */
export function promptLogprobsOf(tokens: readonly PromptTokenLogprob[], top = Infinity): PromptLogprobs {
  return tokens.map((scored) => {
    if (scored.logprob === null) return null;
    const entries: [string, PromptLogprob][] = [[String(scored.token), { logprob: scored.logprob, rank: scored.rank!, decoded_token: tokenText(scored.bytes) }]];
    scored.top.slice(0, top).forEach((other, place) => {
      if (other.token !== scored.token) entries.push([String(other.token), { logprob: other.logprob, rank: place + 1, decoded_token: tokenText(other.bytes) }]);
    });
    return new OrderedObject(entries);
  });
}
