// Runs a request to the end and gathers what each choice produced; compares engines' outputs.
import * as assert from 'uvu/assert';
import type { Engine } from '../../runtime/engine/client/engine.js';
import type { GenerateRequest, TokenLogprob } from '../../runtime/engine/protocol.js';
import { repetitivePrompt } from './test-random.js';

export interface ChoiceResult {
  text: string;
  /** Text of each delta (one per generated token when nothing is withheld). */
  pieces: string[];
  tokens: number[];
  logprobs: TokenLogprob[];
  reason: string | undefined;
  completionTokens: number;
  /** Prompt tokens the request took from the prefix cache. */
  cachedTokens: number;
  /** Draft tokens from the request's prediction, accepted and rejected (a request with a prediction). */
  prediction?: { accepted: number; rejected: number };
}

export async function runToEnd(engine: Engine, request: GenerateRequest, signal?: AbortSignal): Promise<{ promptTokens: number; choices: ChoiceResult[] }> {
  const choices: ChoiceResult[] = [];
  let promptTokens = -1;
  for await (const event of engine.generate(request, signal)) {
    if (event.type === 'started') promptTokens = event.promptTokens;
    if (event.type !== 'delta' && event.type !== 'finished') continue;
    const choice = (choices[event.choice] ??= { text: '', pieces: [], tokens: [], logprobs: [], reason: undefined, completionTokens: 0, cachedTokens: 0 });
    if (event.type === 'delta') {
      choice.text += event.text;
      choice.pieces.push(event.text);
      choice.tokens.push(...event.tokens);
      choice.logprobs.push(...(event.logprobs ?? []));
    } else {
      choice.reason = event.reason;
      choice.completionTokens = event.completionTokens;
      choice.cachedTokens = event.cachedTokens;
      if (event.prediction) choice.prediction = event.prediction;
    }
  }
  return { promptTokens, choices };
}

/** What a choice produced, for comparing two engines' outputs: tokens, text, finish reason, counts and the tokens its logprobs describe. */
export function outputOf(choice: ChoiceResult) {
  return { tokens: choice.tokens, text: choice.text, reason: choice.reason, completionTokens: choice.completionTokens, logprobTokens: choice.logprobs.map((entry) => entry.token) };
}

/** Runs the request on `plain` and on each of `others`, which must give plain's outputs; returns plain's choices. */
export async function assertSameAsPlain(plain: Engine, others: Record<string, Engine>, request: GenerateRequest, what: string): Promise<ChoiceResult[]> {
  const expected = await runToEnd(plain, request);
  for (const [name, engine] of Object.entries(others)) {
    const result = await runToEnd(engine, request);
    assert.equal(result.choices.map(outputOf), expected.choices.map(outputOf), `${what} (${name})`);
  }
  return expected.choices;
}

/** Draft tokens the engine has proposed and had accepted so far. */
export async function draftCounts(engine: Engine): Promise<{ proposed: number; accepted: number }> {
  const stats = await engine.stats();
  return { proposed: stats.draftTokens, accepted: stats.acceptedDraftTokens };
}

/** Compares one request across a speculative suite's engines (assertSameAsPlain, bound to them). */
export type SameOutputs = (request: GenerateRequest, what: string) => Promise<ChoiceResult[]>;

/**
 * The speculative suites' checks of every sampling feature: penalties with logprobs, a stop
 * string met inside the output, and n choices give plain decoding's outputs.
 */
export async function assertFeaturesAsPlain(same: SameOutputs, penalties: { frequencyPenalty?: number; presencePenalty?: number }): Promise<void> {
  for (let seed = 0; seed < 4; seed++) {
    const prompt = repetitivePrompt(200 + seed, 2, 6);
    await same({ prompt, maxTokens: 40, seed, sampling: { temperature: seed % 2 ? 0.5 : 0, ...penalties, logprobs: true, topLogprobs: 2 } }, `penalties, seed ${seed}`);
    const [free] = await same({ prompt, maxTokens: 40, sampling: { temperature: 0 } }, `free ${seed}`);
    const stop = free!.text.slice(Math.floor(free!.text.length / 2), Math.floor(free!.text.length / 2) + 3);
    if (stop.trim() !== '') await same({ prompt, maxTokens: 40, stop: [stop], sampling: { temperature: 0 } }, `stop ${JSON.stringify(stop)}`);
  }
  const choices = await same({ prompt: repetitivePrompt(250, 2, 5), n: 3, maxTokens: 32, seed: 5, sampling: { temperature: 0.4 } }, 'n = 3');
  assert.is(choices.length, 3);
}

/** Under a small JSON schema (compiled by `plain`), greedy and sampled outputs are plain decoding's. */
export async function assertGrammarAsPlain(plain: Engine, same: SameOutputs): Promise<void> {
  const schema = { type: 'object', properties: { name: { type: 'string', maxLength: 24 }, count: { type: 'integer' } }, required: ['name', 'count'], additionalProperties: false };
  const grammar = await plain.compileGrammar({ kind: 'json_schema', schema });
  for (let seed = 0; seed < 4; seed++) {
    const [choice] = await same({ prompt: repetitivePrompt(600 + seed, 2, 4), maxTokens: 60, seed, grammar, sampling: { temperature: seed % 2 ? 0.8 : 0 } }, `grammar, seed ${seed}`);
    if (choice!.reason === 'stop') assert.type(JSON.parse(choice!.text).count, 'number');
  }
}
