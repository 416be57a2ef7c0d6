// POST /v1/chat/completions: render the conversation, run it on the engine, answer as one
// ChatCompletionResponse or as a stream of chunks. Errors before the first byte are HTTP
// errors; after a stream has started they are a `data: {"error": ...}` event.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { toTemplateMessages } from '../chat/chat-messages.js';
import { ChatTemplateError, type ChatTemplate } from '../chat/chat-template.js';
import { EngineRequestError, type Engine } from '../engine/engine.js';
import type { EngineErrorInfo, FinishReason, GenerateRequest, TokenLogprob } from '../engine/protocol.js';
import { ApiError, badRequest } from './api-error.js';
import type { ChatRequest } from './chat-request.js';
import { endEventStream, openEventStream, sendEvent } from './sse.js';
import { grammarErrorParam, grammarSpecOf } from './response-format.js';
import { GrammarCompileError } from '../engine/grammar-service.js';
import { nowMicros } from '../engine/clock.js';
import type { TraceBuffer } from './trace-buffer.js';
import type { ChatMeter } from './chat-meter.js';
import type { ServerMetrics } from './metrics.js';
import type { ToolFormat } from '../chat/tool-formats.js';
import { withToolPrompt } from '../chat/tool-prompt.js';
import type { ParsedDelta, ToolCallParser } from '../chat/tool-call-parser.js';
import { afterThinking, ReasoningSplitter, thinkStartOf, type ThinkStart } from '../chat/reasoning.js';
import { toolParserFor, toolSetupOf, toOpenAiToolCalls, type ToolCallArguments, type ToolSetup } from './tool-calls.js';

export interface CompletionContext {
  engine: Engine;
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

interface OpenAiLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

interface ChoiceState {
  text: string;
  logprobs: OpenAiLogprob[];
  finish: FinishReason | 'error' | undefined;
  completionTokens: number;
  /** Reads tool calls out of the text when calls are possible. */
  parser: ToolCallParser | undefined;
  /** Splits the thinking off the answer when the model thinks in this request. */
  splitter: ReasoningSplitter | undefined;
}

/** An OpenAI delta: reasoning, content and tool-call pieces. */
type MessageDelta = ParsedDelta & { reasoning_content?: string };

/**
 * The deltas for more generated text (or, with `text` undefined, for the end of the output):
 * the thinking is split off first, and only the answer reaches the tool-call parser. Both the
 * stream and the whole message are built from these, so they cannot differ.
 */
function advance(choice: ChoiceState, text: string | undefined): MessageDelta[] {
  const out: MessageDelta[] = [];
  let answer = text;
  if (choice.splitter) {
    const split = text === undefined ? choice.splitter.finish() : choice.splitter.push(text);
    if (split?.reasoning !== undefined) out.push({ reasoning_content: split.reasoning });
    answer = split?.answer;
  }
  if (choice.parser) {
    const parsed = answer !== undefined ? choice.parser.push(answer) : undefined;
    if (parsed) out.push(parsed);
    const last = text === undefined ? choice.parser.finish() : undefined;
    if (last) out.push(last);
  } else if (answer !== undefined) out.push({ content: answer });
  return out;
}

const tokenText = (bytes: number[]) => Buffer.from(bytes).toString('utf8');

function toOpenAiLogprob(entry: TokenLogprob): OpenAiLogprob {
  return {
    token: tokenText(entry.bytes),
    logprob: entry.logprob,
    bytes: entry.bytes,
    top_logprobs: entry.top.map((top) => ({ token: tokenText(top.bytes), logprob: top.logprob, bytes: top.bytes })),
  };
}

/** Maps an engine refusal onto the HTTP status and OpenAI error it means. */
export function engineErrorToApi(info: EngineErrorInfo): ApiError {
  switch (info.code) {
    case 'context_length_exceeded':
      return new ApiError(400, info.message, 'invalid_request_error', info.param ?? 'messages', 'context_length_exceeded');
    case 'server_is_overloaded':
      return new ApiError(503, info.message, 'server_error', null, 'server_is_overloaded');
    case 'invalid_request':
      return new ApiError(400, info.message, 'invalid_request_error', info.param ?? null, null);
    default:
      return new ApiError(500, info.message, 'server_error', null, 'internal_error');
  }
}

/** Where this request's thinking starts, or `closed` when there is none (see reasoning.ts). */
export function thinkStartFor(generate: GenerateRequest, context: CompletionContext): ThinkStart {
  return context.reasoning && typeof generate.prompt === 'string' ? thinkStartOf(generate.prompt) : 'closed';
}

export function toGenerateRequest(request: ChatRequest, context: CompletionContext, traceId: string, tools?: ToolSetup): GenerateRequest {
  let prompt: string;
  try {
    const messages = toTemplateMessages(request.messages);
    prompt = context.tools.templateKnowsTools
      ? context.template.render(messages, { addGenerationPrompt: true, ...(request.tools?.length ? { tools: request.tools } : {}) })
      : context.template.render(withToolPrompt(messages, tools?.tools ?? [], context.tools.format), { addGenerationPrompt: true });
  } catch (error) {
    if (error instanceof ChatTemplateError) throw badRequest(error.message, 'messages');
    throw error;
  }
  const info = context.engine.info;
  const maxTokens = request.max_tokens ?? request.max_completion_tokens ?? undefined;
  return {
    prompt,
    // A template that writes the BOS text itself must not get a second BOS from the tokenizer.
    addSpecial: info.addBos && !(info.bosText !== '' && prompt.startsWith(info.bosText)),
    n: request.n ?? 1,
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    stop: [...(request.stop == null ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop), ...context.template.stop],
    ignoreEos: request.ignore_eos ?? false,
    turnOpener: context.template.generationPrompt,
    skipSpecialTokens: request.skip_special_tokens ?? true,
    ...(request.seed != null ? { seed: request.seed } : {}),
    sampling: {
      temperature: request.temperature ?? 1,
      topP: request.top_p ?? 1,
      frequencyPenalty: request.frequency_penalty ?? 0,
      presencePenalty: request.presence_penalty ?? 0,
      logprobs: request.logprobs ?? false,
      topLogprobs: request.top_logprobs ?? 0,
      ...(request.logit_bias ? { logitBias: new Map(Object.entries(request.logit_bias).map(([k, v]) => [Number(k), v])) } : {}),
    },
    traceId,
  };
}

/** Compiles the request's output format, if it has one; a bad or too slow format is a 400 naming it. */
async function compileResponseFormat(request: ChatRequest, context: CompletionContext, completionId: string, tools: ToolSetup | undefined, think: ThinkStart): Promise<Uint8Array | undefined> {
  const spec = tools?.spec ?? grammarSpecOf(request.response_format);
  if (!spec) return undefined;
  const started = nowMicros();
  try {
    if (think === 'closed') return await context.engine.compileGrammar(spec);
    try {
      return await context.engine.compileGrammar(afterThinking(spec, think));
    } catch (error) {
      if (!(error instanceof GrammarCompileError)) throw error;
      // The error is reported against the request's own format, which this compiles (or throws for).
      await context.engine.compileGrammar(spec);
      throw error;
    }
  } catch (error) {
    if (!(error instanceof GrammarCompileError)) throw error;
    // No worker was free for it: nothing is wrong with the format, so the answer says retry.
    if (error.overloaded) throw new ApiError(503, error.message, 'server_error', null, 'server_is_overloaded');
    // The schemas were checked one by one; what is left is the tag as a whole (e.g. too slow).
    if (tools?.spec) throw badRequest(`The tools could not be compiled: ${error.message}`, 'tools', error.timedOut ? 'grammar_timeout' : 'invalid_grammar');
    const base = grammarErrorParam(spec, request.response_format!);
    const param = error.pointer && error.pointer !== '/' ? `${base}${error.pointer}` : base;
    throw badRequest(`Invalid response_format: ${error.message}`, param, error.timedOut ? 'grammar_timeout' : 'invalid_grammar');
  } finally {
    const micros = nowMicros() - started;
    context.tracer?.span(completionId, 'grammar compiled', started, micros, { kind: spec.kind });
    context.metrics.grammarCompileTime.observe(micros / 1e6);
  }
}

export async function completeChat(request: ChatRequest, res: ServerResponse, context: CompletionContext, completionId: string, meter: ChatMeter): Promise<void> {
  // Before anything per choice is built: n decides how much this request allocates.
  const { maxNumSequence } = context.engine.info.config;
  if ((request.n ?? 1) > maxNumSequence) {
    throw badRequest(`n=${request.n} is not possible: this server decodes at most ${maxNumSequence} sequences together (max_num_sequence).`, 'n');
  }
  const tools = toolSetupOf(request, context.tools.format);
  const generate = toGenerateRequest(request, context, completionId, tools);
  const think = thinkStartFor(generate, context);
  const grammar = await compileResponseFormat(request, context, completionId, tools, think);
  if (grammar) generate.grammar = grammar;
  const controller = new AbortController();
  // A client that goes away cancels its generation and frees its KV cells.
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const base = {
    id: completionId,
    created: Math.floor(Date.now() / 1000),
    model: context.modelId,
    system_fingerprint: context.fingerprint,
  };
  const n = generate.n ?? 1;
  const choices: ChoiceState[] = Array.from({ length: n }, (_, index) => ({
    text: '',
    logprobs: [],
    finish: undefined,
    completionTokens: 0,
    parser: toolParserFor(tools, completionId, index),
    splitter: think === 'closed' ? undefined : new ReasoningSplitter(think),
  }));
  const wantLogprobs = request.logprobs === true;
  const stream = request.stream === true;
  let promptTokens = 0;
  /** Prompt tokens served from the prefix cache (the choices share one prompt). */
  let cachedTokens = 0;
  let streaming = false;

  const startStream = () => {
    if (streaming) return;
    streaming = true;
    openEventStream(res);
    for (let index = 0; index < n; index++) {
      sendEvent(res, { ...base, object: 'chat.completion.chunk', choices: [{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
    }
  };

  try {
    for await (const event of context.engine.generate(generate, controller.signal)) {
      meter.observe(event);
      if (event.type === 'started') {
        promptTokens = event.promptTokens;
        context.tracer?.instant(completionId, 'tokenized', { prompt_tokens: promptTokens });
        if (stream) startStream();
      } else if (event.type === 'delta') {
        const choice = choices[event.choice]!;
        const logprobs = event.logprobs?.map(toOpenAiLogprob);
        if (choice.parser || choice.splitter) {
          // The same parsers build the whole message, so both forms come from the same deltas.
          const deltas = advance(choice, event.text);
          choice.text += event.text;
          if (stream) {
            if (deltas.length === 0 && logprobs) deltas.push({});
            deltas.forEach((delta, i) => {
              const pieceLogprobs = i === 0 && logprobs ? { content: logprobs } : null;
              sendEvent(res, { ...base, object: 'chat.completion.chunk', choices: [{ index: event.choice, delta, logprobs: pieceLogprobs, finish_reason: null }] });
            });
          } else if (logprobs) choice.logprobs.push(...logprobs);
        } else if (stream) {
          sendEvent(res, {
            ...base,
            object: 'chat.completion.chunk',
            choices: [{ index: event.choice, delta: { content: event.text }, logprobs: logprobs ? { content: logprobs } : null, finish_reason: null }],
          });
        } else {
          choice.text += event.text;
          if (logprobs) choice.logprobs.push(...logprobs);
        }
      } else if (event.type === 'finished') {
        const choice = choices[event.choice]!;
        choice.finish = event.reason;
        choice.completionTokens = event.completionTokens;
        cachedTokens = event.cachedTokens;
        const last = choice.parser || choice.splitter ? advance(choice, undefined) : [];
        if (stream) for (const delta of last) sendEvent(res, { ...base, object: 'chat.completion.chunk', choices: [{ index: event.choice, delta, logprobs: null, finish_reason: null }] });
        if (stream) sendEvent(res, { ...base, object: 'chat.completion.chunk', choices: [{ index: event.choice, delta: {}, logprobs: null, finish_reason: finishReason(choice) }] });
      }
    }
  } catch (error) {
    if (!(error instanceof EngineRequestError)) throw error;
    const apiError = engineErrorToApi(error.info);
    if (stream && streaming) {
      meter.choicesEnded(choices.map((choice) => (choice.finish ? finishReason(choice) : 'error')));
      sendEvent(res, apiError.toJSON());
      endEventStream(res);
      context.tracer?.instant(completionId, 'failed', { message: apiError.message });
      return;
    }
    const started = choices.some((choice) => choice.text !== '' || choice.completionTokens > 0);
    if (stream || !started || error.info.code !== 'internal_error') throw apiError;
    // Non-streamed output that failed part way: what was generated, marked as an error.
    for (const choice of choices) choice.finish ??= 'error';
  }
  if (controller.signal.aborted) {
    meter.choicesEnded(choices.map((choice) => (choice.finish ? finishReason(choice) : 'cancelled')));
    context.tracer?.instant(completionId, 'cancelled', {});
    return;
  }
  context.tracer?.instant(completionId, 'finished', {});
  meter.choicesEnded(choices.map(finishReason));
  const completionTokens = choices.reduce((sum, choice) => sum + choice.completionTokens, 0);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
  };
  if (stream) {
    if (request.stream_options?.include_usage) sendEvent(res, { ...base, object: 'chat.completion.chunk', choices: [], usage });
    endEventStream(res);
    return;
  }
  const body = JSON.stringify({
    ...base,
    object: 'chat.completion',
    choices: choices.map((choice, index) => ({
      index,
      message: messageOf(choice, context.tools.arguments),
      logprobs: wantLogprobs ? { content: choice.logprobs } : null,
      finish_reason: finishReason(choice),
    })),
    usage,
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** `tool_calls` when a choice that ended normally made calls. */
function finishReason(choice: ChoiceState): FinishReason | 'error' | 'tool_calls' {
  if (choice.finish === 'stop' && choice.parser && choice.parser.toolCalls.length > 0) return 'tool_calls';
  return choice.finish ?? 'error';
}

function messageOf(choice: ChoiceState, as: ToolCallArguments): object {
  const reasoning = choice.splitter ? { reasoning_content: choice.splitter.reasoning } : {};
  if (!choice.parser) return { role: 'assistant', content: choice.splitter ? choice.splitter.answer : choice.text, ...reasoning };
  // As OpenAI does, a call cut short is returned as far as it went, as the stream sent it; only
  // a JSON string can hold arguments that are not a whole object yet.
  const { content, toolCalls } = as === 'string' ? choice.parser.streamedMessage : choice.parser.message;
  return { role: 'assistant', content, ...reasoning, ...(toolCalls.length > 0 ? { tool_calls: toOpenAiToolCalls(toolCalls, as) } : {}) };
}

export function newCompletionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}
