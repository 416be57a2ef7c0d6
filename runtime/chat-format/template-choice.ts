// Which chat template a server renders with: the one given with --chat-template, else the
// model's own, else a built-in picked from the model's architecture and the turn tokens its
// vocabulary actually has. A template whose markers are not tokens of the vocabulary would be
// tokenized as ordinary text: the model would copy the markers into its answers and never
// write the end-of-turn token that stops it.
import { BUILTIN_TEMPLATES, isBuiltinTemplateName, type BuiltinTemplateName } from './builtin-templates.js';
import { detectToolFormat } from './tool-format-detect.js';

/** What the choice needs to know about the model (a subset of the engine's EngineInfo). */
export interface TemplateFacts {
  chatTemplate: string | undefined;
  /** `tokenizer.chat_template.tool_use`, a second template some models carry for tool use. */
  toolUseChatTemplate?: string | undefined;
  architecture: string;
  /** Each token's text by id (control tokens as their text, "<start_of_turn>"). */
  tokenTexts: readonly string[];
}

/** A template given by the user (--chat-template), already read and checked. */
export interface GivenTemplate {
  source: string;
  stop: readonly string[];
  /** The name or file as given, for the start-up log. */
  label: string;
}

/** A built-in template given by name (`--chat-template plain`, the library's `chatTemplate: 'plain'`). */
export function givenBuiltinTemplate(name: BuiltinTemplateName): GivenTemplate {
  const { source, stop } = BUILTIN_TEMPLATES[name];
  return { source, stop, label: `${name}, built in` };
}

export interface TemplateChoice {
  source: string;
  /** Stop strings every request gets besides its own (a turn that no token marks). */
  stop: readonly string[];
  /** The template and why, for the start-up log. */
  note: string;
}

const GEMMA_ARCHITECTURES = new Set(['gemma', 'gemma2', 'gemma3', 'gemma3n']);

/** Built-ins in the order they are tried for a model without a template; plain always fits. */
const AUTOMATIC: { name: BuiltinTemplateName; fits: (architecture: string) => boolean }[] = [
  { name: 'gemma', fits: (architecture) => GEMMA_ARCHITECTURES.has(architecture) },
  { name: 'chatml', fits: () => true },
];

export function chooseChatTemplate(model: TemplateFacts, given?: GivenTemplate): TemplateChoice {
  if (given) return { source: given.source, stop: given.stop, note: `${given.label} (--chat-template)${missingTurnTokens(model, given.label)}` };
  if (model.chatTemplate) return { source: model.chatTemplate, stop: [], note: "the model's own" };
  const vocabulary = new Set(model.tokenTexts);
  for (const candidate of AUTOMATIC) {
    const { source, stop, turnTokens } = BUILTIN_TEMPLATES[candidate.name];
    if (!candidate.fits(model.architecture) || !turnTokens.every((token) => vocabulary.has(token))) continue;
    const tokens = turnTokens.join(' and ');
    // Such tokens may be untrained in a base model (see plain-template.ts): say what to try then.
    return { source, stop, note: `${candidate.name}, built in: the model has none, and its vocabulary has ${tokens} (${model.architecture}); a base model may answer better with --chat-template plain` };
  }
  const { source, stop } = BUILTIN_TEMPLATES.plain;
  return {
    source,
    stop,
    note: 'plain, built in: the model has none and its vocabulary no known turn tokens; "User:"/"Assistant:" text turns, stopping where the model starts the next',
  };
}

/** A built-in given by name whose turn tokens the vocabulary lacks: said at start-up, since answers then run on past their turn. */
function missingTurnTokens(model: TemplateFacts, label: string): string {
  if (!isBuiltinTemplateName(label)) return '';
  const vocabulary = new Set(model.tokenTexts);
  const missing = BUILTIN_TEMPLATES[label].turnTokens.filter((token) => !vocabulary.has(token));
  if (missing.length === 0) return '';
  return `; warning: ${missing.join(', ')} ${missing.length === 1 ? 'is not a token' : 'are not tokens'} of this model's vocabulary, so the model reads ${missing.length === 1 ? 'it' : 'them'} as text and may never end its turn (leave --chat-template out to have one chosen that fits)`;
}

/**
 * The template for requests with tools, when it is another than `chosen`: the model's
 * `tokenizer.chat_template.tool_use` (Command-R+ and Hermes 2 Pro carry one), used when the
 * chosen template has no tool section, since only then would the tools otherwise reach the
 * model in words of ours rather than its own. A template given with --chat-template serves
 * every request.
 */
export function chooseToolTemplate(model: TemplateFacts, chosen: TemplateChoice, given?: GivenTemplate): TemplateChoice | undefined {
  if (given || !model.toolUseChatTemplate || detectToolFormat(chosen.source).templateKnowsTools) return undefined;
  return { source: model.toolUseChatTemplate, stop: [], note: "the model's tool_use template (tokenizer.chat_template.tool_use): its default has no tool section" };
}
