// The chat template the server would render with (template-choice.ts): that it parses, that it
// renders a system + user + assistant + tool exchange, and that a plain answer comes back
// out clean: nothing between the generation prompt and the answer, and the turn closed by an
// end-of-generation token, so that generation stops there and no marker reaches the client.
import type { TemplateMessage } from '../../chat-format/chat-messages.js';
import { ChatTemplate } from '../../chat-format/chat-template.js';
import { BUILTIN_TEMPLATE_NAMES } from '../../chat-format/builtin-templates.js';
import { chooseChatTemplate, type GivenTemplate, type TemplateChoice } from '../../chat-format/template-choice.js';
import { fail, ok, warn, type CheckLine } from './check-line.js';

export interface TemplateInput {
  /** The GGUF's own template. */
  chatTemplate: string | undefined;
  architecture: string;
  tokenTexts: readonly string[];
  /** Texts of the end-of-generation tokens. */
  endOfGeneration: ReadonlySet<string>;
  bosText: string;
  eosText: string;
  given?: GivenTemplate;
}

const OTHER_TEMPLATE = `give one with --chat-template FILE.jinja or a built-in (${BUILTIN_TEMPLATE_NAMES.join(', ')})`;
const ANSWER = 'The answer is 4.';

export function checkTemplate(input: TemplateInput): { lines: CheckLine[]; choice: TemplateChoice } {
  const choice = chooseChatTemplate({ chatTemplate: input.chatTemplate, architecture: input.architecture, tokenTexts: input.tokenTexts }, input.given);
  const lines: CheckLine[] = [];
  if (!input.given && !input.chatTemplate) {
    const turnFormat = choice.note.split(',')[0]!;
    lines.push(warn('template', `the model has no chat template (a base model): serve would use ${choice.note}`, `a base model continues text: use --chat-template plain; if it was tuned on a turn format, name it (--chat-template ${turnFormat === 'plain' ? 'chatml' : turnFormat}, or a Jinja file)`));
  }
  let template: ChatTemplate;
  try {
    template = new ChatTemplate(choice.source, { bos: input.bosText, eos: input.eosText }, choice.stop);
  } catch (error) {
    lines.push(fail('template', `the chat template (${choice.note}) does not parse: ${(error as Error).message}`, OTHER_TEMPLATE));
    return { lines, choice };
  }
  try {
    const text = template.render(exchange(true), { addGenerationPrompt: false, tools: [WEATHER_TOOL] });
    if (!text.includes('get_weather') || !text.includes('18 degrees')) {
      lines.push(warn('template', 'the chat template renders the exchange but leaves out the tool call or its result; lmforge adds tools to the system prompt itself'));
    }
  } catch (error) {
    try {
      template.render(exchange(false), { addGenerationPrompt: false, tools: [WEATHER_TOOL] });
      lines.push(warn('template', 'the chat template refuses a system message; requests with one will get a 400'));
    } catch {
      lines.push(fail('template', `the chat template cannot render a user + assistant + tool exchange: ${(error as Error).message}`, OTHER_TEMPLATE));
      return { lines, choice };
    }
  }
  lines.push(plainAnswer(template, input, choice));
  // For a built-in picked automatically, the warning above already gives the whole reason.
  const name = !input.given && !input.chatTemplate ? choice.note.split(':')[0]! : choice.note;
  if (lines.every((line) => line.status !== 'fail')) lines.unshift(ok('template', `${name}: parses and renders a system + user + assistant + tool exchange`));
  return { lines, choice };
}

/** A plain answer's turn: opened by the generation prompt alone, closed by an end-of-generation token. */
function plainAnswer(template: ChatTemplate, input: TemplateInput, choice: TemplateChoice): CheckLine {
  let prompt: string;
  let whole: string;
  try {
    prompt = template.render([{ role: 'user', content: 'What is 2+2?' }], { addGenerationPrompt: true });
    whole = template.render([{ role: 'user', content: 'What is 2+2?' }, { role: 'assistant', content: ANSWER }], { addGenerationPrompt: false });
  } catch (error) {
    return fail('template', `the chat template cannot render a plain answer: ${(error as Error).message}`, OTHER_TEMPLATE);
  }
  const at = whole.indexOf(ANSWER);
  if (at < 0) return fail('template', 'the chat template drops the assistant\'s answer from the conversation', OTHER_TEMPLATE);
  if (whole.startsWith(prompt)) {
    const between = whole.slice(prompt.length, at).trim();
    // An empty think block is how reasoning templates close a turn that did not think.
    if (between !== '' && !/^<think>\s*<\/think>$/.test(between)) {
      return warn('template', `the chat template writes ${JSON.stringify(between)} between the generation prompt and the answer: a model following it would show it in its answers`);
    }
  }
  const closing = whole.slice(at + ANSWER.length).trimStart().split(/\s/)[0] ?? '';
  if (closing === '' || input.endOfGeneration.has(closing)) {
    return ok('template', closing === '' ? `a plain answer comes back clean; its turn ends at the model's end-of-generation token${choice.stop.length > 0 ? ' or a stop string' : ''}` : `a plain answer comes back clean; its turn ends with ${closing}, an end-of-generation token`);
  }
  const isToken = input.tokenTexts.includes(closing);
  if (isToken) {
    return fail('template', `the chat template ends the assistant's turn with ${closing}, which is not an end-of-generation token of the vocabulary: generation would run past the answer`, `set tokenizer.ggml.eot_token_id (or eos) to ${closing}'s id, or ${OTHER_TEMPLATE}`);
  }
  return warn('template', `the chat template ends the assistant's turn with ${JSON.stringify(closing)}, which is not a token of the vocabulary: the model writes it as text and generation stops only at its EOS`, OTHER_TEMPLATE);
}

const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

function exchange(withSystem: boolean): TemplateMessage[] {
  return [
    ...(withSystem ? [{ role: 'system', content: 'You are a helpful assistant.' }] : []),
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '18 degrees and sunny' },
    { role: 'assistant', content: 'It is 18 degrees and sunny in Paris.' },
  ];
}
