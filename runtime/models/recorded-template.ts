// The chat template a compiled folder records when `lmforge compile --chat-template` chose it:
// `serve DIR` uses it as if given again, so that the folder serves what its report checked.
// (A folder compiled without one records the model's own, which serve finds in the GGUF anyway.)
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import type { GivenTemplate } from '../chat-format/template-choice.js';
import { ModelError } from './model-errors.js';

export function recordedTemplate(config: Record<string, unknown> | undefined, folder = '.'): GivenTemplate | undefined {
  const recorded = config?.chat_template as { source?: unknown; stop?: unknown; given?: unknown; label?: unknown } | null | undefined;
  if (!recorded || recorded.given !== true || typeof recorded.source !== 'string') return undefined;
  // Parsed now, as --chat-template is: an edited file's syntax error was an internal error with a stack.
  try {
    new Template(recorded.source);
  } catch (error) {
    const file = join(folder, 'lmforge-config.json');
    throw new ModelError(`${file}: chat_template.source is not a valid Jinja template (${(error as Error).message}); compile the folder again, or give --chat-template`, 'invalid_model');
  }
  const stop = Array.isArray(recorded.stop) ? recorded.stop.filter((s): s is string => typeof s === 'string') : [];
  return { source: recorded.source, stop, label: `${typeof recorded.label === 'string' ? recorded.label : 'a template'} from lmforge-config.json` };
}
