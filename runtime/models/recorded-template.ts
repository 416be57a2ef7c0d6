// The chat template a compiled folder records when `lmforge compile --chat-template` chose it:
// `serve DIR` uses it as if given again, so that the folder serves what its report checked.
// (A folder compiled without one records the model's own, which serve finds in the GGUF anyway.)
import type { GivenTemplate } from '../chat-format/template-choice.js';

export function recordedTemplate(config: Record<string, unknown> | undefined): GivenTemplate | undefined {
  const recorded = config?.chat_template as { source?: unknown; stop?: unknown; given?: unknown; label?: unknown } | null | undefined;
  if (!recorded || recorded.given !== true || typeof recorded.source !== 'string') return undefined;
  const stop = Array.isArray(recorded.stop) ? recorded.stop.filter((s): s is string => typeof s === 'string') : [];
  return { source: recorded.source, stop, label: `${typeof recorded.label === 'string' ? recorded.label : 'a template'} from lmforge-config.json` };
}
