// How the served model writes a conversation, chosen once when the model is loaded: the chat
// template (the model's own or --chat-template's, and its tool_use template for requests with
// tools), the tool-call format each is written in, and whether the model thinks. Each choice
// comes with its reason, for the start-up log.
import { UserFacingError } from '../../compiler/lmforge-error.js';
import { ChatTemplate } from '../chat-format/chat-template.js';
import { chooseChatTemplate, chooseToolTemplate, type GivenTemplate, type TemplateChoice } from '../chat-format/template-choice.js';
import { modelThinks, type ReasoningMode } from '../chat-format/reasoning.js';
import { detectToolFormat } from '../chat-format/tool-format-detect.js';
import { THINK_TAGS, TOOL_FORMATS, type ToolFormatKey } from '../chat-format/tool-formats.js';
import type { EngineClient } from '../engine/client/engine-client.js';
import type { ToolCallArguments } from './chat-completions/tool-calls.js';
import type { ChatConventions } from './completion-context.js';

export interface ConversationOptions {
  /** Tool-call format; default: detected from the chat template. */
  toolFormat?: ToolFormatKey;
  /** `function.arguments` as an object (the spec, default) or as OpenAI's JSON string. */
  toolCallArguments?: ToolCallArguments;
  /** Whether the model thinks before answering; `auto` (default) asks the chat template. */
  reasoning?: ReasoningMode;
  /** A chat template that replaces the model's own (--chat-template); default: see template-choice.ts. */
  chatTemplate?: GivenTemplate;
}

export interface Conversation {
  conventions: ChatConventions;
  /** For requests with tools, when the model has a tool_use template. */
  withTools?: ChatConventions;
  /** Each choice and why, for the start-up log. */
  notes: { template: string; toolFormat: string; reasoning: string };
}

export function chooseConversation(info: EngineClient['info'], options: ConversationOptions): Conversation {
  const chosen = chooseChatTemplate(info, options.chatTemplate);
  const plain = conventionsOf(chosen, info, options);
  const forTools = chooseToolTemplate(info, chosen, options.chatTemplate);
  const withTools = forTools ? conventionsOf(forTools, info, options) : undefined;
  const problem = plain.conventions.template.trialRenderProblem();
  // A template given (or recorded by compile) is refused at start; the model's own is said, as
  // text completions still serve without it.
  if (problem !== undefined && options.chatTemplate) {
    throw new TemplateRenderError(`the chat template ${options.chatTemplate.label} cannot render a conversation of one user message: ${problem}`);
  }
  const broken = problem === undefined ? '' : `; it cannot render a conversation of one user message (${problem}), so chat completions answer 400: give --chat-template`;
  return {
    conventions: plain.conventions,
    ...(withTools ? { withTools: withTools.conventions } : {}),
    notes: {
      template: chosen.note + broken + (forTools ? `; with tools, ${forTools.note}` : ''),
      toolFormat: plain.toolFormatNote + (withTools ? `; with tools, ${withTools.toolFormatNote}` : ''),
      reasoning: plain.reasoningNote,
    },
  };
}

/** A chat template given to the server that cannot render a conversation. */
export class TemplateRenderError extends UserFacingError {
  override name = 'TemplateRenderError';
}

/** A template's conventions: its tool-call format and whether the model thinks, with the start-up notes. */
function conventionsOf(chosen: TemplateChoice, info: EngineClient['info'], options: ConversationOptions): { conventions: ChatConventions; toolFormatNote: string; reasoningNote: string } {
  const detected = detectToolFormat(chosen.source);
  const key = options.toolFormat ?? detected.key;
  const mode = options.reasoning ?? 'auto';
  const thinking = TOOL_FORMATS[key].thinking ?? THINK_TAGS;
  const reasoning = modelThinks(mode, chosen.source, thinking);
  return {
    conventions: {
      reasoning,
      tools: { format: TOOL_FORMATS[key], templateKnowsTools: detected.templateKnowsTools, arguments: options.toolCallArguments ?? 'object' },
      template: new ChatTemplate(chosen.source, { bos: info.bosText, eos: info.eosText }, chosen.stop),
    },
    toolFormatNote: options.toolFormat ? `${key} (--tool-format)` : `${key} (${detected.reason})`,
    reasoningNote: `${reasoning ? 'on' : 'off'} (${mode === 'auto' ? `the chat template ${reasoning ? 'closes' : 'has no'} ${thinking.close}` : '--reasoning'})`,
  };
}
