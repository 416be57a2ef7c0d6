// The names a model answers to. A model named by name (`smollm2`, or a name found along the model
// path) is served as that name, as typed: it is what the README's examples and the user send.
// A model given as a path is served as its GGUF file's stem (or its model folder's name), not as
// the path: a path tells clients how the disk is laid out and changes when the file moves.
// The MODEL argument and the paths it resolved to keep working as `model`; so does the name a
// model given by name was served as before (its file's stem), unless --served-model-name renames it.
import { basename } from 'node:path';
import type { ResolvedModel } from './resolve-model.js';

/** `smollm2` -> `smollm2`; paths: `dist/Foo-q4f16` -> `Foo-q4f16`, `/m/SmolLM2.Q4_1.gguf` -> `SmolLM2.Q4_1`. */
export function defaultServedModelName(model: ResolvedModel): string {
  return model.byName ? model.id : pathServedName(model);
}

/** The folder's name, else the file's stem: `/m/SmolLM2.Q4_1.gguf` -> `SmolLM2.Q4_1`; a split `x-00001-of-00003.gguf` -> `x`. */
function pathServedName(model: ResolvedModel): string {
  if (model.folder) return basename(model.folder);
  return basename(model.ggufPath).replace(/\.gguf$/i, '').replace(/-\d{5}-of-\d{5}$/, '');
}

/** Other names requests may send: the MODEL argument as given, the model's folder and file paths, and for a model served by the name typed, its stem. */
export function modelAliases(model: ResolvedModel, servedName: string): string[] {
  const stem = model.byName && servedName === model.id ? pathServedName(model) : undefined;
  const names = [model.id, stem, model.folder, model.ggufPath].filter((name): name is string => name !== undefined && name !== servedName);
  return [...new Set(names)];
}
