// createServer's options checked where TypeScript would have refused them, for JavaScript callers.
import { UserFacingError } from '../../compiler/lmforge-error.js';
import { CORS_LISTS, corsEntryProblem, type CorsListOption } from './cors.js';
import { BUILTIN_TEMPLATE_NAMES, isBuiltinTemplateName } from '../chat-format/builtin-templates.js';
import { REASONING_MODES } from '../chat-format/reasoning.js';
import { givenBuiltinTemplate, type GivenTemplate } from '../chat-format/template-choice.js';
import { isToolFormatKey, TOOL_FORMAT_KEYS } from '../chat-format/tool-formats.js';
import { checkOverrides, ENGINE_MODES, isEngineMode, isPlainObject, KV_LAYOUTS } from '../engine/engine-config.js';
import { SAMPLING_SETTINGS } from '../engine/sampling-setting.js';
import { SPECULATIVE_MODES_AVAILABLE } from '../engine/speculative-modes.js';
import { Template } from '@huggingface/jinja';
import { isListenPort, PORT_RANGE } from './api-server.js';
import { isSendableKey } from './auth.js';
import type { ServerOptions } from './server-options.js';

/** Every option createServer reads: any other key is a typo (`apiKey` would serve without a key). */
const OPTION_NAMES = [
  'model', 'host', 'port', 'servedModelName', 'apiKeys', 'cors', 'maxRequestBytes', 'tracing', 'profileSteps', 'toolFormat', 'toolCallArguments',
  'reasoning', 'chatTemplate', 'ui', 'device', 'modelLib', 'mode', 'overrides', 'kvLayout', 'sampling', 'threads', 'maxQueuedRequests', 'responsesStoreMaxBytes',
  'speculativeMode', 'draftModel', 'grammarTimeoutMs', 'watchdogMs', 'grammarCacheDir', 'grammarCacheMaxBytes', 'onListening',
] as const satisfies readonly (keyof ServerOptions)[];
// A new option must be added to the list: this fails to compile while one is missing.
type Unlisted = Exclude<keyof ServerOptions, (typeof OPTION_NAMES)[number]>;
const allListed: Unlisted extends never ? true : Unlisted = true;
void allListed;

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const isTextList = (value: unknown): boolean => Array.isArray(value) && value.every(isText);
/** Node's timers hold 2³¹ − 1 ms (24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const isMilliseconds = (value: unknown): boolean => typeof value === 'number' && value >= 0 && value <= MAX_TIMER_MS;
const CORS_FIELDS = { allowCredentials: 'true or false', allowedOrigins: 'a list of origins (strings, or "*")', allowedMethods: 'a list of methods (strings, or "*")', allowedHeaders: 'a list of headers (strings, or "*")' } as const;

/** A value as an error quotes it: JSON where it has one (a BigInt has none; JSON writes Infinity and NaN as null). */
function quoted(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
/** A caller's mistake, as a GrammarError is: 400 invalid_request_error (it said 500 server_error). */
const optionError = (message: string): UserFacingError => new UserFacingError(message, { status: 400 });
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 1;
/** ggml's GGML_MAX_N_THREADS: a thread pool of more aborted the engine (std::bad_alloc), reported as a bad llama.cpp build. */
export const MAX_THREADS = 512;
const isOneOf = (values: readonly string[], value: unknown): boolean => typeof value === 'string' && values.includes(value);

/**
 * The options a JavaScript caller may get wrong where TypeScript would have said so: refused by
 * name, before anything starts (a port of 'abc' listened on a Unix socket named abc; a bad tool
 * format failed after the model loaded, leaving the port open). Returns the chat template, a
 * built-in's name resolved as `--chat-template NAME` resolves it.
 */
export function checkServerOptions(options: ServerOptions): GivenTemplate | undefined {
  const wrong = (option: string, what: string, value: unknown) => optionError(`createServer: options.${option} must be ${what}, got ${quoted(value)}`);
  if (typeof options !== 'object' || options === null) throw optionError('createServer needs an options object with at least { model }');
  const unknown = Object.keys(options).find((key) => !(OPTION_NAMES as readonly string[]).includes(key));
  if (unknown !== undefined) throw optionError(`createServer: unknown option '${unknown}'; the options are ${OPTION_NAMES.join(', ')}`);
  const given = <K extends keyof ServerOptions>(key: K, ok: (value: unknown) => boolean, what: string) => {
    if (options[key] !== undefined && !ok(options[key])) throw wrong(key, what, options[key]);
  };
  if (!isText(options.model)) throw wrong('model', 'a GGUF file, a model folder or a known name such as smollm2', options.model);
  given('port', isListenPort, `an integer from ${PORT_RANGE}`);
  given('host', isText, 'an address or host name');
  given('mode', (value) => typeof value === 'string' && isEngineMode(value), `one of ${ENGINE_MODES.join(', ')}`);
  given('servedModelName', isText, 'a name');
  checkApiKeys(options.apiKeys);
  // A bad field here failed at the first request with an Origin header, and took the process down.
  given('cors', isPlainObject, `an object of CORS settings (${Object.keys(CORS_FIELDS).join(', ')})`);
  for (const [field, value] of Object.entries(options.cors ?? {})) {
    if (!Object.hasOwn(CORS_FIELDS, field)) throw optionError(`createServer: unknown option 'cors.${field}'; the CORS settings are ${Object.keys(CORS_FIELDS).join(', ')}`);
    const ok = field === 'allowCredentials' ? typeof value === 'boolean' : isTextList(value);
    if (!ok) throw wrong(`cors.${field}`, CORS_FIELDS[field as keyof typeof CORS_FIELDS], value);
    if (field === 'allowCredentials') continue;
    for (const entry of value as string[]) {
      const problem = corsEntryProblem(CORS_LISTS[field as CorsListOption].entries, entry);
      if (problem) throw optionError(`createServer: options.cors.${field}: ${problem}`);
    }
  }
  given('toolFormat', (value) => typeof value === 'string' && isToolFormatKey(value), `one of ${TOOL_FORMAT_KEYS.join(', ')}`);
  given('toolCallArguments', (value) => isOneOf(['object', 'string'], value), "'object' or 'string'");
  given('reasoning', (value) => isOneOf(REASONING_MODES, value), `one of ${REASONING_MODES.join(', ')}`);
  given('kvLayout', (value) => isOneOf(KV_LAYOUTS, value), `one of ${KV_LAYOUTS.join(', ')}`);
  given('sampling', (value) => isOneOf(SAMPLING_SETTINGS, value), `one of ${SAMPLING_SETTINGS.join(', ')}`);
  given('speculativeMode', (value) => isOneOf(SPECULATIVE_MODES_AVAILABLE, value), `one of ${SPECULATIVE_MODES_AVAILABLE.join(', ')}`);
  for (const key of ['maxRequestBytes', 'maxQueuedRequests'] as const) given(key, isCount, 'a whole number ≥ 1');
  given('threads', (value) => isCount(value) && (value as number) <= MAX_THREADS, `a whole number from 1 to ${MAX_THREADS}`);
  given('grammarTimeoutMs', (value) => isMilliseconds(value) && (value as number) > 0, `a number of milliseconds > 0 and at most ${MAX_TIMER_MS}`);
  given('watchdogMs', isMilliseconds, `a number of milliseconds from 0 (never) to ${MAX_TIMER_MS}`);
  for (const key of ['tracing', 'profileSteps', 'ui'] as const) given(key, (value) => typeof value === 'boolean', 'true or false');
  for (const key of ['modelLib', 'draftModel', 'grammarCacheDir'] as const) given(key, isText, 'a path');
  given('grammarCacheMaxBytes', (value) => Number.isSafeInteger(value) && (value as number) >= 0, 'a whole number of bytes ≥ 0 (0: compiled formats kept in memory only)');
  given('responsesStoreMaxBytes', (value) => Number.isSafeInteger(value) && (value as number) >= 0, 'a whole number of bytes ≥ 0 (0: no response is stored)');
  given('onListening', (value) => typeof value === 'function', 'a function');
  // Which devices exist is the engine's to say (Engine.create refuses an unknown one, before it starts a process).
  given('device', isText, 'a device such as auto, cpu or cuda:1');
  if (options.overrides !== undefined) checkOverrides(options.overrides, 'createServer: options.overrides');
  return chatTemplateOf(options.chatTemplate, wrong);
}

/** A built-in's name, as `--chat-template NAME` takes it, or the template itself. */
/** Keys are secrets: a refusal names the entry, never its text. */
function checkApiKeys(keys: unknown): void {
  if (keys === undefined) return;
  const what = 'a list of keys (strings of printable ASCII: a client sends a key in an HTTP header)';
  if (!Array.isArray(keys)) throw optionError(`createServer: options.apiKeys must be ${what}, got ${typeof keys === 'string' ? 'one string' : quoted(keys)}`);
  const bad = keys.findIndex((key) => !isText(key) || !isSendableKey(key.trim()));
  if (bad !== -1) throw optionError(`createServer: options.apiKeys must be ${what}; entry ${bad} is ${typeof keys[bad] !== 'string' ? 'not a string' : keys[bad].trim() === '' ? 'empty' : 'not printable ASCII'}`);
}

function chatTemplateOf(value: unknown, wrong: (option: string, what: string, value: unknown) => Error): GivenTemplate | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && isBuiltinTemplateName(value)) return givenBuiltinTemplate(value);
  const template = value as Partial<GivenTemplate> | null;
  if (typeof template === 'object' && template !== null && isText(template.source) && isTextList(template.stop ?? 0) && isText(template.label)) {
    // Parsed now, as --chat-template is: a syntax error found after the model loaded cost the load.
    try {
      new Template(template.source);
    } catch (error) {
      throw wrong('chatTemplate', `valid Jinja (${(error as Error).message})`, `${template.source.slice(0, 40)}…`);
    }
    return template as GivenTemplate;
  }
  throw wrong('chatTemplate', `a built-in template's name (${BUILTIN_TEMPLATE_NAMES.join(', ')}) or { source, stop, label } (a Jinja file's text as source)`, typeof value === 'string' ? value : '(an object without source, stop and label)');
}
