// The one error class of the grammar compiler. Every front end and pass throws it, with a
// location a client can act on: a line/column in EBNF text, an offset in a regex, or a JSON
// pointer into a schema. It is user-facing: printed as one line by the CLI, and turned into a 400
// by the server.
import { UserFacingError } from './lmforge-error.js';

export type GrammarErrorLocation =
  | { kind: 'text'; line: number; column: number }
  | { kind: 'regex'; offset: number }
  | { kind: 'pointer'; pointer: string }
  | { kind: 'none' };

export class GrammarError extends UserFacingError {
  override name = 'GrammarError';
  readonly location: GrammarErrorLocation;

  constructor(message: string, location: GrammarErrorLocation = { kind: 'none' }) {
    // The grammar is the caller's: a 400 for a server, as the API answers it (invalid_grammar).
    super(message, { status: 400, code: 'invalid_grammar' });
    this.location = location;
  }

  static at(pointer: string, message: string): GrammarError {
    return new GrammarError(`${pointer || '/'}: ${message}`, { kind: 'pointer', pointer });
  }

  /** An error at any kind of location, with the location written in front of the message as
   * each front end writes it. */
  static located(location: GrammarErrorLocation, message: string): GrammarError {
    switch (location.kind) {
      case 'pointer':
        return GrammarError.at(location.pointer, message);
      case 'text':
        return new GrammarError(`line ${location.line}, column ${location.column}: ${message}`, location);
      case 'regex':
        return new GrammarError(`regex: ${message}`, location);
      case 'none':
        return new GrammarError(message, location);
    }
  }
}

/** RFC 6901 escaping of one pointer segment. */
export function pointerJoin(base: string, ...segments: (string | number)[]): string {
  return base + segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
