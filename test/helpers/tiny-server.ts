// A real lmforge HTTP server on a loopback port, driving a real engine on the tiny model.
import OpenAI from 'openai';
import { Engine } from '../../runtime/engine/client/engine.js';
import type { EngineInitOptions } from '../../runtime/engine/protocol.js';
import { ApiServer, type ApiServerOptions } from '../../runtime/server/api-server.js';
import { tinyModelPath } from '../../fixtures/paths.js';

export const TINY_MODEL_ID = 'tiny-gpt2';

export interface TinyServer {
  url: string;
  client: OpenAI;
  engine: Engine;
  server: ApiServer;
  close(): Promise<void>;
}

/** The options every test server starts with (served as TINY_MODEL_ID), with `overrides`. */
export function testServerOptions(overrides: Partial<ApiServerOptions> = {}): ApiServerOptions {
  return {
    modelId: TINY_MODEL_ID,
    cors: { allowCredentials: false, allowedOrigins: ['*'], allowedMethods: ['*'], allowedHeaders: ['*'] },
    tracing: false,
    maxBodyBytes: 1 << 20,
    version: 'test',
    ...overrides,
  };
}

export async function startTinyServer(
  options: { server?: Partial<ApiServerOptions>; engine?: Partial<EngineInitOptions> } = {},
): Promise<TinyServer> {
  const server = new ApiServer(testServerOptions(options.server));
  const address = await server.listen('127.0.0.1', 0);
  const engine = await Engine.create({
    modelPath: tinyModelPath,
    device: 'cpu',
    mode: 'local',
    overrides: { context_window_size: 512 },
    // One thread: the tiny model needs no more, and llama.cpp's spinning threads crawl when the cores are shared.
    threads: 1,
    ...options.engine,
  });
  server.ready(engine);
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    client: new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 }),
    engine,
    server,
    async close() {
      await server.drain(1000);
      await engine.dispose();
    },
  };
}

/** POSTs a raw body and returns the status, headers and parsed JSON (or text). */
export async function post(url: string, body: string | Buffer | object, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/**
 * The same server on the default model (SmolLM2, pulled by `npm run fixtures`), served as `smollm2`,
 * with `server` over the test options (`toolCallArguments: 'string'` for clients built on OpenAI's SDKs).
 */
export async function startDefaultModelServer(
  engine: Partial<EngineInitOptions> = {},
  server: Partial<ApiServerOptions> = {},
): Promise<TinyServer> {
  const { existsSync } = await import('node:fs');
  const { defaultModelPath } = await import('../../fixtures/paths.js');
  const modelPath = await defaultModelPath();
  if (!existsSync(modelPath)) throw new Error(`the default model is not pulled (run npm run fixtures): ${modelPath}`);
  // Every core, as `serve` uses: the default model's answers are checked as exact text.
  return startTinyServer({ server: { modelId: 'smollm2', ...server }, engine: { modelPath, overrides: {}, threads: undefined, ...engine } });
}
