// The output format a request asks for, whichever way it is written: OpenAI's response_format,
// or vLLM's structured_outputs and guided_ fields (vllm-structured-outputs.ts). One at most.
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import { badRequest } from './api-error.js';
import { grammarErrorParam, grammarSpecOf, type ErrorParamAt } from './response-format.js';
import { vllmFormatOf, type VllmFormatFields } from './vllm-structured-outputs.js';

export interface FormatFields extends VllmFormatFields {
  response_format?: ({ type: string } & Record<string, unknown>) | null;
}

export interface RequestedFormat {
  spec: GrammarSpec;
  /**
   * The field that asked for it (response_format, vLLM's structured_outputs.json, guided_regex,
   * ...), which its errors name, and the parameter they point into.
   */
  source: { field: string; paramAt: ErrorParamAt };
}

/** undefined for free text; a 400 naming the field for a malformed format, or for two of them. */
export function requestedFormat(request: FormatFields): RequestedFormat | undefined {
  const vllm = vllmFormatOf(request);
  const format = request.response_format;
  const spec = grammarSpecOf(format);
  if (vllm && spec) throw badRequest(`'${vllm.field}' and 'response_format' each ask for an output format: send one.`, vllm.field);
  if (vllm) return { spec: vllm.spec, source: { field: vllm.field, paramAt: vllm.paramAt } };
  return spec && { spec, source: { field: 'response_format', paramAt: grammarErrorParam(spec, format!) } };
}
