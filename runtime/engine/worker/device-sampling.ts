// Sampling in the model's graph, on whatever device decodes (llama.cpp's backend sampling): each
// sequence that can sample there gets a sampler chain attached to its sequence id, and a decode
// returns only its chosen token; its logits row never reaches JavaScript. Everything else keeps
// the host path (sampling/token-sampler.ts): see hostOnlyReason.
//
// A grammar's mask is the chain's first link (backend/grammar-mask-sampler.ts): before each
// decode, setMasks uploads the sequence's current mask (the grammar's state after its last
// committed token), so the mask must be ready before the decode, not prepared during it. The
// grammar itself (accepting the committed token, ending when only an end is allowed) stays here.
//
// The chain follows TokenSampler's order and conventions: logit_bias → repetition penalty →
// frequency/presence penalties → temperature → top_k → top_p → min_p → a seeded draw, with every
// truncation at the request's temperature and temperature 0 as the argmax of the processed
// logits. The draw uses llama.cpp's RNG (mt19937), so a seed gives other text than on the host.
import type { SamplerApi, SamplerHandle } from '../../backend/sampler-api.js';
import { grammarMaskSamplerAt, type GrammarMaskSampler, type SamplerPointer } from '../../backend/grammar-mask-sampler.js';
import { LOGIT_BIAS_BYTES, LOGIT_BIAS_VALUE_OFFSET, RANDOM_SEED } from '../../backend/sampler-api.js';
import type { LlamaContext } from '../../backend/context.js';
import { SeededRng } from '../../sampling/seeded-rng.js';
import type { SamplingParams } from '../../sampling/sampling-params.js';
import type { StepEntry } from './scheduler.js';
import type { Sequence } from './sequence.js';

/** Makes a grammar mask link for a vocabulary of `vocabSize` tokens. */
export type GrammarMaskFactory = (vocabSize: number) => GrammarMaskSampler;

/**
 * Why a choice must sample on the host (its full logits row is read), or undefined when its chain
 * can run in the graph. `lengthLimit` bounds the penalties' window, which llama.cpp keeps as
 * tensors of at most a vocabulary's entries. `grammarOnDevice`: whether a grammar can be a link
 * of the chain (a mask link can be made).
 */
export function hostOnlyReason(params: Readonly<SamplingParams>, hasGrammar: boolean, lengthLimit: number, vocabSize: number, grammarOnDevice = false): string | undefined {
  if (hasGrammar && !grammarOnDevice) return 'a grammar mask';
  // llama.cpp's probabilities are those of the final draw (after temperature and truncation);
  // logprobs report the processed logits before them (token-sampler.ts).
  if (params.logprobs) return 'logprobs';
  if ((params.dryMultiplier ?? 0) > 0) return 'DRY';
  if ((params.typicalP ?? 1) < 1) return 'typical_p';
  if ((params.topNSigma ?? 0) > 0) return 'top_n_sigma';
  if ((params.xtcProbability ?? 0) > 0) return 'XTC';
  const penalised = params.frequencyPenalty !== 0 || params.presencePenalty !== 0 || (params.repetitionPenalty ?? 1) !== 1;
  if (penalised && lengthLimit > vocabSize) return 'a penalty window longer than the vocabulary';
  return undefined;
}

/** The chains of the sequences that sample in the graph, attached to their sequence ids as steps need them. */
export class DeviceSampling {
  /** Per sequence seen: its chain, or null when it samples on the host. */
  private readonly chains = new Map<Sequence, SamplerHandle | null>();
  /** Sequence id -> the sequence whose chain llama.cpp holds for it. */
  private readonly attached = new Map<number, Sequence>();
  /** Chains llama.cpp has bound to its graph once: attaching one again (after preemption) takes a clone. */
  private readonly bound = new Set<SamplerHandle>();
  /** The mask link of each constrained sequence's chain (its first link; owned by the chain). */
  private readonly masks = new Map<Sequence, GrammarMaskSampler>();

  constructor(
    private readonly api: SamplerApi,
    private readonly context: LlamaContext,
    /** Grammar mask links; without it, constrained sequences sample on the host. */
    private readonly createMask?: GrammarMaskFactory,
  ) {}

  /** Whether this sequence's tokens are chosen in the graph. */
  onDevice(sequence: Sequence): boolean {
    return this.chainOf(sequence) !== null;
  }

  /**
   * Before a decode: every entry that asks for logits has its chain attached to its sequence id,
   * or none when it samples on the host, and a constrained one's mask set from its grammar's
   * current state; chains of sequences that ended are freed. Each change makes llama.cpp
   * re-plan its graph, so chains stay attached between steps.
   */
  prepare(entries: readonly StepEntry[]): boolean[] {
    this.release();
    return entries.map(({ sequence, logits }) => {
      if (logits === 0) return false;
      let chain = this.chainOf(sequence);
      const holder = this.attached.get(sequence.slot);
      if (holder !== (chain ? sequence : undefined)) {
        if (chain && this.bound.has(chain)) chain = this.rebind(sequence, chain);
        if (!this.context.setSampler(sequence.slot, chain)) throw new Error(`llama.cpp could not sample sequence ${sequence.slot} in the graph`);
        if (chain) this.bound.add(chain);
        if (chain) this.attached.set(sequence.slot, sequence);
        else this.attached.delete(sequence.slot);
      }
      const mask = this.masks.get(sequence);
      // A request that failed (its grammar too, perhaps) is not sampled: its mask is left as it was.
      if (mask && !ended(sequence)) {
        const grammar = sequence.grammar!;
        grammar.refresh(); // a no-op unless the sequence is new since the engine refreshed masks
        mask.setMask(grammar.mask);
      }
      return chain !== null;
    });
  }

  /** Records a generated token in the sequence's chain (its penalties' windows). */
  accept(sequence: Sequence, token: number): void {
    const chain = this.chains.get(sequence);
    if (chain) this.api.llama_sampler_accept(chain, token);
  }

  /** Detaches and frees every chain. */
  dispose(): void {
    for (const slot of this.attached.keys()) this.context.setSampler(slot, null);
    this.attached.clear();
    for (const chain of this.chains.values()) if (chain) this.api.llama_sampler_free(chain);
    this.chains.clear();
    this.bound.clear();
    this.masks.clear();
  }

  /**
   * A chain binds to one graph once (llama.cpp asserts it): a sequence that comes back on
   * another id after preemption continues in a clone, which carries its penalties' windows and
   * its generator's position.
   */
  private rebind(sequence: Sequence, chain: SamplerHandle): SamplerHandle {
    const clone = this.api.llama_sampler_clone(chain);
    if (!clone) throw new Error('llama.cpp could not clone a sampler chain');
    this.bound.delete(chain);
    this.api.llama_sampler_free(chain);
    this.chains.set(sequence, clone);
    if (this.masks.has(sequence)) {
      // The clone has a clone of the mask link, at the same place: set masks through it now.
      const link = this.api.llama_sampler_chain_get(clone, 0);
      const mask = link && grammarMaskSamplerAt(link as unknown as SamplerPointer);
      if (!mask) throw new Error('a cloned sampler chain lost its grammar mask link');
      this.masks.set(sequence, mask);
    }
    return clone;
  }

  /** Detaches chains from ids their sequence left (finished, preempted), and frees those of ended sequences. */
  private release(): void {
    for (const [slot, sequence] of this.attached) {
      if (sequence.slot !== slot || ended(sequence)) {
        this.context.setSampler(slot, null);
        this.attached.delete(slot);
      }
    }
    for (const [sequence, chain] of this.chains) {
      if (!ended(sequence)) continue;
      if (chain) {
        this.bound.delete(chain);
        this.api.llama_sampler_free(chain);
      }
      this.chains.delete(sequence);
      this.masks.delete(sequence);
    }
  }

  private chainOf(sequence: Sequence): SamplerHandle | null {
    let chain = this.chains.get(sequence);
    if (chain === undefined) {
      const params = sequence.sampler.params;
      const state = sequence.request;
      const reason = hostOnlyReason(params, sequence.grammar !== undefined, state.lengthLimit, sequence.sampler.vocabSize, this.createMask !== undefined);
      chain = reason === undefined ? this.buildChain(sequence, params) : null;
      this.chains.set(sequence, chain);
    }
    return chain;
  }

  private buildChain(sequence: Sequence, params: Readonly<SamplingParams>): SamplerHandle {
    const api = this.api;
    const vocabSize = sequence.sampler.vocabSize;
    const lengthLimit = sequence.request.lengthLimit;
    const chain = api.llama_sampler_chain_init({ no_perf: true });
    if (!chain) throw new Error('llama.cpp could not create a sampler chain');
    const add = (stage: SamplerHandle) => api.llama_sampler_chain_add(chain, stage);
    if (sequence.grammar) {
      // First, as on the host (token-sampler.ts masks before temperature and truncation): no
      // stage before it turns a masked token's -inf into anything else.
      const mask = this.createMask!(vocabSize);
      add(mask.sampler as unknown as SamplerHandle);
      this.masks.set(sequence, mask);
    }
    if (params.logitBias && params.logitBias.size > 0) {
      const biases = Buffer.alloc(params.logitBias.size * LOGIT_BIAS_BYTES);
      let offset = 0;
      for (const [token, value] of params.logitBias) {
        biases.writeInt32LE(token, offset);
        biases.writeFloatLE(value, offset + LOGIT_BIAS_VALUE_OFFSET);
        offset += LOGIT_BIAS_BYTES;
      }
      add(api.llama_sampler_init_logit_bias(vocabSize, params.logitBias.size, biases));
    }
    // Two penalty stages, because their windows differ: the repetition penalty's covers the
    // prompt too (its last repeat_last_n tokens, -1: all), OpenAI's penalties only the output.
    // A window as long as the sequence can grow never drops a token.
    const repetition = params.repetitionPenalty ?? 1;
    const repeatLastN = params.repeatLastN ?? -1;
    if (repetition !== 1 && repeatLastN !== 0) {
      const stage = api.llama_sampler_init_penalties(vocabSize, repeatLastN < 0 ? lengthLimit : repeatLastN, repetition, 0, 0);
      // Before joining the chain, so that only this stage counts the prompt.
      for (let i = 0; i < sequence.promptLength; i++) api.llama_sampler_accept(stage, sequence.tokens[i]!);
      add(stage);
    }
    if (params.frequencyPenalty !== 0 || params.presencePenalty !== 0) {
      add(api.llama_sampler_init_penalties(vocabSize, lengthLimit, 1, params.frequencyPenalty, params.presencePenalty));
    }
    const invTemperature = 1 / params.temperature;
    if (params.temperature === 0 || !Number.isFinite(invTemperature)) {
      add(api.llama_sampler_init_greedy());
      return chain;
    }
    if (params.temperature !== 1) add(api.llama_sampler_init_temp(params.temperature));
    const minP = params.minP ?? 0;
    // ggml's min_p keeps logits strictly above max + ln p, which at p = 1 keeps nothing; the
    // host keeps the best token(s) then, as top_k 1 does.
    const topK = minP >= 1 ? 1 : Math.min(params.topK ?? 0, vocabSize);
    if (topK > 0) add(api.llama_sampler_init_top_k(topK));
    if (params.topP < 1) add(api.llama_sampler_init_top_p(params.topP, 1));
    if (minP > 0 && minP < 1) add(api.llama_sampler_init_min_p(minP, 1));
    add(api.llama_sampler_init_dist(deviceSeed(sequence)));
    return chain;
  }
}

function ended(sequence: Sequence): boolean {
  return sequence.finish !== undefined || sequence.request.failed || sequence.request.cancelled;
}

/** The draw's 32-bit seed: one per (seed, choice), as the host path's streams; random without a seed. */
function deviceSeed(sequence: Sequence): number {
  const seed = sequence.request.request.seed;
  if (seed === undefined) return RANDOM_SEED;
  const word = new SeededRng(seed, sequence.choice).nextUint32();
  // The one value llama.cpp reads as "pick a random seed".
  return word === RANDOM_SEED ? RANDOM_SEED - 1 : word;
}

