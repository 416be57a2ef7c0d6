// The Responses API's `truncation: "auto"`: a conversation whose prompt does not fit the context
// loses its oldest items until it does, as OpenAI's drops items from the beginning of the
// conversation. The instructions (system and developer messages) stay; the newest message always
// stays; a cut never leaves a tool result first, without the call it answers. When even the
// newest message alone does not fit, the request goes on with that and is refused as any prompt
// too long for the context is.
import type { EngineClient } from '../../engine/client/engine-client.js';
import { EngineRequestError } from '../../engine/client/engine.js';
import { lengthLimitOf } from '../../engine/engine-config.js';
import type { GenerateRequest } from '../../engine/protocol.js';
import type { ChatRequest } from './chat-request.js';

type Message = ChatRequest['messages'][number];

const isInstruction = (message: Message): boolean => message.role === 'system' || message.role === 'developer';

/**
 * The request with the fewest oldest messages dropped for its prompt (`render`) and its output
 * limit to fit the engine's context; the request itself when it fits. Found by bisection over
 * the places a cut may start at, one tokenization a try.
 */
export async function dropOldestToFit(request: ChatRequest, engine: EngineClient, render: (request: ChatRequest) => GenerateRequest): Promise<ChatRequest> {
  const limit = lengthLimitOf(engine.info.config);
  const fits = async (candidate: ChatRequest): Promise<boolean> => {
    const generate = render(candidate);
    if (typeof generate.prompt !== 'string') return true;
    try {
      const tokens = await engine.tokenize(generate.prompt, generate.addSpecial ?? true);
      return tokens.length + (generate.maxTokens ?? 1) <= limit;
    } catch (error) {
      if (error instanceof EngineRequestError && error.info.code === 'context_length_exceeded') return false;
      throw error;
    }
  };
  if (await fits(request)) return request;
  const dialogue = request.messages.filter((message) => !isInstruction(message));
  // Where what is kept may begin: never at a tool result (its call would be gone), never past the newest message.
  const cuts = dialogue.flatMap((message, i) => (i > 0 && message.role !== 'tool' ? [i] : []));
  const cutAt = (cut: number): ChatRequest => {
    const dropped = new Set(dialogue.slice(0, cut));
    return { ...request, messages: request.messages.filter((message) => !dropped.has(message)) };
  };
  if (cuts.length === 0) return request;
  // The fewest messages dropped that fit: cuts[low] is the first that does, if any does.
  let low = 0;
  let high = cuts.length - 1;
  if (!(await fits(cutAt(cuts[high]!)))) return cutAt(cuts[high]!);
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (await fits(cutAt(cuts[middle]!))) high = middle;
    else low = middle + 1;
  }
  return cutAt(cuts[low]!);
}
