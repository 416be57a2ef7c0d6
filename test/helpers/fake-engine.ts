// A scripted stand-in for the engine, served by a real ApiServer on a loopback port: each
// request's events are whatever the test's script yields, so a test can reach what a real model
// rarely does on cue (an engine error mid-stream, exact delta boundaries, a client leaving).
import type { EngineConfig } from '../../runtime/engine/engine-config.js';
import type { EngineEvent, EngineInfo, EngineStats, GenerateRequest } from '../../runtime/engine/protocol.js';
import { ApiServer, type ApiServerOptions } from '../../runtime/server/api-server.js';
import type { EngineClient } from '../../runtime/engine/client/engine-client.js';
import { testServerOptions } from './tiny-server.js';

/** An engine event without its request id (the fake adds it). */
export type ScriptedEvent = EngineEvent extends infer E ? (E extends unknown ? Omit<E, 'id'> : never) : never;

/** One request's events, as the engine would send them. */
export type FakeScript = (request: GenerateRequest, signal: AbortSignal | undefined) => AsyncGenerator<ScriptedEvent>;

const config: EngineConfig = {
  mode: 'local',
  maxNumSequence: 4,
  maxTotalSeqLength: 512,
  kvLayout: 'shared',
  streamCells: 0,
  prefillChunkSize: 512,
  contextWindowSize: 512,
  slidingWindowSize: 0,
  prefixCacheRecyclingSeqs: 0,
  maxDraftTokens: 0,
  scoredRowsPerStep: 16,
  tensorParallelShards: 1,
  gpuMemoryUtilization: 0.9,
  maxQueuedRequests: 16,
  memoryNote: 'fake',
};

const tokenTexts = ['<eos>', ...'abcdefghijklmnopqrstuvwxyz '.split('')];

export class FakeEngine implements EngineClient {
  readonly info: EngineInfo = {
    config,
    vocabSize: tokenTexts.length,
    endOfGeneration: [0],
    bosToken: -1,
    addBos: false,
    bosText: '',
    eosText: '<eos>',
    architecture: 'fake',
    description: 'scripted fake engine',
    contextLength: 512,
    chatTemplate: undefined,
    toolUseChatTemplate: undefined,
    devices: ['CPU (fake)'],
    threads: { max: 1, adaptive: false },
    library: 'fake',
    libraryNotes: [],
    sampling: 'host',
    tokenTexts,
  };
  alive = true;
  restarting = false;
  restarts = 0;
  stalled = false;
  onTrace = undefined;
  readonly grammarCacheCounts = { hits: 0, joined: 0, compiled: 0 };
  readonly grammarArtifactCacheBytes = 0;
  /** Every request the server sent, in order. */
  readonly requests: GenerateRequest[] = [];
  /** Resolves when the server first cancels a running request (a client left, or another prompt of its batch failed). */
  readonly cancelled: Promise<void>;
  private markCancelled!: () => void;
  private nextId = 1;

  constructor(private readonly script: FakeScript) {
    this.cancelled = new Promise((resolve) => (this.markCancelled = resolve));
  }

  async *generate(request: GenerateRequest, signal?: AbortSignal): AsyncGenerator<EngineEvent> {
    this.requests.push(request);
    const id = this.nextId++;
    // Only a request still running counts as cancelled.
    const onAbort = () => this.markCancelled();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const event of this.script(request, signal)) yield { ...event, id } as EngineEvent;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  compileGrammar(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array());
  }

  detokenize(tokens: readonly number[]): Promise<string> {
    return Promise.resolve(tokens.map((token) => tokenTexts[token]).join(''));
  }

  /** A token a character (the fake vocabulary's letters and space); no BOS. */
  tokenize(text: string): Promise<number[]> {
    return Promise.resolve([...text].map((char) => Math.max(0, tokenTexts.indexOf(char))));
  }

  /** The scripts run to their end: none is held to be ended. */
  endRequests(): number {
    return 0;
  }

  /** Counters the test sets, for what /metrics must show of them. */
  statsGiven: Partial<EngineStats> = {};

  stats(): Promise<EngineStats> {
    return Promise.resolve({ running: 0, waiting: 0, kvCellsUsed: 0, kvCellsCached: 0, cachedSequences: 0, freeSlots: config.maxNumSequence, steps: 0, preemptions: 0, recomputedTokens: 0, draftTokens: 0, acceptedDraftTokens: 0, grammarCacheBytes: 0, vocabularyCacheBytes: 0, draftPositions: { proposed: [], accepted: [] }, ...this.statsGiven });
  }
}

export interface FakeServer {
  url: string;
  engine: FakeEngine;
}

/** Runs `body` against a server on a fake engine that answers with `script`, and closes it after. */
export async function withFakeEngineServer(script: FakeScript, body: (s: FakeServer) => Promise<void>, options: Partial<ApiServerOptions> = {}): Promise<void> {
  const server = new ApiServer(testServerOptions(options));
  const address = await server.listen('127.0.0.1', 0);
  const engine = new FakeEngine(script);
  server.ready(engine);
  try {
    await body({ url: `http://127.0.0.1:${address.port}`, engine });
  } finally {
    await server.drain(1000);
  }
}

/** A delta event of one token per character of `text` (token ids are irrelevant to the server). */
export const delta = (choice: number, text: string): ScriptedEvent => ({ type: 'delta', choice, text, tokens: [...text].map(() => 1) });

/** Resolves when `signal` aborts: a script that waits on it ends only when the server cancels the request. */
export const untilAborted = (signal: AbortSignal | undefined) => new Promise<void>((resolve) => signal!.addEventListener('abort', () => resolve(), { once: true }));

/** An SSE body as its events: each `data:` payload parsed, `[DONE]` kept as the string. */
export function sseEvents(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      if (!event.startsWith('data: ')) throw new Error(`not a data event: ${event}`);
      const data = event.slice('data: '.length);
      return data === '[DONE]' ? data : JSON.parse(data);
    });
}
