// A chat request as the engine takes it: the conversation (and tools) rendered by the model's
// chat template into the prompt, the shared fields beside it.
import { toTemplateMessages, toTemplateTools } from '../../chat-format/chat-messages.js';
import { thinkStartOf, type ThinkStart } from '../../chat-format/reasoning.js';
import { withToolPrompt } from '../../chat-format/tool-prompt.js';
import { THINK_TAGS, type ThinkMarkers } from '../../chat-format/tool-formats.js';
import type { GenerateRequest } from '../../engine/protocol.js';
import { badRequest } from '../api-error.js';
import type { ChatRequest } from './chat-request.js';
import type { CompletionContext } from '../completion-context.js';
import { addsBos, generateFieldsOf } from '../generate-fields.js';
import type { ToolSetup } from './tool-calls.js';

/** Throws ChatTemplateError when the template cannot render the conversation. */
export function toGenerateRequest(request: ChatRequest, context: CompletionContext, traceId: string, tools?: ToolSetup): GenerateRequest {
  const messages = toTemplateMessages(request.messages);
  const continuing = request.continue_final_message === true;
  const options = { addGenerationPrompt: !continuing && request.add_generation_prompt !== false, ...(request.chat_template_kwargs ? { variables: request.chat_template_kwargs } : {}) };
  const rendered = context.tools.templateKnowsTools
    ? context.template.render(messages, { ...options, ...(request.tools?.length ? { tools: toTemplateTools(request.tools) } : {}) })
    : context.template.render(withToolPrompt(messages, tools?.offered ?? [], context.tools.format), options);
  const prompt = continuing ? openFinalMessage(rendered, messages.at(-1)!.content) : rendered;
  const shared = generateFieldsOf(request, {
    maxTokens: request.max_tokens ?? request.max_completion_tokens ?? undefined,
    logprobs: request.logprobs ?? false,
    topLogprobs: request.top_logprobs ?? 0,
    traceId,
  });
  return {
    prompt,
    // A template that writes the BOS text itself must not get a second BOS from the tokenizer.
    addSpecial: addsBos(prompt, context.engine.info),
    turnOpener: context.template.generationPrompt,
    ...shared,
    // A template's own stops (plain turns have no end token) end the choice as the request's do.
    stop: [...(shared.stop ?? []), ...context.template.stop],
    ...(request.prediction ? { prediction: predictionText(request.prediction.content) } : {}),
    ...(request.prompt_logprobs != null ? { promptLogprobs: true, promptTopLogprobs: request.prompt_logprobs } : {}),
  };
}

/**
 * The rendered conversation cut after its final message's text, so that the model goes on
 * writing that message (vLLM's continue_final_message): the template's end of the turn is left
 * off. A template that trims a message's text is matched trimmed.
 */
function openFinalMessage(rendered: string, content: string): string {
  if (content.trim() === '') throw badRequest('continue_final_message: the last message has no text to continue.', 'continue_final_message');
  for (const text of new Set([content, content.trimEnd(), content.trim()])) {
    const at = text === '' ? -1 : rendered.lastIndexOf(text);
    if (at >= 0) return rendered.slice(0, at + text.length);
  }
  throw badRequest("continue_final_message: the chat template's rendering of the conversation does not hold the final message's text, so there is nothing to continue.", 'continue_final_message');
}

/** A prediction's text: its string, or its text parts one after the other (as a message's parts are read). */
function predictionText(content: NonNullable<ChatRequest['prediction']>['content']): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('');
}

/** The delimiters of the model's thinking (its tool-call family's, else <think> and </think>). */
export function thinkMarkersOf(context: CompletionContext): ThinkMarkers {
  return context.tools.format.thinking ?? THINK_TAGS;
}

/** Where this request's thinking starts, or `closed` when there is none (see reasoning.ts). */
export function thinkStartFor(generate: GenerateRequest, context: CompletionContext): ThinkStart {
  return context.reasoning && typeof generate.prompt === 'string' ? thinkStartOf(generate.prompt, thinkMarkersOf(context)) : 'closed';
}
