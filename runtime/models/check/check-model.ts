// Every check of `lmforge compile`, in order, and what they resolve: the report's lines and
// the facts lmforge-config.json records. A check that cannot run because an earlier one failed
// (no tensor table, no vocabulary) is left out: the failure already says what to do.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ggufValue, type GGUFFile } from '../../../compiler/gguf/gguf-file.js';
import { EOG_TEXTS } from '../../../compiler/tokenizer/eog-texts.js';
import type { GivenTemplate, TemplateChoice } from '../../chat-format/template-choice.js';
import { checkArchitecture } from './architecture.js';
import { fail, type CheckLine } from './check-line.js';
import { checkGgufStructure } from './gguf-structure.js';
import { checkContextAndMemory, type MemoryFacts } from './memory.js';
import { checkTemplate } from './template.js';
import { checkToolsAndReasoning, type ToolFacts } from './tools.js';
import { checkVocabulary } from './vocabulary.js';

export interface ModelCheck {
  lines: CheckLine[];
  /** True when no line failed. */
  passed: boolean;
  file?: GGUFFile;
  template?: TemplateChoice;
  /** The template given with --chat-template (its label), when one was. */
  givenTemplate?: string;
  tools?: ToolFacts;
  memory?: MemoryFacts;
  /** Texts of the tokens that end generation. */
  stopTokens: string[];
  /** Default sampling from the GGUF's general.sampling.* or a generation_config.json beside it. */
  sampling: Record<string, number>;
}

export async function checkModel(ggufPath: string, options: { chatTemplate?: GivenTemplate; env?: NodeJS.ProcessEnv } = {}): Promise<ModelCheck> {
  const result: ModelCheck = { lines: [], passed: false, stopTokens: [], sampling: {} };
  try {
    const structure = await checkGgufStructure(ggufPath);
    result.lines.push(...structure.lines);
    const file = structure.file;
    if (file) {
      result.file = file;
      result.lines.push(checkArchitecture(file));
      const vocabulary = checkVocabulary(file);
      result.lines.push(...vocabulary.lines);
      if (vocabulary.facts) {
        const { tokens, ids } = vocabulary.facts;
        const text = (id: number | undefined): string | undefined => (id !== undefined && id >= 0 && id < tokens.length ? tokens[id] : undefined);
        const stops = new Set(tokens.filter((t) => EOG_TEXTS.has(t)));
        for (const id of [ids.eos, ids.eot, ids.eom]) if (text(id) !== undefined) stops.add(text(id)!);
        result.stopTokens = [...stops];
        const chatTemplate = ggufValue(file, 'tokenizer.chat_template');
        const template = checkTemplate({
          chatTemplate: typeof chatTemplate === 'string' && chatTemplate !== '' ? chatTemplate : undefined,
          architecture: String(ggufValue(file, 'general.architecture') ?? ''),
          tokenTexts: tokens,
          endOfGeneration: stops,
          bosText: text(ids.bos) ?? '',
          eosText: text(ids.eos) ?? '',
          ...(options.chatTemplate ? { given: options.chatTemplate } : {}),
        });
        result.lines.push(...template.lines);
        result.template = template.choice;
        if (options.chatTemplate) result.givenTemplate = options.chatTemplate.label;
        if (template.lines.every((line) => line.status !== 'fail')) {
          const tools = checkToolsAndReasoning(template.choice.source);
          result.lines.push(...tools.lines);
          result.tools = tools.facts;
        }
      }
      const memory = checkContextAndMemory(file, options.env);
      result.lines.push(...memory.lines);
      if (memory.facts) result.memory = memory.facts;
      result.sampling = defaultSampling(file, ggufPath);
    }
  } catch (error) {
    // A check that throws is a bug of ours or a file no check foresaw: still one line, never a crash.
    result.lines.push(fail('model', `${(error as Error).message}`, 'report this with the model file to lmforge'));
  }
  result.passed = result.lines.every((line) => line.status !== 'fail');
  return result;
}

/** general.sampling.{temp,top_p,top_k,min_p} (llama.cpp's keys), else generation_config.json's temperature, top_p, top_k, min_p. */
function defaultSampling(file: GGUFFile, ggufPath: string): Record<string, number> {
  const out: Record<string, number> = {};
  const keys = [['temp', 'temperature'], ['top_p', 'top_p'], ['top_k', 'top_k'], ['min_p', 'min_p']] as const;
  for (const [gguf, name] of keys) {
    const value = ggufValue(file, `general.sampling.${gguf}`);
    if (typeof value === 'number') out[name] = value;
  }
  const generationConfig = join(dirname(ggufPath), 'generation_config.json');
  if (Object.keys(out).length === 0 && existsSync(generationConfig)) {
    try {
      const json = JSON.parse(readFileSync(generationConfig, 'utf8')) as Record<string, unknown>;
      for (const [, name] of keys) if (typeof json[name] === 'number') out[name] = json[name] as number;
    } catch {
      // an unreadable generation_config.json gives no defaults; the request's own values still apply
    }
  }
  return out;
}
