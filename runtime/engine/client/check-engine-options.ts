// Engine.create's options checked where TypeScript would have refused them, for JavaScript
// callers, before a process starts: each wrong one refused by name (a missing device crashed
// inside the engine's process as "Cannot read properties of undefined"), an unknown key too
// (`modelpath` was ignored), and the defaults filled in.
import { existsSync, statSync } from 'node:fs';
import { checkOverrides, ENGINE_MODES, isEngineMode } from '../engine-config.js';
import type { EngineInitOptions } from '../protocol.js';

/** What Engine.create takes: the engine's options, with device (default 'auto'), mode (default 'local') and overrides (default none) optional. */
export type EngineCreateOptions = Omit<EngineInitOptions, 'device' | 'mode' | 'overrides'> & Partial<Pick<EngineInitOptions, 'device' | 'mode' | 'overrides'>>;

/** Every option the engine reads: any other key is a typo. */
const OPTION_NAMES = [
  'modelPath', 'isolation', 'device', 'modelLib', 'mode', 'overrides', 'threads', 'maxQueuedRequests', 'kvLayout', 'tracing', 'profileSteps', 'sampling',
  'speculativeMode', 'draftModelPath', 'grammarTimeoutMs', 'watchdogMs', 'grammarCacheDir', 'grammarCacheMaxBytes', 'vocabularyTables', 'compiledGrammars',
] as const satisfies readonly (keyof EngineInitOptions)[];
// A new option must be added to the list: this fails to compile while one is missing.
type Unlisted = Exclude<keyof EngineInitOptions, (typeof OPTION_NAMES)[number]>;
const allListed: Unlisted extends never ? true : Unlisted = true;
void allListed;

const ISOLATIONS = ['process', 'thread'] as const;

/** The options with their defaults, or `refuse(message)` thrown for the first wrong one. */
export function checkedEngineOptions(options: EngineCreateOptions, refuse: (message: string) => Error): EngineInitOptions {
  const at = (name: string) => `Engine.create: options.${name}`;
  if (typeof options !== 'object' || options === null) throw refuse(`Engine.create: options must be an object with at least modelPath, got ${JSON.stringify(options)}`);
  // As createServer words it (check-server-options.ts).
  const unknown = Object.keys(options).find((key) => !(OPTION_NAMES as readonly string[]).includes(key));
  if (unknown !== undefined) throw refuse(`Engine.create: unknown option '${unknown}'; the options are ${OPTION_NAMES.join(', ')}`);
  if (typeof options.modelPath !== 'string' || options.modelPath === '') throw refuse(`${at('modelPath')} must be the path of a GGUF file, got ${JSON.stringify(options.modelPath)}`);
  if (options.device !== undefined && (typeof options.device !== 'string' || options.device.trim() === '')) {
    throw refuse(`${at('device')} must be a device such as 'auto', 'cpu' or 'cuda:0', got ${JSON.stringify(options.device)}`);
  }
  if (options.isolation !== undefined && !(ISOLATIONS as readonly unknown[]).includes(options.isolation)) {
    throw refuse(`${at('isolation')} must be one of ${ISOLATIONS.join(', ')}, got ${JSON.stringify(options.isolation)}`);
  }
  if (options.mode !== undefined && !isEngineMode(options.mode)) throw refuse(`${at('mode')} must be one of ${ENGINE_MODES.join(', ')}, got ${JSON.stringify(options.mode)}`);
  if (options.overrides !== undefined) checkOverrides(options.overrides, at('overrides'));
  // llama.cpp's own failure would blame the file's format, after printing its log.
  if (!existsSync(options.modelPath)) throw refuse(`${at('modelPath')} ${options.modelPath} does not exist`);
  if (!statSync(options.modelPath).isFile()) throw refuse(`${at('modelPath')} ${options.modelPath} is not a file (a GGUF file is needed)`);
  return { ...options, device: options.device ?? 'auto', mode: options.mode ?? 'local', overrides: options.overrides ?? {} };
}
