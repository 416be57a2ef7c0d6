// What every completion endpoint needs from the server that serves it (the engine, the names
// and fingerprint responses carry, tracing and metrics, the model's chat conventions), and what
// the server needs from each endpoint.
import type { ServerResponse } from 'node:http';
import type { ChatTemplate } from '../chat-format/chat-template.js';
import type { ToolFormat } from '../chat-format/tool-formats.js';
import type { EngineClient } from '../engine/client/engine-client.js';
import type { ServerMetrics } from '../telemetry/metrics.js';
import type { RequestMeter } from '../telemetry/request-meter.js';
import type { ToolCallArguments } from './chat-completions/tool-calls.js';
import type { TraceBuffer } from '../telemetry/trace-buffer.js';
import type { ResponseStore } from './responses/response-store.js';

export interface CompletionContext {
  engine: EngineClient;
  modelId: string;
  template: ChatTemplate;
  fingerprint: string;
  tracer: TraceBuffer | undefined;
  metrics: ServerMetrics;
  /** The model's tool-call format, and whether its template renders `tools` itself. */
  tools: { format: ToolFormat; templateKnowsTools: boolean; arguments: ToolCallArguments };
  /** Whether the model thinks before answering (see reasoning.ts). */
  reasoning: boolean;
  /** For requests with tools, the conventions of the model's tool_use template, when it is used (template-choice.ts). */
  withTools?: ChatConventions;
  /** The Responses API's stored responses (response-store.ts). */
  responseStore: ResponseStore;
}

/** How the model's chat is written: the template, its tool-call format, whether the model thinks. */
export type ChatConventions = Pick<CompletionContext, 'template' | 'tools' | 'reasoning'>;

/** The fields the server itself reads from every completion request. */
export interface CompletionRequestBase {
  model: string;
  stream?: boolean | null;
  n?: number | null;
  user?: string | null;
}

/** A completion endpoint as the server runs it: parse the body, then answer it. */
export interface CompletionEndpoint<Request extends CompletionRequestBase> {
  /** A checked request, or a 400 naming the field. */
  parse(body: unknown): Request;
  newId(): string;
  complete(request: Request, res: ServerResponse, context: CompletionContext, id: string, meter: RequestMeter): Promise<void>;
  /** What the engine's `prompt` is called in this endpoint's errors. */
  prompt: string;
  /** What the engine's `max_tokens` is called in this request's errors, where the endpoint has two names for it. */
  maxTokensField?(request: Request): string;
}
