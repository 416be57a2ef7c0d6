// `lmforge serve` as a function, for programs that embed lmforge: find the model, open the
// port, load the engine, answer OpenAI requests. The CLI is this plus flag parsing and logs.
//
//   import { createServer } from 'lmforge';
//   const server = await createServer({ model: 'model.gguf', port: 0 });
//   const reply = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', ... });
//   await server.close();
import type { AddressInfo } from 'node:net';
import { defaultGrammarCacheDir } from '../../compiler/node.js';
import { Engine } from '../engine/client/engine.js';
import { loadCompiledArtifacts } from '../models/compiled-artifacts.js';
import { recordedTemplate } from '../models/recorded-template.js';
import { resolveModel } from '../models/resolve-model.js';
import { defaultServedModelName, modelAliases } from '../models/served-model-name.js';
import { LMFORGE_VERSION } from '../version.js';
import { ApiServer } from './api-server.js';
import { checkServerOptions } from './check-server-options.js';
import type { ServerOptions } from './server-options.js';

export type { ServerOptions } from './server-options.js';

export interface LmforgeServer extends AsyncDisposable {
  /** `http://host:port`; the API is under `/v1`, its description at `/docs`. */
  readonly url: string;
  readonly address: AddressInfo;
  /** The GGUF file served. */
  readonly modelPath: string;
  readonly servedModelName: string;
  /** The loaded engine, also usable directly (`engine.generate`). */
  readonly engine: Engine;
  /** The HTTP side: its Prometheus `metrics`, and start-up notes on the tool format and reasoning. */
  readonly http: ApiServer;
  /** Where the token-level artifacts came from: a compiled folder (loaded, or rebuilt and why), or none. */
  readonly artifactsNote: string;
  /** Stops taking requests, lets running ones finish for up to `graceMs` (default 0), closes every connection and frees the engine. */
  close(graceMs?: number): Promise<void>;
}

export async function createServer(options: ServerOptions): Promise<LmforgeServer> {
  const givenTemplate = checkServerOptions(options);
  const model = await resolveModel(options.model);
  // A compiled folder's artifacts: loaded, or rebuilt first when another lmforge or vocabulary made them.
  const compiled = await loadCompiledArtifacts(model);
  // A template chosen at compile time (--chat-template) serves as if given again; a flag wins over it.
  const chatTemplate = givenTemplate ?? recordedTemplate(model.config, model.folder);
  const servedModelName = options.servedModelName ?? defaultServedModelName(model);
  const http = new ApiServer({
    modelId: servedModelName,
    modelAliases: modelAliases(model, servedModelName),
    // As serve reads them: spaces around a key are no part of it (a client's header loses them).
    apiKeys: (options.apiKeys ?? []).map((key) => key.trim()),
    cors: { allowCredentials: false, allowedOrigins: ['*'], allowedMethods: ['*'], allowedHeaders: ['*'], ...options.cors },
    tracing: options.tracing === true,
    profileSteps: options.profileSteps === true,
    maxBodyBytes: options.maxRequestBytes ?? 16 * 1024 * 1024,
    version: LMFORGE_VERSION,
    ...(options.toolFormat ? { toolFormat: options.toolFormat } : {}),
    toolCallArguments: options.toolCallArguments ?? 'object',
    reasoning: options.reasoning ?? 'auto',
    ...(chatTemplate ? { chatTemplate } : {}),
    ui: options.ui !== false,
    ...(options.responsesStoreMaxBytes !== undefined ? { responsesStoreMaxBytes: options.responsesStoreMaxBytes } : {}),
  });
  const address = await http.listen(options.host ?? '127.0.0.1', options.port ?? 8000);
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  options.onListening?.({ url, address, modelPath: model.ggufPath, servedModelName });
  let engine: Engine;
  try {
    engine = await Engine.create({
      modelPath: model.ggufPath,
      // Engine.create's defaults stand for these when unset: device 'auto', mode 'local', no overrides.
      device: options.device,
      ...(options.modelLib ? { modelLib: options.modelLib } : {}),
      mode: options.mode,
      overrides: options.overrides,
      ...(options.kvLayout ? { kvLayout: options.kvLayout } : {}),
      ...(options.sampling ? { sampling: options.sampling } : {}),
      maxQueuedRequests: options.maxQueuedRequests ?? 1024,
      tracing: options.tracing === true,
      profileSteps: options.profileSteps === true,
      speculativeMode: options.speculativeMode ?? 'disable',
      ...(options.draftModel ? { draftModelPath: (await resolveModel(options.draftModel)).ggufPath } : {}),
      ...(options.threads ? { threads: options.threads } : {}),
      grammarTimeoutMs: options.grammarTimeoutMs ?? 10_000,
      ...(options.watchdogMs !== undefined ? { watchdogMs: options.watchdogMs } : {}),
      grammarCacheDir: options.grammarCacheDir ?? defaultGrammarCacheDir(),
      ...(options.grammarCacheMaxBytes !== undefined ? { grammarCacheMaxBytes: options.grammarCacheMaxBytes } : {}),
      ...(compiled.artifacts ? { vocabularyTables: compiled.artifacts.vocabularyTables, compiledGrammars: compiled.artifacts.grammars } : {}),
    });
  } catch (error) {
    await http.drain(0); // a server that cannot load its model leaves no port open behind it
    throw error;
  }
  try {
    http.ready(engine);
  } catch (error) {
    // Nothing of a server that failed to start is left running: its port, its engine process.
    await http.drain(0);
    await engine.dispose();
    throw error;
  }
  const close = async (graceMs = 0): Promise<void> => {
    await http.drain(graceMs);
    await engine.dispose();
  };
  return { url, address, modelPath: model.ggufPath, servedModelName, engine, http, artifactsNote: compiled.note, close, [Symbol.asyncDispose]: () => close() };
}
