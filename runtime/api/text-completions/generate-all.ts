// Several engine requests (a batch of prompts) as one stream of events, in the order they
// happen. Prompt p's choice c becomes choice p × n + c; each request keeps its own id. When one
// fails, or the consumer stops, the others are cancelled, their KV cells freed.
import { EngineRequestError } from '../../engine/client/engine.js';
import type { EngineEvent, GenerateRequest } from '../../engine/protocol.js';
import type { EngineClient } from '../../engine/client/engine-client.js';

export interface PromptRequest {
  generate: GenerateRequest;
  /** How the request names this prompt (`prompt`, `prompt[2]`), for the engine's refusals of it. */
  param: string;
}

type Next = { source: number; result: IteratorResult<EngineEvent> } | { source: number; error: unknown };

export async function* generateAll(engine: EngineClient, requests: readonly PromptRequest[], n: number, signal: AbortSignal): AsyncGenerator<EngineEvent> {
  const cancel = new AbortController();
  const onAbort = () => cancel.abort();
  if (signal.aborted) cancel.abort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const streams = requests.map((request) => engine.generate(request.generate, cancel.signal));
  const next = (source: number): Promise<Next> =>
    streams[source]!.next().then(
      (result) => ({ source, result }),
      (error: unknown) => ({ source, error }),
    );
  const pending = new Map(streams.map((_, source) => [source, next(source)]));
  try {
    while (pending.size > 0) {
      const step = await Promise.race(pending.values());
      if ('error' in step) throw namedForPrompt(step.error, requests[step.source]!.param);
      if (step.result.done) {
        pending.delete(step.source);
        continue;
      }
      pending.set(step.source, next(step.source));
      const event = step.result.value;
      yield 'choice' in event ? { ...event, choice: step.source * n + event.choice } : event;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Not waiting for the others: each ends as soon as it sees its cancellation.
    cancel.abort();
  }
}

/** The engine's refusal of one prompt, naming that prompt. */
function namedForPrompt(error: unknown, param: string): unknown {
  if (!(error instanceof EngineRequestError) || error.info.param !== 'prompt') return error;
  return new EngineRequestError({ ...error.info, param });
}
