// Compiling a request's output format (its response_format or the tag its tools make) before
// it goes to the engine, timed for the trace and /metrics. A format that does not compile is
// an OutputFormatError naming the request field it came from, with the answer the client gets.
import { LmforgeError, type ErrorFields } from '../../compiler/lmforge-error.js';
import { nowMicros } from '../engine/clock.js';
import { GrammarCompileError } from '../grammar-service/grammar-compile-error.js';
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import type { CompletionContext } from './completion-context.js';
import type { RequestedFormat } from './requested-format.js';

/** Which request field a format came from: the tools, or the field that asked for it (requested-format.ts). */
export type FormatSource = { field: 'tools' } | RequestedFormat['source'];

export class OutputFormatError extends LmforgeError {
  override name = 'OutputFormatError';
  constructor(readonly reason: GrammarCompileError, readonly source: FormatSource) {
    super(...answer(reason, source));
  }
}

/** What the client is told: its message and the OpenAI error fields. */
function answer(reason: GrammarCompileError, source: FormatSource): [string, ErrorFields] {
  // No worker was free for it: nothing is wrong with the format, so the answer says retry.
  if (reason.overloaded) return [reason.message, { status: 503, code: 'server_is_overloaded', userFacing: true }];
  const code = reason.timedOut ? 'grammar_timeout' : 'invalid_grammar';
  // The schemas were checked one by one; what is left is the tag as a whole (e.g. too slow).
  if (!('paramAt' in source)) return [`The tools could not be compiled: ${reason.message}`, { status: 400, param: 'tools', code, userFacing: true }];
  const param = source.paramAt(reason.pointer);
  return [`Invalid ${source.field}: ${reason.message}`, { status: 400, param, code, userFacing: true }];
}

/**
 * The compiled artifact of `compiled`; errors are reported against `reported`, the format as
 * the request wrote it (the two differ when the server wraps a format, e.g. after thinking).
 */
export async function compileOutputFormat(
  context: CompletionContext,
  traceId: string,
  formats: { compiled: GrammarSpec; reported: GrammarSpec; source: FormatSource },
): Promise<Uint8Array> {
  const started = nowMicros();
  try {
    try {
      return await context.engine.compileGrammar(formats.compiled);
    } catch (error) {
      if (!(error instanceof GrammarCompileError) || formats.reported === formats.compiled) throw error;
      // Past the deadline already: compiling the request's own format would take another one.
      if (error.timedOut || error.overloaded) throw error;
      // The request's own format compiles (or throws the error that names its field).
      await context.engine.compileGrammar(formats.reported);
      throw error;
    }
  } catch (error) {
    if (error instanceof GrammarCompileError) throw new OutputFormatError(error, formats.source);
    throw error;
  } finally {
    const micros = nowMicros() - started;
    context.tracer?.span(traceId, 'grammar compiled', started, micros, { kind: formats.reported.kind });
    context.metrics.grammarCompileTime.observe(micros / 1e6);
  }
}
