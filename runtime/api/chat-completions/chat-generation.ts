// A parsed chat request run on the engine, as the chunks of its answer: the conversation
// rendered, its tools or response_format compiled, and each engine event turned into
// `chat.completion.chunk`s. Chat completions send these chunks (chat-completions.ts); the
// Responses API turns the same chunks into its own output (../responses/).
import { afterThinking, ReasoningSplitter } from '../../chat-format/reasoning.js';
import { MarkupFilter } from '../../chat-format/answer-markup.js';
import type { ChatChoice } from './chat-choice.js';
import { ChatChunks, type ChatChunk } from './chat-chunks.js';
import type { RequestMeter } from '../../telemetry/request-meter.js';
import { thinkMarkersOf, thinkStartFor, toGenerateRequest } from './chat-prompt.js';
import type { ChatRequest } from './chat-request.js';
import type { ChatResponseOptions } from './chat-response.js';
import { chunkFrame, type ChunkFrame } from '../completion-chunk.js';
import type { CompletionContext } from '../completion-context.js';
import { checkChoicesFit } from '../generate-fields.js';
import { generationChunks } from '../generation.js';
import { compileOutputFormat } from '../output-format.js';
import { nameById, nameByText } from '../token-text.js';
import { requestedFormat } from '../requested-format.js';
import { callIsForced, toolParserFor, toolSetupOf } from './tool-calls.js';
import { dropOldestToFit } from './fit-conversation.js';

export interface ChatGeneration {
  /** The answer's chunks, the usage chunk last (generation.ts). */
  chunks: AsyncGenerator<ChatChunk>;
  /** The fields every chunk repeats. */
  frame: ChunkFrame;
  /** How a whole chat response folds these chunks (chat-response.ts). */
  foldOptions: ChatResponseOptions;
}

export interface ChatGenerationOptions {
  /** The Responses API's truncation "auto": the oldest messages dropped until the prompt fits (fit-conversation.ts). */
  dropOldestToFit?: boolean;
}

/** The context a chat request is rendered in: with tools, the model's tool_use template, when it has one to use. */
export function chatContextFor(request: Pick<ChatRequest, 'tools'>, serverContext: CompletionContext): CompletionContext {
  return request.tools?.length && serverContext.withTools ? { ...serverContext, ...serverContext.withTools } : serverContext;
}

/**
 * Throws before any chunk for what can be refused up front (a template that cannot render the
 * conversation, a format that does not compile, too many choices): still an HTTP error.
 */
export async function chatGeneration(request: ChatRequest, serverContext: CompletionContext, completionId: string, meter: RequestMeter, signal: AbortSignal, options: ChatGenerationOptions = {}): Promise<ChatGeneration> {
  const context = chatContextFor(request, serverContext);
  const n = request.n ?? 1;
  checkChoicesFit(n, context.engine.info);
  const format = requestedFormat(request);
  const answer = format?.spec;
  const tools = toolSetupOf(request, context.tools.format, format);
  const render = (chat: ChatRequest) => toGenerateRequest(chat, context, completionId, tools);
  const generate = render(options.dropOldestToFit ? await dropOldestToFit(request, context.engine, render) : request);
  const think = thinkStartFor(generate, context);
  const spec = tools?.spec ?? answer;
  if (answer && tools?.spec) {
    // Beside tools, the format is compiled alone first, so that a fault in it is named at
    // response_format, not at tools (the compiled artifact is cached: the next request's is free).
    await compileOutputFormat(context, completionId, { compiled: answer, reported: answer, source: format.source });
  }
  if (spec) {
    generate.grammar = await compileOutputFormat(context, completionId, {
      compiled: think === 'closed' ? spec : afterThinking(spec, think, thinkMarkersOf(context)),
      reported: spec,
      source: tools?.spec ? { field: 'tools' } : format!.source,
    });
  }
  const frame = chunkFrame(completionId, context);
  const callForced = callIsForced(tools);
  const choices = Array.from({ length: n }, (_, index): ChatChoice => ({
    finish: undefined,
    parser: toolParserFor(tools, completionId, index),
    splitter: think === 'closed' ? undefined : new ReasoningSplitter(think, thinkMarkersOf(context)),
    ...(context.tools.format.markup ? { markup: new MarkupFilter(context.tools.format.markup) } : {}),
    // Not under an output format: its language decides every byte, a leading space too; nor in
    // a continued message, where a space parts the continuation from the text before it.
    ...(context.template.dropsAnswerLeadingSpace && !spec && request.continue_final_message !== true ? { leadingSpace: true } : {}),
  }));
  const chunks = generationChunks(context.engine.generate(generate, signal), new ChatChunks(frame, choices, (token) => context.engine.info.tokenTexts[token] ?? '', callForced, request.return_tokens_as_token_ids ? nameById : nameByText), {
    traceId: completionId,
    context,
    meter,
    signal,
    continuousUsage: request.stream === true && request.stream_options?.continuous_usage_stats === true,
    withPrediction: generate.prediction !== undefined,
  });
  return {
    chunks,
    frame,
    foldOptions: { choices: n, logprobs: request.logprobs === true, reasoning: think !== 'closed', toolArguments: context.tools.arguments, callForced },
  };
}
