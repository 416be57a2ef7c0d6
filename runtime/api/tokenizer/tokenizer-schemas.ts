// The JSON schemas of the tokenizer endpoints, as vLLM serves them (POST /tokenize, POST
// /detokenize, GET /tokenizer_info): what evaluation harnesses and context-budgeting clients
// call to count and split text the way the served model does.
import { chatCompletionRequestSchema } from '../api-schemas.js';

const model = { type: ['string', 'null'], description: 'The served model (optional; another model is a 404).' } as const;
const chat = chatCompletionRequestSchema.properties;

export const tokenizeRequestSchema = {
  type: 'object',
  description:
    "Tokenize Request: text in, the served model's tokens out; or, as vLLM's chat form, a conversation in and the tokens of the prompt a chat completion would compute from it (the chat template's rendering, tools and vLLM's template fields included). Exactly one of prompt and messages.",
  properties: {
    model,
    prompt: { type: 'string', description: 'Text as a prompt would hold it: special-token text such as "<|im_end|>" is that token.' },
    add_special_tokens: { type: ['boolean', 'null'], default: true, description: 'Put the BOS token in front when the model adds one to a prompt (text only: a chat prompt has what a chat completion gives it).' },
    return_token_strs: { type: ['boolean', 'null'], default: false, description: "Also return each token's text." },
    messages: chat.messages,
    tools: chat.tools,
    add_generation_prompt: chat.add_generation_prompt,
    continue_final_message: chat.continue_final_message,
    chat_template_kwargs: chat.chat_template_kwargs,
  },
  additionalProperties: false,
} as const;

export const tokenizeResponseSchema = {
  type: 'object',
  properties: {
    count: { type: 'integer' },
    max_model_len: { type: 'integer', description: 'The longest a sequence (prompt and output) may be on this server.' },
    tokens: { type: 'array', items: { type: 'integer' } },
    token_strs: { type: ['array', 'null'], items: { type: 'string' }, description: "Each token's text, as the vocabulary writes it; null unless return_token_strs." },
  },
  required: ['count', 'max_model_len', 'tokens', 'token_strs'],
} as const;

export const detokenizeRequestSchema = {
  type: 'object',
  description: 'Detokenize Request: token ids in, their text out.',
  properties: {
    model,
    tokens: { type: 'array', items: { type: 'integer', minimum: 0 }, description: 'Token ids of the served model.' },
  },
  required: ['tokens'],
  additionalProperties: false,
} as const;

export const detokenizeResponseSchema = {
  type: 'object',
  properties: { prompt: { type: 'string' } },
  required: ['prompt'],
} as const;

export const tokenizerInfoSchema = {
  type: 'object',
  description: "The served tokenizer's facts, in the keys of a Hugging Face tokenizer config.",
  properties: {
    tokenizer_class: { type: 'string' },
    model_max_length: { type: 'integer' },
    bos_token: { type: ['string', 'null'] },
    eos_token: { type: ['string', 'null'] },
    pad_token: { type: ['string', 'null'] },
    add_bos_token: { type: 'boolean' },
    chat_template: { type: ['string', 'null'], description: 'The Jinja template chat requests are rendered with.' },
  },
  required: ['tokenizer_class', 'model_max_length', 'bos_token', 'eos_token', 'pad_token', 'add_bos_token', 'chat_template'],
} as const;
