// `--chat-template FILE|NAME`: a built-in template by name, else a Jinja file. Read and parsed
// before the model loads, so a typo or a syntax error costs no load. A file that happens to
// share a built-in's name is reached by a path: `./plain`.
import { readFileSync } from 'node:fs';
import { Template } from '@huggingface/jinja';
import { BUILTIN_TEMPLATE_NAMES, isBuiltinTemplateName } from '../runtime/chat-format/builtin-templates.js';
import { givenBuiltinTemplate, type GivenTemplate } from '../runtime/chat-format/template-choice.js';
import { UsageError } from './cli-error.js';

export function givenTemplateOf(value: string, readText: (path: string) => string = (path) => readFileSync(path, 'utf8')): GivenTemplate {
  if (isBuiltinTemplateName(value)) return givenBuiltinTemplate(value);
  let source: string;
  try {
    source = readText(value);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`--chat-template ${value} is neither a built-in template (${BUILTIN_TEMPLATE_NAMES.join(', ')}) nor a readable Jinja file: ${reason}`);
  }
  if (source.trim() === '') throw new UsageError(`--chat-template ${value} is an empty file`);
  try {
    new Template(source);
  } catch (error) {
    throw new UsageError(`--chat-template ${value} is not a valid Jinja template: ${(error as Error).message}`);
  }
  return { source, stop: [], label: value };
}
