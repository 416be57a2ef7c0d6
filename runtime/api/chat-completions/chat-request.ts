// Turns a request body into a checked ChatRequest, or an ApiError naming the offending field.
import type { IncomingMessage } from '../../chat-format/chat-messages.js';
import { badRequest } from '../api-error.js';
import { chatCompletionRequestSchema } from '../api-schemas.js';
import { requestValidator } from '../request-validator.js';
import { requestedFormat, type FormatFields } from '../requested-format.js';
import { RENDERER_VARIABLES } from '../../chat-format/chat-template.js';
import { withDefaultFormatType } from '../response-format.js';
import { checkSamplingFields, type SamplingFields } from '../sampling-fields.js';

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

/** A tool named in tool_choice. */
export interface NamedFunction {
  type: 'function';
  function: { name: string };
}

export type ChatMessage = IncomingMessage & { role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' };

export interface ChatRequest extends SamplingFields, FormatFields {
  messages: ChatMessage[];
  model: string;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  prompt_logprobs?: number | null;
  logit_bias?: Record<string, number> | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number | null;
  seed?: number | null;
  stop?: string | string[] | null;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean | null; include_obfuscation?: boolean | null; continuous_usage_stats?: boolean | null } | null;
  temperature?: number | null;
  top_p?: number | null;
  tools?: ChatTool[] | null;
  tool_choice?: 'none' | 'auto' | 'required' | NamedFunction | { type: 'allowed_tools'; allowed_tools: { mode: 'auto' | 'required'; tools: NamedFunction[] } } | null;
  parallel_tool_calls?: boolean | null;
  store?: false | null;
  user?: string | null;
  ignore_eos?: boolean;
  cache_prompt?: boolean;
  skip_special_tokens?: boolean;
  prediction?: { type: 'content'; content: string | { type: 'text'; text: string }[] } | null;
  /** vLLM's: go on writing the last (assistant) message instead of opening a new turn. */
  continue_final_message?: boolean | null;
  /** vLLM's: false only with continue_final_message (the default, true, opens the assistant's turn). */
  add_generation_prompt?: boolean | null;
  /** vLLM's: logprobs name each token `token_id:<id>`. */
  return_tokens_as_token_ids?: boolean | null;
  /** vLLM's: more variables for the chat template (`enable_thinking`, say). */
  chat_template_kwargs?: Record<string, unknown> | null;
}

const validate = requestValidator<ChatRequest>(chatCompletionRequestSchema);

/**
 * Schema checks, then the rules that tie fields together (in the schema, and those it cannot
 * express). `tokenizing`: the conversation is only tokenized (POST /tokenize), so a prompt without
 * the generation prompt is fine alone.
 */
export function parseChatRequest(body: unknown, tokenizing = false): ChatRequest {
  const request = validate(withDefaultFormatType(body));
  if (request.max_tokens != null && request.max_completion_tokens != null && request.max_tokens !== request.max_completion_tokens) {
    throw badRequest("'max_tokens' and 'max_completion_tokens' disagree; send one of them.", 'max_completion_tokens');
  }
  checkSamplingFields(request);
  checkTools(request);
  checkToolReplies(request.messages);
  checkTemplateFields(request, tokenizing);
  return request;
}

/**
 * vLLM's chat-template fields: kwargs may not stand for what the renderer sets; a continued
 * message is the assistant's, has text, and is not followed by a new turn's opener; and a
 * prompt without the generation prompt is only a continued one (alone, the model would open its
 * own turn, which this server reads as the end of the answer).
 */
function checkTemplateFields(request: ChatRequest, tokenizing: boolean): void {
  for (const name of Object.keys(request.chat_template_kwargs ?? {})) {
    if (RENDERER_VARIABLES.includes(name)) throw badRequest(`chat_template_kwargs.${name}: the server sets '${name}' for the template itself (from the request's own fields).`, `chat_template_kwargs.${name}`);
  }
  if (request.continue_final_message !== true) {
    if (request.add_generation_prompt === false && !tokenizing) {
      throw badRequest("add_generation_prompt: false is taken only with continue_final_message: true (to go on with the last assistant message); alone, the model would open its own turn, which ends the answer here.", 'add_generation_prompt');
    }
    return;
  }
  if (request.add_generation_prompt === true) throw badRequest("add_generation_prompt: true opens a new assistant turn, and continue_final_message goes on with the last one: send add_generation_prompt: false, or leave it out.", 'add_generation_prompt');
  const last = request.messages.length - 1;
  const final = request.messages[last]!;
  if (final.role !== 'assistant') throw badRequest(`continue_final_message needs the last message to be the assistant's (the text to continue); messages[${last}] is a '${final.role}' message.`, 'continue_final_message');
  if (final.tool_calls?.length) throw badRequest(`continue_final_message continues text: messages[${last}] has tool_calls.`, 'continue_final_message');
  if (request.tools?.length || requestedFormat(request)) {
    throw badRequest('continue_final_message with tools or an output format is not taken: the format would hold the continuation alone, not the message it continues.', 'continue_final_message');
  }
}

/**
 * OpenAI's rules: a tool message answers a call of the assistant message before it (other
 * replies may sit between them), by one of its ids when the calls carry ids; and every call with
 * an id is answered before the next message of another role (or the end). A template renders a
 * reply beside its call: a reply to nothing, or a call left without one, would be shown to the
 * model as a conversation that never happened.
 */
function checkToolReplies(messages: readonly ChatMessage[]): void {
  let calls: ReadonlySet<string | undefined> | undefined;
  let unanswered = new Set<string>();
  let caller = -1;
  const checkAnswered = () => {
    const [missing] = unanswered;
    if (missing === undefined) return;
    throw badRequest(`messages[${caller}].tool_calls: an assistant message with 'tool_calls' must be followed by tool messages answering each 'tool_call_id'; '${missing}' has no answer.`, `messages[${caller}].tool_calls`);
  };
  messages.forEach((message, i) => {
    if (message.role !== 'tool') {
      checkAnswered();
      calls = message.role === 'assistant' && message.tool_calls ? new Set(message.tool_calls.map((call) => call.id)) : undefined;
      unanswered = new Set([...(calls ?? [])].filter((id): id is string => id !== undefined && id !== ''));
      caller = i;
      return;
    }
    unanswered.delete(message.tool_call_id!);
    if (!calls) throw badRequest(`messages[${i}]: A message with role 'tool' must answer a call in the assistant message before it ('tool_calls').`, `messages[${i}]`);
    if (!calls.has(undefined) && !calls.has(message.tool_call_id)) {
      throw badRequest(`messages[${i}].tool_call_id '${message.tool_call_id}' answers none of the calls before it (${[...calls].map((id) => `'${id}'`).join(', ')}).`, `messages[${i}].tool_call_id`);
    }
  });
  checkAnswered();
}

/** What the rules cannot say about tools: unique names, object parameters, a named choice among them (schemas compile later, per tool format). */
function checkTools(request: ChatRequest): void {
  const tools = request.tools ?? [];
  const names = new Set<string>();
  tools.forEach((tool, i) => {
    if (names.has(tool.function.name)) throw badRequest(`tools[${i}].function.name '${tool.function.name}' is already the name of an earlier tool; names must be unique.`, `tools[${i}].function.name`);
    names.add(tool.function.name);
    const type = tool.function.parameters?.type;
    if (type !== undefined && type !== 'object') throw badRequest(`tools[${i}].function.parameters must describe an object (type 'object').`, `tools[${i}].function.parameters/type`);
    // A call's arguments are an object: a null one is no call a template or a client can take.
    if (tool.function.parameters?.nullable === true) throw badRequest(`tools[${i}].function.parameters: a call's arguments are an object; 'nullable' at the root of its parameters would let them be null.`, `tools[${i}].function.parameters/nullable`);
  });
  const choice = typeof request.tool_choice === 'object' ? request.tool_choice : undefined;
  if (choice?.type === 'function' && !names.has(choice.function.name)) {
    throw badRequest(`tool_choice names the function '${choice.function.name}', which is not among the tools.`, 'tool_choice.function.name');
  }
  if (choice?.type === 'allowed_tools') {
    choice.allowed_tools.tools.forEach((tool, i) => {
      if (!names.has(tool.function.name)) throw badRequest(`tool_choice.allowed_tools names the function '${tool.function.name}', which is not among the tools.`, `tool_choice.allowed_tools.tools[${i}].function.name`);
    });
  }
}
