// Compiling a request's output format (its response_format or the tag its tools make) before
// it goes to the engine, timed for the trace and /metrics. A format that does not compile is
// an OutputFormatError naming the request field it came from; to-api-error.ts answers it.
import { nowMicros } from '../engine/clock.js';
import { GrammarCompileError } from '../grammar-service/grammar-compile-error.js';
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import type { CompletionContext } from './completion-context.js';

/** Which request field a format came from, and the parameter its errors point into. */
export type FormatSource = { field: 'tools' } | { field: 'response_format'; param: string };

export class OutputFormatError extends Error {
  override name = 'OutputFormatError';
  constructor(readonly reason: GrammarCompileError, readonly source: FormatSource) {
    super(reason.message);
  }
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
