// The names a model answers to. By default it is served as its GGUF file's stem (or its model
// folder's name), not as a path: a path tells clients how the disk is laid out and changes
// when the file moves. The MODEL argument and the paths it resolved to keep working as `model`.
import { basename } from 'node:path';
import type { ResolvedModel } from './resolve-model.js';

/** `dist/Foo-q4f16` -> `Foo-q4f16`; `/m/SmolLM2.Q4_1.gguf` -> `SmolLM2.Q4_1`; `x-00001-of-00003.gguf` -> `x`. */
export function defaultServedModelName(model: ResolvedModel): string {
  if (model.folder) return basename(model.folder);
  return basename(model.ggufPath).replace(/\.gguf$/i, '').replace(/-\d{5}-of-\d{5}$/, '');
}

/** Other names requests may send: the MODEL argument as given, and the model's folder and file paths. */
export function modelAliases(model: ResolvedModel, servedName: string): string[] {
  const names = [model.id, model.folder, model.ggufPath].filter((name): name is string => name !== undefined && name !== servedName);
  return [...new Set(names)];
}
