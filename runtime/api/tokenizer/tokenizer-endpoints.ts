// The tokenizer endpoints in vLLM's shapes: POST /tokenize (text to the served model's tokens,
// as a prompt is tokenized), POST /detokenize (tokens to text), GET /tokenizer_info. With these
// an evaluation harness needs no copy of the tokenizer (lm-evaluation-harness's
// `local-completions` looks for /tokenizer_info and /tokenize and uses them when they answer).
import type { CompletionContext } from '../completion-context.js';
import { requestValidator } from '../request-validator.js';
import { checkTokenIds } from '../token-ids.js';
import { detokenizeRequestSchema, tokenizeRequestSchema } from './tokenizer-schemas.js';

export interface TokenizeRequest {
  model?: string | null;
  prompt: string;
  add_special_tokens?: boolean | null;
  return_token_strs?: boolean | null;
}

export interface DetokenizeRequest {
  model?: string | null;
  tokens: number[];
}

/** A JSON-in, JSON-out endpoint the server answers as it answers completions (auth, model, readiness, errors), without streaming. */
export interface JsonEndpoint<Request extends { model?: string | null }> {
  parse(body: unknown): Request;
  answer(request: Request, context: CompletionContext): Promise<object>;
}

export const tokenizeEndpoint: JsonEndpoint<TokenizeRequest> = {
  parse: requestValidator<TokenizeRequest>(tokenizeRequestSchema),
  async answer(request, { engine }) {
    const tokens = await engine.tokenize(request.prompt, request.add_special_tokens !== false);
    const texts = engine.info.tokenTexts;
    return {
      count: tokens.length,
      max_model_len: engine.info.config.contextWindowSize,
      tokens,
      token_strs: request.return_token_strs === true ? tokens.map((token) => texts[token] ?? '') : null,
    };
  },
};

export const detokenizeEndpoint: JsonEndpoint<DetokenizeRequest> = {
  parse: requestValidator<DetokenizeRequest>(detokenizeRequestSchema),
  async answer(request, { engine }) {
    checkTokenIds(request.tokens, 'tokens', engine.info.vocabSize);
    return { prompt: await engine.detokenize(request.tokens) };
  },
};

/** The tokenizer's facts in a Hugging Face tokenizer config's keys; the chat template is the one chat requests are rendered with. */
export function tokenizerInfo({ engine, template }: CompletionContext): object {
  const { info } = engine;
  return {
    tokenizer_class: 'llama.cpp',
    model_max_length: info.config.contextWindowSize,
    bos_token: info.bosText || null,
    eos_token: info.eosText || null,
    pad_token: null,
    add_bos_token: info.addBos,
    chat_template: template.source,
  };
}
