// Errors the model layer raises for users: each one line, with a stable `code`.
import { UserFacingError } from '../../compiler/lmforge-error.js';

export type ModelErrorCode = 'model_not_found' | 'unknown_model' | 'model_pull_failed' | 'invalid_model';

export class ModelError extends UserFacingError {
  override name = 'ModelError';
  declare readonly code: ModelErrorCode;
  constructor(message: string, code: ModelErrorCode) {
    super(message, { code });
  }
}

/** Why one download source failed, kept so the final error can list them all. */
export interface SourceFailure {
  source: string;
  reason: string;
}

export class ModelPullError extends ModelError {
  override name = 'ModelPullError';
  constructor(what: string, readonly failures: SourceFailure[]) {
    super(
      `could not pull ${what}: ${failures.length === 1 ? 'the only source' : `all ${failures.length} sources`} failed: ` +
        failures.map((f, i) => `(${i + 1}) ${f.source}: ${f.reason}`).join('; '),
      'model_pull_failed',
    );
  }
}

/** The message of any thrown value, with the underlying network cause when fetch hides it. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && !error.message.includes(cause.message)) return `${error.message}: ${cause.message}`;
  return error.message;
}
