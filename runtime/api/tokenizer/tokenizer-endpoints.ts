// The tokenizer endpoints in vLLM's shapes: POST /tokenize (text to the served model's tokens,
// as a prompt is tokenized), POST /detokenize (tokens to text), GET /tokenizer_info. With these
// an evaluation harness needs no copy of the tokenizer (lm-evaluation-harness's
// `local-completions` looks for /tokenizer_info and /tokenize and uses them when they answer).
import type { CompletionContext } from '../completion-context.js';
import { badRequest } from '../api-error.js';
import { chatContextFor } from '../chat-completions/chat-generation.js';
import { toGenerateRequest } from '../chat-completions/chat-prompt.js';
import { parseChatRequest, type ChatRequest } from '../chat-completions/chat-request.js';
import { toolSetupOf } from '../chat-completions/tool-calls.js';
import { requestValidator } from '../request-validator.js';
import { checkTokenIds } from '../token-ids.js';
import { detokenizeRequestSchema, tokenizeRequestSchema } from './tokenizer-schemas.js';

export interface TokenizeRequest {
  model?: string | null;
  prompt?: string;
  add_special_tokens?: boolean | null;
  return_token_strs?: boolean | null;
  messages?: unknown[];
  /** vLLM's chat form (messages, tools and the template fields), checked as a chat request is. */
  chat?: ChatRequest;
}

const validateTokenize = requestValidator<TokenizeRequest>(tokenizeRequestSchema);

/** The chat form's fields, checked as a chat completion checks them. */
const CHAT_FIELDS = ['messages', 'tools', 'add_generation_prompt', 'continue_final_message', 'chat_template_kwargs'] as const;

export interface DetokenizeRequest {
  model?: string | null;
  tokens: number[];
}

/** A JSON-in, JSON-out endpoint the server answers as it answers completions (auth, model, readiness, errors), without streaming. */
export interface JsonEndpoint<Request extends { model?: string | null }> {
  parse(body: unknown): Request;
  answer(request: Request, context: CompletionContext): Promise<object>;
  /** How this request names what the engine calls its prompt (`messages` for a conversation); `prompt` without. */
  promptField?(request: Request): string;
}

export const tokenizeEndpoint: JsonEndpoint<TokenizeRequest> = {
  parse(body) {
    const request = validateTokenize(body);
    if (request.prompt === undefined && request.messages === undefined) throw badRequest("Missing required parameter: 'prompt' (text), or 'messages' (a conversation).", 'prompt');
    if (request.prompt !== undefined && request.messages !== undefined) throw badRequest("A tokenize request has a 'prompt' (text) or 'messages' (a conversation), not both.", 'messages');
    if (request.messages === undefined) {
      const stray = CHAT_FIELDS.find((field) => (request as Record<string, unknown>)[field] != null);
      if (stray) throw badRequest(`'${stray}' goes with 'messages', not with a text 'prompt'.`, stray);
      return request;
    }
    if (request.add_special_tokens != null) {
      throw badRequest("'add_special_tokens' is for a text prompt: a conversation's tokens are those its chat completion computes, BOS as the template and the model put it.", 'add_special_tokens');
    }
    const fields = Object.fromEntries(CHAT_FIELDS.filter((field) => field in request).map((field) => [field, (request as Record<string, unknown>)[field]]));
    return { ...request, chat: parseChatRequest({ model: request.model ?? '', ...fields }, true) };
  },
  // Too long a conversation is the conversation's fault, as a chat completion names it.
  promptField: (request) => (request.chat ? 'messages' : 'prompt'),
  async answer(request, context) {
    const { engine } = context;
    const tokens = request.chat ? await chatPromptTokens(request.chat, context) : await engine.tokenize(request.prompt!, request.add_special_tokens !== false);
    const texts = engine.info.tokenTexts;
    return {
      count: tokens.length,
      max_model_len: engine.info.config.contextWindowSize,
      tokens,
      token_strs: request.return_token_strs === true ? tokens.map((token) => texts[token] ?? '') : null,
    };
  },
};

/** The tokens of the prompt a chat completion computes from this conversation. */
async function chatPromptTokens(chat: ChatRequest, serverContext: CompletionContext): Promise<number[]> {
  const context = chatContextFor(chat, serverContext);
  const generate = toGenerateRequest(chat, context, 'tokenize', toolSetupOf(chat, context.tools.format));
  return Array.from(await context.engine.tokenize(generate.prompt as string, generate.addSpecial ?? false));
}

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
