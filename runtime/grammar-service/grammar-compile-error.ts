// Why an output format was not compiled. The server answers each kind differently: a format that
// is wrong (invalid_grammar) or too slow (grammar_timeout) is the client's to fix; a compiler
// with no free worker (overloaded) is the server's, and worth a retry.
import { LmforgeError } from '../../compiler/lmforge-error.js';

export class GrammarCompileError extends LmforgeError {
  override name = 'GrammarCompileError';
  constructor(
    message: string,
    /** JSON pointer into the schema or tag, when the error has one. */
    readonly pointer: string | undefined,
    /** The format's own compile ran past its deadline. */
    readonly timedOut = false,
    /** The format never got a worker: every one stayed busy with others' compiles. */
    readonly overloaded = false,
  ) {
    super(message);
  }
}
