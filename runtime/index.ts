// lmforge: the serving engine as a Node.js library. `createServer` is `lmforge serve` as a
// function (an OpenAI-compatible HTTP server on a model); `Engine` is the engine alone, for
// programs that generate without HTTP. Grammars: lmforge/grammar (pure), lmforge/grammar/node.
//
//   import { createServer, Engine } from 'lmforge';
//   const server = await createServer({ model: 'model.gguf', port: 0 }); // server.url, server.close()
//   const engine = await Engine.create({ modelPath: 'model.gguf', device: 'auto', mode: 'local', overrides: {} });
//   for await (const event of engine.generate({ prompt: 'Hello', maxTokens: 16 })) if (event.type === 'delta') process.stdout.write(event.text);
//   await engine.dispose();
export { createServer, type LmforgeServer, type ServerOptions } from './server/create-server.js';
export type { ApiServer } from './server/api-server.js';
export type { EngineClient } from './engine/client/engine-client.js';
export { BUILTIN_TEMPLATES, type BuiltinTemplate, type BuiltinTemplateName } from './chat-format/builtin-templates.js';
export type { GivenTemplate } from './chat-format/template-choice.js';
export { LmforgeError, UserFacingError, type ErrorFields, type ErrorType } from '../compiler/lmforge-error.js';
export { Engine, EngineRequestError, EngineStartError } from './engine/client/engine.js';
export type { EngineCreateOptions } from './engine/client/check-engine-options.js';
export type { EngineEvent, EngineInfo, EngineInitOptions, EngineStats, FinishReason, GenerateRequest, TokenLogprob } from './engine/protocol.js';
export { ConfigError, type EngineMode, type Overrides } from './engine/engine-config.js';
export type { SamplingParams } from './sampling/index.js';
export { LMFORGE_VERSION } from './version.js';
