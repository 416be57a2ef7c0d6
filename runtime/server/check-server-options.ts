// createServer's options checked where TypeScript would have refused them, for JavaScript callers.
import { UserFacingError } from '../../compiler/lmforge-error.js';
import { BUILTIN_TEMPLATE_NAMES, isBuiltinTemplateName } from '../chat-format/builtin-templates.js';
import { REASONING_MODES } from '../chat-format/reasoning.js';
import { givenBuiltinTemplate, type GivenTemplate } from '../chat-format/template-choice.js';
import { isToolFormatKey, TOOL_FORMAT_KEYS } from '../chat-format/tool-formats.js';
import { checkOverrides, ENGINE_MODES, isEngineMode, KV_LAYOUTS } from '../engine/engine-config.js';
import { SAMPLING_SETTINGS } from '../engine/sampling-setting.js';
import { SPECULATIVE_MODES_AVAILABLE } from '../engine/speculative-modes.js';
import { isListenPort, PORT_RANGE } from './api-server.js';
import type { ServerOptions } from './server-options.js';

/** Every option createServer reads: any other key is a typo (`apiKey` would serve without a key). */
const OPTION_NAMES = [
  'model', 'host', 'port', 'servedModelName', 'apiKeys', 'cors', 'maxRequestBytes', 'tracing', 'toolFormat', 'toolCallArguments',
  'reasoning', 'chatTemplate', 'ui', 'device', 'modelLib', 'mode', 'overrides', 'kvLayout', 'sampling', 'threads', 'maxQueuedRequests',
  'speculativeMode', 'draftModel', 'grammarTimeoutMs', 'watchdogMs', 'grammarCacheDir', 'onListening',
] as const satisfies readonly (keyof ServerOptions)[];
// A new option must be added to the list: this fails to compile while one is missing.
type Unlisted = Exclude<keyof ServerOptions, (typeof OPTION_NAMES)[number]>;
const allListed: Unlisted extends never ? true : Unlisted = true;
void allListed;

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;
const isOneOf = (values: readonly string[], value: unknown): boolean => typeof value === 'string' && values.includes(value);

/**
 * The options a JavaScript caller may get wrong where TypeScript would have said so: refused by
 * name, before anything starts (a port of 'abc' listened on a Unix socket named abc; a bad tool
 * format failed after the model loaded, leaving the port open). Returns the chat template, a
 * built-in's name resolved as `--chat-template NAME` resolves it.
 */
export function checkServerOptions(options: ServerOptions): GivenTemplate | undefined {
  const wrong = (option: string, what: string, value: unknown) => new UserFacingError(`createServer: options.${option} must be ${what}, got ${JSON.stringify(value) ?? String(value)}`);
  if (typeof options !== 'object' || options === null) throw new UserFacingError('createServer needs an options object with at least { model }');
  const unknown = Object.keys(options).find((key) => !(OPTION_NAMES as readonly string[]).includes(key));
  if (unknown !== undefined) throw new UserFacingError(`createServer: unknown option '${unknown}'; the options are ${OPTION_NAMES.join(', ')}`);
  const given = <K extends keyof ServerOptions>(key: K, ok: (value: unknown) => boolean, what: string) => {
    if (options[key] !== undefined && !ok(options[key])) throw wrong(key, what, options[key]);
  };
  if (!isText(options.model) || options.model.trim() === '') throw wrong('model', 'a GGUF file, a model folder or a known name such as smollm2', options.model);
  given('port', isListenPort, `an integer from ${PORT_RANGE}`);
  given('host', isText, 'an address or host name');
  given('mode', (value) => typeof value === 'string' && isEngineMode(value), `one of ${ENGINE_MODES.join(', ')}`);
  given('servedModelName', isText, 'a name');
  given('apiKeys', (value) => Array.isArray(value) && value.every(isText), 'a list of keys (strings)');
  given('cors', (value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'an object of CORS settings');
  given('toolFormat', (value) => typeof value === 'string' && isToolFormatKey(value), `one of ${TOOL_FORMAT_KEYS.join(', ')}`);
  given('toolCallArguments', (value) => isOneOf(['object', 'string'], value), "'object' or 'string'");
  given('reasoning', (value) => isOneOf(REASONING_MODES, value), `one of ${REASONING_MODES.join(', ')}`);
  given('kvLayout', (value) => isOneOf(KV_LAYOUTS, value), `one of ${KV_LAYOUTS.join(', ')}`);
  given('sampling', (value) => isOneOf(SAMPLING_SETTINGS, value), `one of ${SAMPLING_SETTINGS.join(', ')}`);
  given('speculativeMode', (value) => isOneOf(SPECULATIVE_MODES_AVAILABLE, value), `one of ${SPECULATIVE_MODES_AVAILABLE.join(', ')}`);
  for (const key of ['maxRequestBytes', 'threads', 'maxQueuedRequests'] as const) given(key, isCount, 'a whole number ≥ 1');
  given('grammarTimeoutMs', (value) => typeof value === 'number' && Number.isFinite(value) && value > 0, 'a number of milliseconds > 0');
  given('watchdogMs', (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0, 'a number of milliseconds ≥ 0 (0: never)');
  for (const key of ['tracing', 'ui'] as const) given(key, (value) => typeof value === 'boolean', 'true or false');
  for (const key of ['modelLib', 'draftModel', 'grammarCacheDir'] as const) given(key, isText, 'a path');
  given('onListening', (value) => typeof value === 'function', 'a function');
  // Which devices exist is the engine's to say (Engine.create refuses an unknown one, before it starts a process).
  given('device', isText, 'a device such as auto, cpu or cuda:1');
  if (options.overrides !== undefined) checkOverrides(options.overrides, 'createServer: options.overrides');
  return chatTemplateOf(options.chatTemplate, wrong);
}

/** A built-in's name, as `--chat-template NAME` takes it, or the template itself. */
function chatTemplateOf(value: unknown, wrong: (option: string, what: string, value: unknown) => Error): GivenTemplate | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && isBuiltinTemplateName(value)) return givenBuiltinTemplate(value);
  const template = value as Partial<GivenTemplate> | null;
  if (typeof template === 'object' && template !== null && isText(template.source) && Array.isArray(template.stop) && template.stop.every((s) => typeof s === 'string') && typeof template.label === 'string') {
    return template as GivenTemplate;
  }
  throw wrong('chatTemplate', `a built-in template's name (${BUILTIN_TEMPLATE_NAMES.join(', ')}) or { source, stop, label } (a Jinja file's text as source)`, typeof value === 'string' ? value : '(an object without source, stop and label)');
}
