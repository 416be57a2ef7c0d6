// One place turns a failure into the single line a user reads, and the exit status.
import { LmforgeError, UserFacingError } from '../compiler/lmforge-error.js';

/**
 * Errors meant for the user (bad flag, missing model, device not present) are LmforgeErrors with
 * `userFacing` true, wherever they are defined; anything else is a bug and keeps its stack.
 */
export class UsageError extends UserFacingError {
  override name = 'UsageError';
}

export function isUserFacing(error: unknown): error is Error {
  return (error instanceof LmforgeError && error.userFacing) || (error instanceof Error && error.name === 'CACError');
}

/** cac names an unknown option in camelCase (`--apiKeyy`): the user typed it in kebab-case. */
function asTyped(message: string): string {
  return message.replace(/`--([A-Za-z0-9]+)`/g, (_, name: string) => `\`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}\``);
}

/** Prints `lmforge: <message>` and exits 1. */
export function reportCliError(error: unknown): never {
  if (isUserFacing(error)) console.error(`lmforge: ${asTyped(error.message)}`);
  else console.error('lmforge: internal error:', error);
  process.exit(1);
}
