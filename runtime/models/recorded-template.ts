// The chat template a compiled folder records when `lmforge compile --chat-template` chose it:
// `serve DIR` uses it as if given again, so that the folder serves what its report checked.
// (A folder compiled without one records the model's own, which serve finds in the GGUF anyway.)
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import type { GivenTemplate } from '../chat-format/template-choice.js';
import { ModelError } from './model-errors.js';

export function recordedTemplate(config: Record<string, unknown> | undefined, folder = '.'): GivenTemplate | undefined {
  const recorded = config?.chat_template as { source?: unknown; stop?: unknown; given?: unknown; label?: unknown } | null | undefined;
  // Checked now, as --chat-template is: an edited file failed later (an internal error with a stack,
  // or every request a 400 blaming its client), or served the model's own template unsaid.
  const wrong = (field: string, what: string) => new ModelError(`${join(folder, 'lmforge-config.json')}: ${field} ${what}; compile the folder again, or give --chat-template`, 'invalid_model');
  if (recorded === undefined || recorded === null) return undefined;
  if (typeof recorded !== 'object' || Array.isArray(recorded)) throw wrong('chat_template', 'must be an object');
  if (recorded.given !== true) return undefined;
  if (typeof recorded.source !== 'string') throw wrong('chat_template.source', 'must be the template text');
  try {
    new Template(recorded.source);
  } catch (error) {
    throw wrong('chat_template.source', `is not a valid Jinja template (${(error as Error).message})`);
  }
  const stop = recorded.stop ?? [];
  if (!Array.isArray(stop) || !stop.every((s) => typeof s === 'string' && s !== '')) throw wrong('chat_template.stop', 'must be a list of non-empty strings');
  return { source: recorded.source, stop, label: `${typeof recorded.label === 'string' ? recorded.label : 'a template'} from lmforge-config.json` };
}
