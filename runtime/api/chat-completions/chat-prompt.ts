// A chat request as the engine takes it: the conversation (and tools) rendered by the model's
// chat template into the prompt, the shared fields beside it.
import { toTemplateMessages, toTemplateTools } from '../../chat-format/chat-messages.js';
import { thinkStartOf, type ThinkStart } from '../../chat-format/reasoning.js';
import { withToolPrompt } from '../../chat-format/tool-prompt.js';
import { THINK_TAGS, type ThinkMarkers } from '../../chat-format/tool-formats.js';
import type { GenerateRequest } from '../../engine/protocol.js';
import type { ChatRequest } from './chat-request.js';
import type { CompletionContext } from '../completion-context.js';
import { addsBos, generateFieldsOf } from '../generate-fields.js';
import type { ToolSetup } from './tool-calls.js';

/** Throws ChatTemplateError when the template cannot render the conversation. */
export function toGenerateRequest(request: ChatRequest, context: CompletionContext, traceId: string, tools?: ToolSetup): GenerateRequest {
  const messages = toTemplateMessages(request.messages);
  const prompt = context.tools.templateKnowsTools
    ? context.template.render(messages, { addGenerationPrompt: true, ...(request.tools?.length ? { tools: toTemplateTools(request.tools) } : {}) })
    : context.template.render(withToolPrompt(messages, tools?.offered ?? [], context.tools.format), { addGenerationPrompt: true });
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
