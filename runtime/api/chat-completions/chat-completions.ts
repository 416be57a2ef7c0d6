// POST /v1/chat/completions: render the conversation, run it on the engine, answer as one
// ChatCompletionResponse or as a stream of chunks. Both are built from the same chunks
// (chat-chunks.ts): the stream sends them, the whole response folds them (chat-response.ts).
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterThinking, ReasoningSplitter } from '../../chat-format/reasoning.js';
import { MarkupFilter } from '../../chat-format/answer-markup.js';
import type { ChatChoice } from './chat-choice.js';
import { ChatChunks } from './chat-chunks.js';
import type { RequestMeter } from '../../telemetry/request-meter.js';
import { thinkMarkersOf, thinkStartFor, toGenerateRequest } from './chat-prompt.js';
import { parseChatRequest, type ChatRequest } from './chat-request.js';
import { ChatResponse } from './chat-response.js';
import { chunkFrame } from '../completion-chunk.js';
import type { CompletionContext, CompletionEndpoint } from '../completion-context.js';
import { checkChoicesFit } from '../generate-fields.js';
import { generationChunks } from '../generation.js';
import { compileOutputFormat } from '../output-format.js';
import { grammarErrorParam, grammarSpecOf } from '../response-format.js';
import { abortWhenClosed, sendCompletion } from '../send-completion.js';
import { callIsForced, toolParserFor, toolSetupOf } from './tool-calls.js';

export async function completeChat(request: ChatRequest, res: ServerResponse, serverContext: CompletionContext, completionId: string, meter: RequestMeter): Promise<void> {
  // A request with tools is written in the model's tool_use template, when it has one to use.
  const context = request.tools?.length && serverContext.withTools ? { ...serverContext, ...serverContext.withTools } : serverContext;
  const n = request.n ?? 1;
  checkChoicesFit(n, context.engine.info);
  const tools = toolSetupOf(request, context.tools.format);
  const generate = toGenerateRequest(request, context, completionId, tools);
  const think = thinkStartFor(generate, context);
  const spec = tools?.spec ?? grammarSpecOf(request.response_format);
  if (spec) {
    generate.grammar = await compileOutputFormat(context, completionId, {
      compiled: think === 'closed' ? spec : afterThinking(spec, think, thinkMarkersOf(context)),
      reported: spec,
      source: tools?.spec ? { field: 'tools' } : { field: 'response_format', paramAt: grammarErrorParam(spec, request.response_format!) },
    });
  }
  const signal = abortWhenClosed(res);
  const frame = chunkFrame(completionId, context);
  const callForced = callIsForced(tools);
  const choices = Array.from({ length: n }, (_, index): ChatChoice => ({
    finish: undefined,
    parser: toolParserFor(tools, completionId, index),
    splitter: think === 'closed' ? undefined : new ReasoningSplitter(think, thinkMarkersOf(context)),
    ...(context.tools.format.markup ? { markup: new MarkupFilter(context.tools.format.markup) } : {}),
    // Not under an output format: its language decides every byte, a leading space too.
    ...(context.template.dropsAnswerLeadingSpace && !spec ? { leadingSpace: true } : {}),
  }));
  const chunks = generationChunks(context.engine.generate(generate, signal), new ChatChunks(frame, choices, callForced), {
    traceId: completionId,
    context,
    meter,
    signal,
    continuousUsage: request.stream === true && request.stream_options?.continuous_usage_stats === true,
    withPrediction: generate.prediction !== undefined,
  });
  await sendCompletion(res, chunks, {
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    obfuscate: request.stream_options?.include_obfuscation === true,
    fold: new ChatResponse(frame, { choices: n, logprobs: request.logprobs === true, reasoning: think !== 'closed', toolArguments: context.tools.arguments, callForced }),
    meter,
  });
}

export const chatCompletions: CompletionEndpoint<ChatRequest> = {
  parse: parseChatRequest,
  newId: () => `chatcmpl-${randomBytes(12).toString('hex')}`,
  complete: completeChat,
  prompt: 'messages',
  maxTokensField: (request) => (request.max_tokens == null && request.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens'),
};
