// The HTTP server: routes, CORS, API keys, body limits, errors (answered in one place),
// metrics, readiness and graceful draining. It talks to the engine only through EngineClient.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import polka, { type Handler, type Request } from 'polka';
import { UserFacingError } from '../../compiler/lmforge-error.js';
import { ApiError, sendError } from '../api/api-error.js';
import { ApiKeys } from './auth.js';
import { RequestMeter } from '../telemetry/request-meter.js';
import { chatCompletions } from '../api/chat-completions/chat-completions.js';
import type { CompletionContext, CompletionEndpoint, CompletionRequestBase } from '../api/completion-context.js';
import { chooseConversation, type ConversationOptions } from '../api/conversation.js';
import { chatPageHandler, isChatPagePath } from './chat-page.js';
import { CorsPolicy, type CorsOptions } from './cors.js';
import type { EngineClient } from '../engine/client/engine-client.js';
import { docsPage, endpointsAt, openApiDocument, type Endpoint, type LaunchFlag, type ServedFacts } from './endpoints.js';
import { InterruptedGeneration } from '../api/interrupted-generation.js';
import { ServerMetrics } from '../telemetry/metrics.js';
import { BodyAbortedError, BodyTooLargeError, readJsonBody } from './read-body.js';
import { textCompletions } from '../api/text-completions/text-completions.js';
import { responses } from '../api/responses/responses.js';
import { DEFAULT_RESPONSES_STORE_BYTES, ResponseStore } from '../api/responses/response-store.js';
import { inputItemsPage } from '../api/responses/input-items.js';
import { toApiError, type PromptNaming } from '../api/to-api-error.js';
import { detokenizeEndpoint, tokenizeEndpoint, tokenizerInfo, type JsonEndpoint } from '../api/tokenizer/tokenizer-endpoints.js';
import { stepProfileReport } from '../telemetry/step-profile-report.js';
import { TraceBuffer } from '../telemetry/trace-buffer.js';

/** The server's options, and how the model's conversation is written (conversation.ts). */
export interface ApiServerOptions extends ConversationOptions {
  /** The served model name: the id GET /v1/models lists, responses carry and requests send as `model`. */
  modelId: string;
  /** Other names requests may send as `model` (the MODEL argument, the file's path); never listed. */
  modelAliases?: readonly string[];
  /** Keys a request needs one of, as `Authorization: Bearer KEY` (none: the server is open). */
  apiKeys?: readonly string[];
  cors: CorsOptions;
  tracing: boolean;
  /** Serve the engine's step profile at GET /debug/step-profile (the engine must be created with profileSteps). */
  profileSteps?: boolean;
  maxBodyBytes: number;
  version: string;
  /** Serve the web chat page at `/` (default true; --no-ui turns it off). */
  ui?: boolean;
  /** Bytes of stored Responses API responses kept in memory (response-store.ts; default 64 MiB); 0 stores none. */
  responsesStoreMaxBytes?: number;
}

type Phase = 'loading' | 'ready' | 'draining';

/** After the drain time, how long requests ended with an error may take to write it. */
const WRITE_ERRORS_MS = 2_000;

/** A TCP port to listen on: 0 lets the system choose. */
export const PORT_RANGE = '0 to 65535';
export function isListenPort(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535;
}

export class ApiServer {
  private phase: Phase = 'loading';
  private context: CompletionContext | undefined;
  private readonly server: Server;
  private readonly cors: CorsPolicy;
  private readonly tracer: TraceBuffer | undefined;
  private readonly created = Math.floor(Date.now() / 1000);
  /** Completion requests being answered: from their first byte to their answer's last. */
  private readonly inFlight = new Set<ServerResponse>();
  private idle: (() => void) | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();
  private readonly apiKeys: ApiKeys;
  /** This server's Prometheus metrics (GET /metrics). */
  readonly metrics = new ServerMetrics();
  private readonly responseStore: ResponseStore;

  constructor(private readonly options: ApiServerOptions) {
    this.cors = new CorsPolicy(options.cors);
    this.responseStore = new ResponseStore(options.responsesStoreMaxBytes ?? DEFAULT_RESPONSES_STORE_BYTES);
    this.apiKeys = new ApiKeys(options.apiKeys ?? [], options.ui !== false);
    const keyed = { apiKeys: this.apiKeys.required };
    this.tracer = options.tracing ? new TraceBuffer() : undefined;
    this.server = createServer();
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerUnparsable(error, socket));
    this.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => this.checkContinue(req, res));
    // Node's own answer to another expectation is an empty 417: the envelope, as for every error.
    this.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      sendError(res, new ApiError(417, `Expect: ${req.headers.expect} is not supported (only 100-continue is).`, 'invalid_request_error', null, 'expectation_failed'), { connection: 'close', 'x-request-id': newRequestId() });
    });
    const app = polka({
      server: this.server,
      onNoMatch: (req, res) => this.noMatch(req, res),
      onError: (error, _req, res) => sendError(res, toApiError(error)),
    });
    // As OpenAI's: a client (the SDKs' `_request_id`) and the log can name one request.
    app.use((_req, res, next) => {
      res.setHeader('x-request-id', newRequestId());
      next();
    });
    app.use((req, res, next) => this.countResponse(req, res, next));
    app.use((req, res, next) => this.applyCors(req, res, next));
    // The key check lets the chat page through (auth.ts says why): the list it reads is the one
    // the help and start-up print, so what is open cannot drift from what they say.
    app.use((req, res, next) => this.checkApiKey(req, res, next));
    if (options.ui !== false) {
      const page = chatPageHandler((req, res) => this.noMatch(req, res));
      app.use((req, res, next) => (isChatPagePath(req.path) && (req.method === 'GET' || req.method === 'HEAD') ? page(req, res) : next()));
    }
    // Every GET route answers HEAD too (RFC 9110 §9.1; probes use it): Node's response sends
    // the headers of a HEAD request's answer and drops its body.
    const read = (path: string, handler: Handler): void => {
      app.get(path, handler);
      app.head(path, handler);
    };
    read('/v1/models', (_req, res) => this.json(res, 200, { object: 'list', data: [this.modelObject()] }));
    // A wildcard, not `:model`: a served name such as org/model may arrive with its `/` unencoded.
    read('/v1/models/*', (req, res) => this.retrieveModel(req, res));
    app.post('/v1/chat/completions', (req, res) => void this.complete(req, res, chatCompletions));
    app.post('/v1/completions', (req, res) => void this.complete(req, res, textCompletions));
    app.post('/v1/responses', (req, res) => void this.complete(req, res, responses));
    read('/v1/responses/:id', (req, res) => this.storedResponse(req, res, false));
    app.delete('/v1/responses/:id', (req, res) => this.storedResponse(req, res, true));
    read('/v1/responses/:id/input_items', (req, res) => {
      const stored = this.responseStore.get(req.params.id!);
      if (!stored) sendError(res, this.notStored(req.params.id!));
      // A wrong query throws its 400, answered where every request's handling is caught (below).
      else this.json(res, 200, inputItemsPage(stored.input, req.query));
    });
    app.post('/tokenize', (req, res) => void this.answerJson(req, res, tokenizeEndpoint));
    app.post('/detokenize', (req, res) => void this.answerJson(req, res, detokenizeEndpoint));
    read('/tokenizer_info', (_req, res) => {
      if (this.phase !== 'ready' || !this.context) sendError(res, this.notReady());
      else this.json(res, 200, tokenizerInfo(this.context));
    });
    read('/health', (_req, res) => {
      const status = this.healthStatus();
      // Like every other 503 (api-error.ts): probes and load balancers back off by it.
      if (status !== 'ok') res.setHeader('Retry-After', '1');
      this.json(res, status === 'ok' ? 200 : 503, { status });
    });
    read('/metrics', (_req, res, next) => void this.sendMetrics(res).catch(next));
    read('/openapi.json', (_req, res) => this.json(res, 200, openApiDocument(options.version, this.servedFacts(keyed.apiKeys))));
    read('/docs', (_req, res) => {
      const page = docsPage(options.version, keyed);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
      res.end(page);
    });
    if (this.tracer) {
      const tracer = this.tracer;
      read('/debug/trace', (req, res) => {
        // A repeated or misspelt filter returned the whole trace, as if none was given.
        const unknown = Object.keys(req.query).find((key) => key !== 'request_id');
        const id = req.query.request_id;
        if (unknown !== undefined || Array.isArray(id) || id === '') {
          const why = unknown !== undefined ? `Unknown query parameter '${unknown}': the one filter is request_id, a completion's id.` : id === '' ? 'request_id is empty; give a completion id.' : 'request_id is given more than once; give one completion id.';
          sendError(res, new ApiError(400, why, 'invalid_request_error', unknown ?? 'request_id', null));
          return;
        }
        this.json(res, 200, tracer.toJSON(typeof id === 'string' ? id : undefined));
      });
    }
    if (options.profileSteps) read('/debug/step-profile', (_req, res, next) => void this.sendStepProfile(res).catch(next));
    // polka 0.5 does not catch a handler's synchronous throw: uncaught, it would end the process.
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      try {
        app.handler(req, res);
      } catch (error) {
        if (!res.headersSent) sendError(res, toApiError(error));
        else res.destroy();
      }
    });
  }

  /** Starts listening; rejects with a one-line error when the address is taken. */
  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        const message =
          error.code === 'EADDRINUSE'
            ? `port ${port} on ${host} is already in use; stop the other server or choose another port (--port; createServer's port option)`
            : error.code === 'EACCES'
              ? `not allowed to listen on ${host}:${port}; use a port above 1023`
              : `cannot listen on ${host}:${port}: ${error.message}`;
        reject(new UserFacingError(message));
      };
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /** ok, or why not: loading, draining, engine_restarting (it failed; another is starting), engine_stalled (it holds requests and finishes no step) or engine_stopped. */
  private healthStatus(): string {
    if (this.phase !== 'ready') return this.phase;
    const engine = this.context?.engine;
    if (engine?.restarting) return 'engine_restarting';
    if (engine?.stalled) return 'engine_stalled';
    return engine?.alive ? 'ok' : 'engine_stopped';
  }

  /** The model is loaded: start answering completions. */
  ready(engine: EngineClient): void {
    const info = engine.info;
    if (this.tracer) {
      const tracer = this.tracer;
      engine.onTrace = (entries) => tracer.addEngineEntries(entries);
    }
    const conversation = chooseConversation(info, this.options);
    this.templateNote = conversation.notes.template;
    this.toolFormatNote = conversation.notes.toolFormat;
    this.reasoningNote = conversation.notes.reasoning;
    this.context = {
      engine,
      ...conversation.conventions,
      ...(conversation.withTools ? { withTools: conversation.withTools } : {}),
      modelId: this.options.modelId,
      metrics: this.metrics,
      fingerprint: systemFingerprint(this.options.version, info.library, info.devices, info.sampling),
      tracer: this.tracer,
      responseStore: this.responseStore,
    };
    this.phase = 'ready';
  }

  /** The chat template in use and why, for the start-up log. */
  templateNote = '';
  /** The tool-call format in use and why, for the start-up log. */
  toolFormatNote = '';
  /** Whether thinking is split off into reasoning_content, and why, for the start-up log. */
  reasoningNote = '';

  /**
   * Stops taking requests, lets running ones finish (up to `graceMs`), then ends those still
   * running with a 503 `server_shutting_down` (a stream with an SSE error event and [DONE], as an
   * engine failure ends it), gives them a moment to be written, and closes every connection.
   */
  async drain(graceMs: number): Promise<void> {
    this.phase = 'draining';
    this.server.close();
    if (!(await this.idleWithin(graceMs))) {
      const message = graceMs > 0 ? `the server is shutting down and its ${graceMs / 1000} s to finish running requests are over: this one was cut short; retry it` : 'the server is shutting down without waiting for running requests: this one was cut short; retry it';
      const ended = this.inFlight.size;
      this.context?.engine.endRequests(message);
      await this.idleWithin(WRITE_ERRORS_MS);
      // Those the engine did not hold (a body still arriving, a format compiling) are answered here.
      const answered = [...this.inFlight].filter((res) => !res.writableEnded);
      for (const res of answered) sendError(res, new ApiError(503, message, 'server_error', null, 'server_shutting_down'), { connection: 'close' });
      await Promise.race([Promise.all(answered.map((res) => new Promise((resolve) => res.once('finish', resolve)))), new Promise((resolve) => setTimeout(resolve, WRITE_ERRORS_MS).unref())]);
      const why = graceMs > 0 ? `the drain time (${graceMs / 1000} s) ran out` : 'stopped with no drain time';
      console.warn(`lmforge: ${why}: ${ended} ${ended === 1 ? 'request was' : 'requests were'} ended with a 503 server_shutting_down`);
    }
    for (const socket of this.sockets) socket.destroy();
  }

  /** Whether no request is in flight, now or within `ms`. */
  private async idleWithin(ms: number): Promise<boolean> {
    if (this.inFlight.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = await Promise.race([new Promise<boolean>((resolve) => (this.idle = () => resolve(true))), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms).unref()))]);
    clearTimeout(timer);
    return idle;
  }

  /** What /openapi.json says of this server: its model's name and, once loaded, its limits. */
  private servedFacts(apiKeys: boolean): ServedFacts {
    const info = this.context?.engine.info;
    return { apiKeys, models: [this.options.modelId], ...(info ? { limits: { maxNumSequence: info.config.maxNumSequence, vocabSize: info.vocabSize } } : {}) };
  }

  private modelObject(): object {
    return { id: this.options.modelId, object: 'model', created: this.created, owned_by: 'lmforge' };
  }

  /** Whether `model` names the served model: its served name or one of its aliases. */
  private serves(model: string): boolean {
    return model === this.options.modelId || (this.options.modelAliases ?? []).includes(model);
  }

  private unknownModel(model: string): ApiError {
    return new ApiError(404, `The model '${model}' does not exist; this server serves '${this.options.modelId}'.`, 'invalid_request_error', 'model', 'model_not_found');
  }

  private retrieveModel(req: Request, res: ServerResponse): void {
    const raw = req.path.slice('/v1/models/'.length);
    let model: string;
    try {
      model = decodeURIComponent(raw);
    } catch {
      model = raw;
    }
    if (this.serves(model)) this.json(res, 200, this.modelObject());
    else sendError(res, this.unknownModel(model));
  }

  /** GET (`remove` false) or DELETE a stored response; one not stored is a 404 naming it. */
  private storedResponse(req: Request, res: ServerResponse, remove: boolean): void {
    const id = req.params.id!;
    const stored = this.responseStore.get(id);
    if (!stored) {
      sendError(res, this.notStored(id));
    } else if (remove) {
      this.responseStore.delete(id);
      this.json(res, 200, { id, object: 'response', deleted: true });
    } else {
      this.json(res, 200, stored.response);
    }
  }

  private notStored(id: string): ApiError {
    return new ApiError(404, `No response with id '${id}' is stored here: it was answered with store: false, deleted, or the oldest stored responses made room for newer ones (--responses-store-max-bytes).`, 'invalid_request_error', 'response_id', 'not_found');
  }

  private async sendMetrics(res: ServerResponse): Promise<void> {
    const text = await this.metrics.render(this.phase === 'ready' ? this.context?.engine : undefined);
    res.writeHead(200, { 'content-type': this.metrics.contentType, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** The engine's step profile as means by width; empty until the model has loaded. */
  private async sendStepProfile(res: ServerResponse): Promise<void> {
    const stats = this.phase === 'ready' ? await this.context?.engine.stats() : undefined;
    this.json(res, 200, stepProfileReport(stats?.stepProfile, stats?.allSteps));
  }

  private complete<R extends CompletionRequestBase>(req: IncomingMessage, res: ServerResponse, endpoint: CompletionEndpoint<R>): Promise<void> {
    const id = endpoint.newId();
    const meter = new RequestMeter(this.metrics);
    res.once('finish', () => {
      if (res.statusCode === 200) meter.completed();
    });
    let request: R | undefined;
    const naming = (): PromptNaming => {
      const maxTokens = request && endpoint.maxTokensField?.(request);
      return { prompt: endpoint.prompt, ...(maxTokens ? { maxTokens } : {}) };
    };
    return this.serveRequest(res, naming, async () => {
      this.tracer?.instant(id, 'received', { bytes: Number(req.headers['content-length'] ?? 0) });
      const body = await readJsonBody(req, this.options.maxBodyBytes);
      request = endpoint.parse(body);
      this.tracer?.instant(id, 'validated', { user: request.user ?? null, stream: request.stream === true, n: request.n ?? 1 });
      if (!this.serves(request.model)) throw this.unknownModel(request.model);
      await endpoint.complete(request, res, this.readyContext(), id, meter);
    });
  }

  /** A JSON body in, a JSON answer out (the tokenizer endpoints): a completion's checks (body, model, readiness) and errors, nothing streamed. */
  private answerJson<R extends { model?: string | null }>(req: IncomingMessage, res: ServerResponse, endpoint: JsonEndpoint<R>): Promise<void> {
    let request: R | undefined;
    return this.serveRequest(res, () => ({ prompt: (request && endpoint.promptField?.(request)) ?? 'prompt' }), async () => {
      request = endpoint.parse(await readJsonBody(req, this.options.maxBodyBytes));
      if (request.model != null && !this.serves(request.model)) throw this.unknownModel(request.model);
      this.json(res, 200, await endpoint.answer(request, this.readyContext()));
    });
  }

  /**
   * The frame every POST endpoint's work runs in: counted in flight (shutdown waits for it), and
   * whatever it throws sent as an OpenAI error envelope, its fields named as the request names them.
   */
  private async serveRequest(res: ServerResponse, naming: () => PromptNaming, work: () => Promise<void>): Promise<void> {
    this.inFlight.add(res);
    try {
      await work();
    } catch (error) {
      if (error instanceof BodyAbortedError) return; // counted as a 499 when its connection closes
      const apiError = toApiError(error, naming());
      if (apiError.status === 500) console.error(`lmforge: internal error while serving request ${res.getHeader('x-request-id')}:`, error instanceof InterruptedGeneration ? error.reason : error);
      sendError(res, apiError, error instanceof BodyTooLargeError && !error.drained ? { connection: 'close' } : {});
    } finally {
      this.inFlight.delete(res);
      if (this.inFlight.size === 0) this.idle?.();
    }
  }

  /** The loaded model's context; a 503 while it loads or once the server is shutting down. */
  private readyContext(): CompletionContext {
    if (this.phase !== 'ready' || !this.context) throw this.notReady();
    return this.context;
  }

  /** Why the server cannot answer yet (or any more): a 503. */
  private notReady(): ApiError {
    return new ApiError(503, this.phase === 'loading' ? 'The model is still loading; retry shortly.' : 'The server is shutting down.', 'server_error', null, 'server_not_ready');
  }

  /** Counts every answer once its connection is done with it: by method, endpoint and status. */
  private countResponse(req: Request, res: ServerResponse, next: () => void): void {
    res.once('close', () => {
      const path = endpointsAt(req.path)[0]?.path ?? 'other';
      // 499 (as nginx logs it): the client went away before any answer was sent.
      const status = res.headersSent ? String(res.statusCode) : '499';
      this.metrics.httpRequests.inc({ method: req.method ?? '', path, status });
    });
    next();
  }

  /**
   * `Expect: 100-continue`: a client asks before it sends its body. One this server would refuse
   * (no key, too large) is refused now, before the upload (RFC 9110 §10.1.1); Node's default
   * invites every body.
   */
  private checkContinue(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    // A CORS preflight needs no key (auth.ts), whatever it expects.
    const refusal = req.method === 'OPTIONS' ? undefined : this.apiKeys.refusal(path, req.headers.authorization, req.method);
    const tooLarge = Number(req.headers['content-length'] ?? 0) > this.options.maxBodyBytes ? new BodyTooLargeError(this.options.maxBodyBytes, false) : undefined;
    if (refusal || tooLarge) {
      sendError(res, (refusal ?? tooLarge)!, { connection: 'close', 'x-request-id': newRequestId(), ...(refusal ? { 'www-authenticate': 'Bearer' } : {}) });
      return;
    }
    res.writeContinue();
    this.server.emit('request', req, res);
  }

  private checkApiKey(req: Request, res: ServerResponse, next: () => void): void {
    const refusal = this.apiKeys.refusal(req.path, req.headers.authorization, req.method);
    if (refusal) sendError(res, refusal, { 'www-authenticate': 'Bearer' });
    else next();
  }

  private applyCors(req: Request, res: ServerResponse, next: () => void): void {
    if (this.cors.isPreflight(req)) {
      const answer = this.cors.preflight(req);
      if (answer.problem) {
        sendError(res, new ApiError(answer.status, `${answer.problem}.`, 'invalid_request_error', null, 'cors_not_allowed'), answer.headers);
        return;
      }
      res.writeHead(answer.status, { ...answer.headers, 'content-type': 'text/plain; charset=utf-8' });
      res.end('OK');
      return;
    }
    for (const [name, value] of Object.entries(this.cors.responseHeaders(req))) res.setHeader(name, value);
    const refusal = this.cors.refusal(req);
    if (refusal) sendError(res, new ApiError(403, `${refusal}.`, 'invalid_request_error', null, 'cors_not_allowed'));
    else next();
  }

  private noMatch(req: Request, res: ServerResponse): void {
    const endpoints = endpointsAt(req.path);
    const allowed = endpoints.filter((e) => this.hasEndpoint(e)).flatMap((e) => (e.method === 'GET' ? ['GET', 'HEAD'] : [e.method]));
    const flag = endpoints.find((e) => !this.hasEndpoint(e))?.onlyWith;
    if (allowed.length > 0) {
      sendError(res, new ApiError(405, `Method ${req.method} is not allowed on ${req.path}; use ${allowed.join(', ')}.`, 'invalid_request_error', null, 'method_not_allowed'), {
        allow: allowed.join(', '),
      });
    } else if (flag) {
      sendError(res, new ApiError(404, `${req.path} is served only when the server starts with ${flag}; this one was started without it.`, 'not_found_error', null, 'not_found'));
    } else {
      sendError(res, new ApiError(404, `There is no endpoint ${req.method} ${req.path}; see /docs.`, 'not_found_error', null, 'not_found'));
    }
  }

  /** Whether this server has `endpoint`: one that a launch flag adds needs that flag. */
  private hasEndpoint(endpoint: Endpoint): boolean {
    if (endpoint.onlyWith === undefined) return true;
    const given: Record<LaunchFlag, boolean> = { '--enable-tracing': this.options.tracing, '--profile-steps': this.options.profileSteps === true };
    return given[endpoint.onlyWith];
  }

  private json(res: ServerResponse, status: number, value: unknown): void {
    const body = JSON.stringify(value);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }
}

/**
 * Bytes that are not HTTP (such as a body longer than its Content-Length, whose rest reads as
 * a malformed next request) get the error envelope like every other failure, then the
 * connection closes: after a framing error nothing later on it can be trusted.
 */
export function answerUnparsable(error: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  const inProgress = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  // Node ends a request whose headers or body come too slowly (headersTimeout, requestTimeout): a 408, which clients retry.
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : timedOut ? 408 : 400;
  const apiError = new ApiError(
    status,
    status === 431
      ? 'The request headers are larger than this server accepts.'
      : timedOut
        ? 'The request did not arrive whole in time; send it again.'
        : `The request is not valid HTTP (${error.code ?? error.message}); check that Content-Length matches the body.`,
    'invalid_request_error',
    null,
    timedOut ? 'request_timeout' : 'invalid_http',
  );
  const body = JSON.stringify(apiError);
  const reason = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status];
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`);
}

/** A request's id, as OpenAI's: a client (the SDKs' `_request_id`) and the log can name one request. */
function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/**
 * Identifies the build, backend library and devices, as OpenAI's system_fingerprint does, and
 * `_device-sampling` where tokens are drawn in the graph: llama.cpp's generator there gives a
 * seed other text than the host path does.
 */
export function systemFingerprint(version: string, library: string, devices: string[], sampling: 'device' | 'host' = 'host'): string {
  const lib = /@node-llama-cpp\/([\w-]+)/.exec(library)?.[1] ?? 'custom-libllama';
  const device = devices.map((d) => d.split(' ')[0]).join('+');
  return `lmforge-${version}_${lib}_${device}${sampling === 'device' ? '_device-sampling' : ''}`;
}
