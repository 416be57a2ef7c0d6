// The chat templates lmforge carries itself, by the name `--chat-template NAME` takes. Kept to
// the turn formats a model without a template is given automatically (template-choice.ts),
// plus Llama 3's for Llama 3 GGUFs that lost theirs.
import { chatmlTemplate } from './chatml-template.js';
import { gemmaTemplate } from './gemma-template.js';
import { llama3Template } from './llama3-template.js';
import { PLAIN_TURN_STOPS, plainTemplate } from './plain-template.js';

export interface BuiltinTemplate {
  /** Jinja source. */
  source: string;
  /** The turn format in a few words, for --help, the README and the start-up log. */
  summary: string;
  /** Text that means the model has begun another turn, where no token of the model marks one. */
  stop: readonly string[];
  /** The control tokens its turns are made of: a vocabulary without them reads them as text. */
  turnTokens: readonly string[];
}

export const BUILTIN_TEMPLATES = {
  chatml: { source: chatmlTemplate, summary: '<|im_start|>ROLE … <|im_end|> turns, tool calls in <tool_call> tags', stop: [], turnTokens: ['<|im_start|>', '<|im_end|>'] },
  gemma: { source: gemmaTemplate, summary: '<start_of_turn>user|model … <end_of_turn> turns', stop: [], turnTokens: ['<start_of_turn>', '<end_of_turn>'] },
  llama3: { source: llama3Template, summary: '<|start_header_id|>ROLE<|end_header_id|> … <|eot_id|> turns', stop: [], turnTokens: ['<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>'] },
  plain: { source: plainTemplate, summary: '"User: …" / "Assistant: …" text turns, stopping where the model starts the next', stop: PLAIN_TURN_STOPS, turnTokens: [] },
} as const satisfies Record<string, BuiltinTemplate>;

export type BuiltinTemplateName = keyof typeof BUILTIN_TEMPLATES;

export const BUILTIN_TEMPLATE_NAMES = Object.keys(BUILTIN_TEMPLATES) as BuiltinTemplateName[];

export function isBuiltinTemplateName(name: string): name is BuiltinTemplateName {
  return Object.hasOwn(BUILTIN_TEMPLATES, name);
}
