// An engine error after the engine had started a request. The answer may already be under
// way: a stream ends with an error event; a whole response that has output keeps it, its
// unfinished choices marked finish_reason "error". This carries what either needs.
import { LmforgeError } from '../../compiler/lmforge-error.js';
import { EngineRequestError } from '../engine/client/engine.js';
import type { ChoiceOutcome } from '../telemetry/metrics.js';
import type { Usage } from './usage.js';

export class InterruptedGeneration extends LmforgeError {
  override name = 'InterruptedGeneration';
  constructor(
    readonly reason: unknown,
    /** Tokens so far: the prompt, and what every choice generated, finished or not. */
    readonly usage: Usage,
    /** How each choice ended: its finish reason, or `error` for those cut off. */
    readonly outcomes: ChoiceOutcome[],
    /** Whether any choice had generated text or tokens. */
    readonly hadOutput: boolean,
  ) {
    super(reason instanceof Error ? reason.message : String(reason));
  }

  /** A whole response keeps partial output only when the engine failed (not when it refused). */
  get keepsPartialOutput(): boolean {
    return this.hadOutput && this.reason instanceof EngineRequestError && this.reason.info.code === 'internal_error';
  }
}
