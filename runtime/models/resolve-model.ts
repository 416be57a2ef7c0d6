// Turns the MODEL argument into a GGUF file:
//   await resolveModel('model.gguf')            // a file
//   await resolveModel('dist/my-model')         // a folder holding one GGUF (+ lmforge-config.json)
//   await resolveModel('SmolLM2-135M-Instruct-Q4_1')  // a name, searched for along the model path
//   await resolveModel('smollm2')               // the default model, pulled on first use
// The model path is $LMFORGE_MODEL_PATH (path-delimiter separated), ./dist, ./models and
// $LMFORGE_HOME/models; at each place `<name>`, then `<name>.gguf`. A miss lists every path tried.
import { readdir, readFile, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { findKnownModel } from './known-models.js';
import { ModelError } from './model-errors.js';
import { lmforgeHome, modelsDir } from '../lmforge-home.js';
import { modelCachePath, pullModel, type PullOptions } from './pull-model.js';

/** Written by `lmforge compile` beside the GGUF; `model_file` names the GGUF when there are several. */
export const MODEL_CONFIG_FILE = 'lmforge-config.json';

export interface ResolvedModel {
  /** The spec as given. */
  id: string;
  ggufPath: string;
  /** The model folder, when the spec named one. */
  folder?: string;
  /** Parsed lmforge-config.json, when the folder has one. */
  config?: Record<string, unknown>;
  /** True when the spec was a name (found along the model path, or a known model), not a path. */
  byName?: boolean;
}

export interface ResolveOptions {
  /** Default process.env (LMFORGE_MODEL_PATH, LMFORGE_HOME). */
  env?: NodeJS.ProcessEnv;
  /** Base for relative specs and for ./dist, ./models. Default process.cwd(). */
  cwd?: string;
  /** How to pull a known model's short name on first use; false never downloads. */
  pull?: PullOptions | false;
}

export async function resolveModel(spec: string, options: ResolveOptions = {}): Promise<ResolvedModel> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const tried: string[] = [];

  const hit = async (path: string): Promise<ResolvedModel | undefined> => {
    tried.push(path);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) return { id: spec, ggufPath: path };
    if (info?.isDirectory()) return { id: spec, ...(await resolveFolder(path)) };
    return undefined;
  };

  const direct = await hit(resolve(cwd, spec));
  if (direct) return direct;
  if (!isAbsolute(spec)) {
    for (const place of searchPlaces(env, cwd)) {
      const found = (await hit(join(place, spec))) ?? (await hit(join(place, `${spec}.gguf`)));
      if (found) return { ...found, byName: true };
    }
  }

  // A known short name (smollm2) lives in the cache under its own folder name; fetch it once.
  if (findKnownModel(spec)) {
    if (options.pull !== false) {
      const home = options.pull?.home ?? lmforgeHome(env);
      return { id: spec, ggufPath: await pullModel(spec, { ...options.pull, home }), byName: true };
    }
    const cached = modelCachePath(spec, lmforgeHome(env));
    if ((await stat(cached).catch(() => undefined))?.isFile()) return { id: spec, ggufPath: cached, byName: true };
    throw new ModelError(`model "${spec}" is not downloaded (no ${cached}); run \`lmforge pull ${spec}\` first`, 'model_not_found');
  }
  throw new ModelError(`model "${spec}" not found; tried: ${tried.join(', ')}`, 'model_not_found');
}

/** $LMFORGE_MODEL_PATH entries, ./dist, ./models, $LMFORGE_HOME/models, in that order. */
export function searchPlaces(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string[] {
  const fromEnv = (env.LMFORGE_MODEL_PATH ?? '').split(delimiter).filter((p) => p !== '');
  const places = [...fromEnv, './dist', './models', modelsDir(lmforgeHome(env))].map((p) => resolve(cwd, p));
  return [...new Set(places)];
}

/** The folder's GGUF: the one its config names, else its only one (or first part of a split). */
async function resolveFolder(folder: string): Promise<Omit<ResolvedModel, 'id'>> {
  const names = await readdir(folder);
  let config: Record<string, unknown> | undefined;
  if (names.includes(MODEL_CONFIG_FILE)) {
    const path = join(folder, MODEL_CONFIG_FILE);
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      config = parsed as Record<string, unknown>;
    } catch (error) {
      throw new ModelError(`${path}: ${(error as Error).message}`, 'invalid_model');
    }
    const named = config.model_file;
    if (named !== undefined) {
      if (typeof named !== 'string') throw new ModelError(`${path}: "model_file" must be a string`, 'invalid_model');
      const ggufPath = resolve(folder, named);
      if (!(await stat(ggufPath).then((s) => s.isFile(), () => false))) {
        throw new ModelError(`${path} names model_file "${named}", but ${ggufPath} does not exist`, 'invalid_model');
      }
      return { ggufPath, folder, config };
    }
  }

  // Hidden files are ours (partial downloads), not models.
  const ggufs = names.filter((n) => n.toLowerCase().endsWith('.gguf') && !n.startsWith('.')).sort();
  const firstParts = ggufs.filter((n) => /-00001-of-\d{5}\.gguf$/i.test(n));
  const single = ggufs.length === 1 ? ggufs[0] : firstParts.length === 1 && ggufs.every(isSplitPart) ? firstParts[0] : undefined;
  if (single === undefined) {
    const what = ggufs.length === 0 ? 'no .gguf file' : `${ggufs.length} .gguf files (${ggufs.join(', ')})`;
    throw new ModelError(
      `model folder ${folder} holds ${what}; it needs exactly one, or a ${MODEL_CONFIG_FILE} whose "model_file" names it`,
      'invalid_model',
    );
  }
  return { ggufPath: join(folder, single), folder, ...(config ? { config } : {}) };
}

function isSplitPart(name: string): boolean {
  return /-\d{5}-of-\d{5}\.gguf$/i.test(name);
}
