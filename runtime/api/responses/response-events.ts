// A chat answer's chunks (chat-chunks.ts) as the Responses API's output: items opened and closed
// as the answer moves from thinking to text to calls, and the events that say so. The stream
// sends these events; the whole response is the last one's `response`, so the two cannot differ.
import type { ChatChunk } from '../chat-completions/chat-chunks.js';
import type { ChatFinishReason, MessageDelta, OpenAiLogprob } from '../chat-completions/chat-choice.js';
import type { Usage } from '../usage.js';
import { responseUsageOf, type ResponseStatus } from './response-object.js';

export interface ResponseEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

/** An output item being written: its kind, what it holds so far, and where it sits. */
interface OpenItem {
  kind: 'reasoning' | 'message' | 'function_call';
  id: string;
  outputIndex: number;
  text: string;
  logprobs: OpenAiLogprob[];
  /** A function call: its index among the chat answer's calls, its call_id and name. */
  call?: { index: number; callId: string; name: string };
}

export class ResponseEvents {
  /** The response as the last event carries it, once `closing` has run. */
  final: Record<string, unknown> | undefined;
  private sequence = 0;
  private readonly output: object[] = [];
  private open: OpenItem | undefined;
  private finish: ChatFinishReason | undefined;
  /** Logprobs of tokens whose text is not out yet: they belong to the next text, if it is the answer's. */
  private pendingLogprobs: OpenAiLogprob[] = [];

  constructor(
    /** The response's name and echoed settings (response-object.ts). */
    private readonly settings: Record<string, unknown>,
    /** include: ["message.output_text.logprobs"]. */
    private readonly logprobs: boolean,
  ) {}

  /** response.created and response.in_progress: the first events of a stream. */
  opening(): ResponseEvent[] {
    const response = this.response('in_progress', null);
    return [this.event('response.created', { response }), this.event('response.in_progress', { response })];
  }

  add(chunk: ChatChunk): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    // One output: n is always 1 here.
    for (const { delta, logprobs, finish_reason } of chunk.choices) {
      if (logprobs) this.pendingLogprobs.push(...logprobs.content);
      // The role chunk opens nothing: an item opens with its first text or call.
      if (!('refusal' in delta)) events.push(...this.deltaEvents(delta));
      if (finish_reason) this.finish = finish_reason;
    }
    return events;
  }

  /**
   * The last events: the open item closed, then response.completed (or .incomplete when the
   * output limit cut it). With `failed` (why), or before the answer finished, the engine failed
   * part way: response.failed.
   */
  closing(usage: Usage | undefined, failed?: string): ResponseEvent[] {
    // The answer ended without a finish: the engine failed after some output.
    const failure = failed ?? (this.finish === undefined ? 'The engine failed while generating; the output so far is kept.' : undefined);
    const cut = failure === undefined && this.finish === 'length';
    const events = this.close(failure !== undefined || cut ? 'incomplete' : 'completed');
    if (failure !== undefined) {
      events.push(this.event('response.failed', { response: this.response('failed', usage ?? null, { error: { code: 'server_error', message: failure } }) }));
    } else if (cut) {
      events.push(this.event('response.incomplete', { response: this.response('incomplete', usage ?? null, { incomplete_details: { reason: 'max_output_tokens' } }) }));
    } else {
      events.push(this.event('response.completed', { response: this.response('completed', usage ?? null) }));
    }
    this.final = events.at(-1)!.response as Record<string, unknown>;
    return events;
  }

  private deltaEvents(delta: MessageDelta): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    if (delta.reasoning_content) {
      this.pendingLogprobs = []; // the thinking's tokens: logprobs are for the answer's text only
      events.push(...this.ensureOpen('reasoning'));
      events.push(this.event('response.reasoning_text.delta', { ...this.at(), content_index: 0, delta: delta.reasoning_content }));
      this.open!.text += delta.reasoning_content;
    }
    if (delta.content) {
      events.push(...this.ensureOpen('message'));
      const logprobs = this.logprobs ? this.pendingLogprobs : [];
      this.pendingLogprobs = [];
      events.push(this.event('response.output_text.delta', { ...this.at(), content_index: 0, delta: delta.content, logprobs }));
      this.open!.text += delta.content;
      this.open!.logprobs.push(...logprobs);
    }
    for (const piece of delta.tool_calls ?? []) {
      this.pendingLogprobs = [];
      if (this.open?.call?.index !== piece.index) events.push(...this.openCall(piece.index, piece.id ?? '', piece.function?.name ?? ''));
      const args = piece.function?.arguments;
      if (args) {
        events.push(this.event('response.function_call_arguments.delta', { ...this.at(), delta: args }));
        this.open!.text += args;
      }
    }
    return events;
  }

  /** The open item, if it is of this kind; else the open one closed and a new one begun. */
  private ensureOpen(kind: 'reasoning' | 'message'): ResponseEvent[] {
    if (this.open?.kind === kind) return [];
    const events = this.close('completed');
    const id = this.itemId(kind === 'message' ? 'msg' : 'rs');
    this.open = { kind, id, outputIndex: this.output.length, text: '', logprobs: [] };
    this.output.push({});
    const item = kind === 'message' ? { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } : { id, type: 'reasoning', summary: [], content: [] };
    events.push(this.event('response.output_item.added', { output_index: this.open.outputIndex, item }));
    events.push(this.event('response.content_part.added', { ...this.at(), content_index: 0, part: this.part('') }));
    return events;
  }

  private openCall(index: number, callId: string, name: string): ResponseEvent[] {
    const events = this.close('completed');
    const id = this.itemId('fc');
    this.open = { kind: 'function_call', id, outputIndex: this.output.length, text: '', logprobs: [], call: { index, callId, name } };
    this.output.push({});
    events.push(this.event('response.output_item.added', { output_index: this.open.outputIndex, item: this.itemOf(this.open, 'in_progress') }));
    return events;
  }

  /** The open item's closing events, its final form kept in the output. */
  private close(status: ItemStatus): ResponseEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    const at = { item_id: open.id, output_index: open.outputIndex };
    const events: ResponseEvent[] = [];
    if (open.kind === 'function_call') {
      events.push(this.event('response.function_call_arguments.done', { ...at, arguments: open.text }));
    } else {
      if (open.kind === 'message') {
        // Tokens still held back at the end (a stop string's start) belong to the text that ends here.
        if (this.logprobs) open.logprobs.push(...this.pendingLogprobs);
        this.pendingLogprobs = [];
        events.push(this.event('response.output_text.done', { ...at, content_index: 0, text: open.text, logprobs: open.logprobs }));
      } else {
        events.push(this.event('response.reasoning_text.done', { ...at, content_index: 0, text: open.text }));
      }
      events.push(this.event('response.content_part.done', { ...at, content_index: 0, part: this.part(open.text, open) }));
    }
    const item = this.itemOf(open, status);
    this.output[open.outputIndex] = item;
    events.push(this.event('response.output_item.done', { output_index: open.outputIndex, item }));
    return events;
  }

  private itemOf(open: OpenItem, status: ItemStatus): object {
    if (open.kind === 'function_call') {
      return { id: open.id, type: 'function_call', status, call_id: open.call!.callId, name: open.call!.name, arguments: open.text };
    }
    if (open.kind === 'reasoning') return { id: open.id, type: 'reasoning', summary: [], content: [this.part(open.text, open)] };
    return { id: open.id, type: 'message', status, role: 'assistant', content: [this.part(open.text, open)] };
  }

  /** The open item's content part, holding `text`. */
  private part(text: string, open: OpenItem = this.open!): object {
    if (open.kind === 'reasoning') return { type: 'reasoning_text', text };
    return { type: 'output_text', text, annotations: [], ...(this.logprobs ? { logprobs: text === '' ? [] : open.logprobs } : {}) };
  }

  private at(): { item_id: string; output_index: number } {
    return { item_id: this.open!.id, output_index: this.open!.outputIndex };
  }

  /** Item ids unique within the response, and across responses through its own id. */
  private itemId(prefix: string): string {
    return `${prefix}_${String(this.settings.id).replace(/^resp_/, '')}_${this.output.length}`;
  }

  private response(status: ResponseStatus, usage: Usage | null, fields: object = {}): object {
    const { id, object, created_at: createdAt, model, ...settings } = this.settings;
    return {
      id,
      object,
      created_at: createdAt,
      status,
      error: null,
      incomplete_details: null,
      model,
      output: status === 'in_progress' ? [] : [...this.output],
      usage: usage ? responseUsageOf(usage) : null,
      ...settings,
      ...fields,
    };
  }

  private event(type: string, fields: object): ResponseEvent {
    return { type, sequence_number: this.sequence++, ...fields };
  }
}
