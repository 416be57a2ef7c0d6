// A tiny OpenAI-compatible streaming server for testing the benchmark client: it waits
// `firstDelayMs`, then sends `chunks` content chunks `gapMs` apart, a usage chunk and [DONE].
// It records when each request arrived and how many were in flight at once. It can close a
// request's kept-alive connection without answering, as llama-server does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface FakeBehaviour {
  firstDelayMs: number;
  gapMs: number;
  chunks: number;
  /** Tokens reported in usage (default: chunks), to tell usage counts from chunk counts. */
  usageTokens?: number;
  /** Send no usage chunk. */
  noUsage?: boolean;
  /** Close request i's connection without a byte of answer when this returns true. */
  closeUnanswered?: (i: number) => boolean;
  /** Answer request number i (0-based) with HTTP 500 when this returns true. */
  failWith500?: (i: number) => boolean;
  /** Send an error event after the first chunk of request i. */
  errorEventAt?: (i: number) => boolean;
  /** usage.prompt_tokens_details.cached_tokens of request i (lmforge's report); none when unset. */
  cachedTokens?: (i: number) => number;
  /** timings.cache_n of request i, in llama-server's last chunk; no timings when unset. */
  cacheN?: (i: number) => number;
}

export interface FakeServer {
  url: string;
  behaviour: FakeBehaviour;
  arrivals: number[];
  /** Per request, whether it came on a connection that had served one before. */
  keptAlive: boolean[];
  maxInFlight: number;
  bodies: Record<string, unknown>[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeServer(behaviour: FakeBehaviour): Promise<FakeServer> {
  let inFlight = 0;
  const state: Omit<FakeServer, 'url' | 'close'> = { behaviour, arrivals: [], keptAlive: [], maxInFlight: 0, bodies: [] };
  const usedSockets = new WeakSet<object>();

  const chat = async (req: IncomingMessage, res: ServerResponse) => {
    // Numbered from the last reset of `arrivals`, so each test counts its own requests.
    const i = state.arrivals.length;
    state.arrivals.push(performance.now());
    state.keptAlive.push(usedSockets.has(req.socket));
    usedSockets.add(req.socket);
    let raw = '';
    for await (const piece of req) raw += piece;
    state.bodies.push(JSON.parse(raw) as Record<string, unknown>);
    const b = state.behaviour;
    if (b.closeUnanswered?.(i)) {
      req.socket.destroy();
      return;
    }
    if (b.failWith500?.(i)) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'boom', type: 'server_error', param: null, code: null } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (data: unknown) => res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    const chunk = (delta: object, finish: string | null = null) => ({ id: `c${i}`, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
    send(chunk({ role: 'assistant', content: '' }));
    await sleep(b.firstDelayMs);
    for (let k = 0; k < b.chunks; k++) {
      if (k > 0) await sleep(b.gapMs);
      send(chunk({ content: `t${k} ` }));
      if (k === 0 && b.errorEventAt?.(i)) {
        send({ error: { message: 'decode failed', type: 'server_error' } });
        send('[DONE]');
        res.end();
        return;
      }
    }
    const timings = b.cacheN ? { timings: { cache_n: b.cacheN(i), prompt_n: 7 - b.cacheN(i), prompt_per_second: 100, predicted_per_second: 50 } } : {};
    send({ ...chunk({}, 'length'), ...timings });
    if (!b.noUsage) {
      const completion = b.usageTokens ?? b.chunks;
      const details = b.cachedTokens ? { prompt_tokens_details: { cached_tokens: b.cachedTokens(i) } } : {};
      send({ id: `c${i}`, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 7, completion_tokens: completion, total_tokens: 7 + completion, ...details } });
    }
    send('[DONE]');
    res.end();
  };

  const server = createServer((req, res) => {
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'test' }] }));
      return;
    }
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    chat(req, res)
      .catch(() => res.destroy())
      .finally(() => inFlight--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
