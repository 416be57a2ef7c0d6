// What every completion endpoint needs from the server that serves it: the engine, the names
// and fingerprint responses carry, tracing and metrics, and the model's chat conventions.
import type { ChatTemplate } from '../chat/chat-template.js';
import type { ToolFormat } from '../chat/tool-formats.js';
import type { EngineClient } from './engine-client.js';
import type { ServerMetrics } from './metrics.js';
import type { ToolCallArguments } from './tool-calls.js';
import type { TraceBuffer } from './trace-buffer.js';

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
}
