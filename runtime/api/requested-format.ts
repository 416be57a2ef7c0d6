// The output format a request asks for, whichever way it is written: OpenAI's response_format,
// or another server's fields: vLLM's structured_outputs and guided_ ones, SGLang's, llama-server's
// (peer-format-fields.ts). One at most.
import type { GrammarSpec } from '../grammar-service/grammar-spec.js';
import { badRequest } from './api-error.js';
import { grammarErrorParam, grammarSpecOf, type ErrorParamAt } from './response-format.js';
import { peerFormatOf, type PeerFormatFields } from './peer-format-fields.js';

export interface FormatFields extends PeerFormatFields {
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
  const peer = peerFormatOf(request);
  const format = request.response_format;
  const spec = grammarSpecOf(format);
  if (peer && spec) throw badRequest(`'${peer.field}' and 'response_format' each ask for an output format: send one.`, peer.field);
  if (peer) return { spec: peer.spec, source: { field: peer.field, paramAt: peer.paramAt } };
  return spec && { spec, source: { field: 'response_format', paramAt: grammarErrorParam(spec, format!) } };
}
