// The one error class of the grammar compiler. Every front end and pass throws it, with a
// location a client can act on: a line/column in EBNF text, an offset in a regex, or a JSON
// pointer into a schema.

export type GrammarErrorLocation =
  | { kind: 'text'; line: number; column: number }
  | { kind: 'regex'; offset: number }
  | { kind: 'pointer'; pointer: string }
  | { kind: 'none' };

export class GrammarError extends Error {
  override name = 'GrammarError';
  /** Printed as one line by the CLI and turned into a 400 by the server. */
  readonly userFacing = true;
  readonly location: GrammarErrorLocation;

  constructor(message: string, location: GrammarErrorLocation = { kind: 'none' }) {
    super(message);
    this.location = location;
  }

  static at(pointer: string, message: string): GrammarError {
    return new GrammarError(`${pointer || '/'}: ${message}`, { kind: 'pointer', pointer });
  }
}

/** RFC 6901 escaping of one pointer segment. */
export function pointerJoin(base: string, ...segments: (string | number)[]): string {
  return base + segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}
