// createServer's options checked where TypeScript would have refused them, for JavaScript callers.
import { UserFacingError } from '../../compiler/lmforge-error.js';
import { ENGINE_MODES, isEngineMode } from '../engine/engine-config.js';
import { isListenPort, PORT_RANGE } from './api-server.js';
import type { ServerOptions } from './create-server.js';

/**
 * The options a JavaScript caller may get wrong where TypeScript would have said so: refused by
 * name, before anything starts (a port of 'abc' listened on a Unix socket named abc).
 */
export function checkServerOptions(options: ServerOptions): void {
  const wrong = (option: string, what: string, value: unknown) => new UserFacingError(`createServer: options.${option} must be ${what}, got ${JSON.stringify(value) ?? String(value)}`);
  if (typeof options !== 'object' || options === null) throw new UserFacingError('createServer needs an options object with at least { model }');
  if (typeof options.model !== 'string' || options.model.trim() === '') throw wrong('model', 'a GGUF file, a model folder or a known name such as smollm2', options.model);
  if (options.port !== undefined && !isListenPort(options.port)) throw wrong('port', `an integer from ${PORT_RANGE}`, options.port);
  if (options.host !== undefined && (typeof options.host !== 'string' || options.host === '')) throw wrong('host', 'an address or host name', options.host);
  if (options.mode !== undefined && !isEngineMode(options.mode)) throw wrong('mode', `one of ${ENGINE_MODES.join(', ')}`, options.mode);
}
