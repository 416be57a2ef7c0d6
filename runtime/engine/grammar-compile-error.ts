// Why an output format was not compiled: what the server turns into invalid_grammar or
// grammar_timeout.
export class GrammarCompileError extends Error {
  override name = 'GrammarCompileError';
  constructor(
    message: string,
    /** JSON pointer into the schema or tag, when the error has one. */
    readonly pointer: string | undefined,
    readonly timedOut = false,
  ) {
    super(message);
  }
}
