// The output format a request asks for (its response_format), with the field its errors name.
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import { grammarErrorParam, grammarSpecOf, type ErrorParamAt } from './response-format.js';

export interface FormatFields {
  response_format?: ({ type: string } & Record<string, unknown>) | null;
}

export interface RequestedFormat {
  spec: GrammarSpec;
  /** The field that asked for it, which its errors name, and the parameter they point into. */
  source: { field: string; paramAt: ErrorParamAt };
}

/** undefined for free text; a 400 naming the field for a malformed format. */
export function requestedFormat(request: FormatFields): RequestedFormat | undefined {
  const format = request.response_format;
  const spec = grammarSpecOf(format);
  return spec && { spec, source: { field: 'response_format', paramAt: grammarErrorParam(spec, format!) } };
}
