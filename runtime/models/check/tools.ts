// The tool-call family and the reasoning markers the chat template implies, as the server
// decides them at start-up (api-server.ts): the compiled folder records both.
import { modelThinks } from '../../chat-format/reasoning.js';
import { detectToolFormat } from '../../chat-format/tool-format-detect.js';
import { THINK_TAGS, TOOL_FORMATS, type ToolFormatKey } from '../../chat-format/tool-formats.js';
import { ok, type CheckLine } from './check-line.js';

export interface ToolFacts {
  toolFormat: ToolFormatKey;
  templateKnowsTools: boolean;
  reasoning: boolean;
  thinkOpen: string;
  thinkClose: string;
}

export function checkToolsAndReasoning(templateSource: string): { lines: CheckLine[]; facts: ToolFacts } {
  const detected = detectToolFormat(templateSource);
  const thinking = TOOL_FORMATS[detected.key].thinking ?? THINK_TAGS;
  const reasoning = modelThinks('auto', templateSource, thinking);
  return {
    lines: [
      ok('tools', `${detected.key} (${detected.reason})${detected.templateKnowsTools ? '' : '; the template does not render tools, lmforge describes them in the system prompt'}`),
      ok('reasoning', reasoning ? `on: the template closes ${thinking.close}, thinking goes to reasoning_content` : `off: the template has no ${thinking.close}`),
    ],
    facts: { toolFormat: detected.key, templateKnowsTools: detected.templateKnowsTools, reasoning, thinkOpen: thinking.open, thinkClose: thinking.close },
  };
}
