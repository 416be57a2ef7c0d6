// POST /v1/completions (OpenAI's legacy text completions): each prompt goes to the engine as it
// is, without a chat template (what a base model needs), n choices each; the answer is one
// response or a stream of chunks, both built from the same chunks (text-completion-chunks.ts).
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { chunkFrame } from '../completion-chunk.js';
import type { CompletionContext, CompletionEndpoint } from '../completion-context.js';
import { generateAll, type PromptRequest } from './generate-all.js';
import { addsBos, checkChoicesFit, generateFieldsOf } from '../generate-fields.js';
import { generationChunks } from '../generation.js';
import { compileOutputFormat } from '../output-format.js';
import type { RequestMeter } from '../../telemetry/request-meter.js';
import { requestedFormat } from '../requested-format.js';
import { nameById } from '../token-text.js';
import { abortWhenClosed, sendCompletion } from '../send-completion.js';
import { checkTokenIds } from '../token-ids.js';
import { TextCompletionChunks } from './text-completion-chunks.js';
import { parseTextCompletionRequest, promptParam, promptsOf, type TextCompletionRequest } from './text-completion-request.js';
import { TextCompletionResponse } from './text-completion-response.js';

/** OpenAI's default for the legacy endpoint (chat has none). */
const DEFAULT_MAX_TOKENS = 16;

export async function completeText(request: TextCompletionRequest, res: ServerResponse, context: CompletionContext, completionId: string, meter: RequestMeter): Promise<void> {
  const { info } = context.engine;
  const n = request.n ?? 1;
  checkChoicesFit(n, info);
  const prompts = promptsOf(request.prompt);
  prompts.forEach((prompt, i) => {
    if (typeof prompt !== 'string') checkTokenIds(prompt, promptParam(request.prompt, i), info.vocabSize);
  });
  const format = requestedFormat(request);
  const grammar = format && (await compileOutputFormat(context, completionId, { compiled: format.spec, reported: format.spec, source: format.source }));
  const echoes = request.echo ? await Promise.all(prompts.map((prompt) => (typeof prompt === 'string' ? prompt : context.engine.detokenize(prompt)))) : undefined;
  const logprobs = request.logprobs != null;
  const shared = generateFieldsOf(request, { maxTokens: request.max_tokens ?? DEFAULT_MAX_TOKENS, logprobs, topLogprobs: request.logprobs ?? 0, traceId: completionId });
  const requests = prompts.map((prompt, i): PromptRequest => ({
    generate: {
      prompt,
      ...(typeof prompt === 'string' ? { addSpecial: addsBos(prompt, info) } : {}),
      ...shared,
      ...(grammar ? { grammar } : {}),
      // The echoed prompt's tokens come with their logprobs too, as OpenAI's legacy endpoint gives them.
      ...(echoes && logprobs ? { promptLogprobs: true } : {}),
      // vLLM's prompt_logprobs, beside the echo's or alone: the engine lists the larger count, each list takes its own.
      ...(request.prompt_logprobs != null ? { promptLogprobs: true, promptTopLogprobs: Math.max(request.prompt_logprobs, echoes ? (request.logprobs ?? 0) : 0) } : {}),
    },
    param: promptParam(request.prompt, i),
  }));
  const signal = abortWhenClosed(res);
  const frame = chunkFrame(completionId, context);
  const chunks = generationChunks(generateAll(context.engine, requests, n, signal), new TextCompletionChunks(frame, { n, echoes, logprobs, topLogprobs: request.logprobs ?? 0, promptLogprobs: request.prompt_logprobs ?? undefined, prompts: prompts.length, ...(request.return_tokens_as_token_ids ? { name: nameById } : {}) }), {
    traceId: completionId,
    context,
    meter,
    signal,
    continuousUsage: request.stream === true && request.stream_options?.continuous_usage_stats === true,
  });
  await sendCompletion(res, chunks, {
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    obfuscate: request.stream_options?.include_obfuscation === true,
    fold: new TextCompletionResponse(frame, { choices: prompts.length * n, logprobs }),
    meter,
  });
}

export const textCompletions: CompletionEndpoint<TextCompletionRequest> = {
  parse: parseTextCompletionRequest,
  newId: () => `cmpl-${randomBytes(12).toString('hex')}`,
  complete: completeText,
  prompt: 'prompt',
};
