// Sampling in the model's graph, on whatever device decodes (llama.cpp's backend sampling): each
// sequence that can sample there gets a sampler chain attached to its sequence id, and a decode
// returns only its chosen token (with its logprob and the top candidates' when the request asks:
// backend/sampled-outputs-sampler.ts); its logits row never reaches JavaScript. Everything else
// keeps the host path (sampling/token-sampler.ts): see hostOnlyReason.
//
// A token mask is the chain's first link (backend/grammar-mask-sampler.ts), for a sequence whose
// tokens a mask may hold back: its grammar's, allowed_token_ids, min_tokens' ban on the tokens
// that would end it, bad_words (Sequence.allowedMask combines them). Before each decode, prepare
// sets the sequence's current mask (after its last committed token), so the mask must be ready
// before the decode, not prepared during it. A mask that has lifted (min_tokens reached, no
// bad word begun) allows every token. The grammar itself (accepting the committed token, ending
// when only an end is allowed) stays here.
//
// A chain stays attached to its sequence id when its sequence leaves: giving llama.cpp a chain
// or taking one away makes it re-plan its graph from scratch (sched_reserve: a new scheduler,
// worst-case graphs built and measured, compute buffers allocated again), 2.5-3.3 ms on 2 CPU
// cores for SmolLM2 at 16-48 sequences, whereas an idle chain costs a step next to nothing
// (llama.cpp runs it on a dummy row: 48 idle chains beside 48 streams, +0-4%, within noise). The
// next sequence whose chain would be configured the same (the same links with the same
// settings: configurationKey) takes the attached chain over with llama_sampler_copy, which
// moves a fresh chain's state (the seed, the prompt in a repetition window) into it, and the
// graph stays as it was; the scheduler gives a new sequence a free id holding such a chain when
// there is one (rankSlot). Only another configuration, or a sequence that samples on the host,
// changes an id's chain.
//
// The step that attaches a chain re-plans anyway, so it also leaves an idle copy of that chain on
// every id holding none (spreadIdle): the finished requests' ids keep their cached prefixes for a
// while, so until the prefix cache is full each new request takes an id never used, and without
// the copies each of them re-planned the graph (on an H200, 128 requests over 64 running and 64
// recycling ids: one re-plan an arrival). Only chains whose idle copies upload nothing sizeable a
// step are copied so: not a token mask, penalties' windows or DRY's pairs.
//
// The chain follows TokenSampler's order and conventions: logit_bias → repetition penalty →
// frequency/presence penalties → DRY → temperature → top_n_sigma → top_k → typical_p → top_p →
// min_p → XTC → a seeded draw, with every truncation at the request's temperature and
// temperature 0 as the argmax of the processed logits. llama.cpp has DRY, top_n_sigma, typical_p
// and XTC only on the host: they are links of lmforge's own (backend/sparse-bias-sampler.ts for
// DRY's penalties, which the host lists each step from the tokens; backend/graph-truncation-
// sampler.ts for the rest). The draw uses llama.cpp's RNG (mt19937), so a seed gives other text
// than on the host.
import type { SamplerApi, SamplerHandle } from '../../backend/sampler-api.js';
import { grammarMaskSamplerAt, type GrammarMaskSampler, type SamplerPointer } from '../../backend/grammar-mask-sampler.js';
import { LOGIT_BIAS_BYTES, LOGIT_BIAS_VALUE_OFFSET, RANDOM_SEED } from '../../backend/sampler-api.js';
import type { LlamaContext } from '../../backend/context.js';
import { SeededRng } from '../../sampling/seeded-rng.js';
import { DRY_DEFAULTS, MAX_TOP_LOGPROBS, XTC_DEFAULT_THRESHOLD, type SamplingParams } from '../../sampling/sampling-params.js';
import type { SampledToken, TopLogprob } from '../../sampling/token-sampler.js';
import type { SampledOutputLinks } from '../../backend/sampled-outputs-sampler.js';
import type { GraphTruncationLinks } from '../../backend/graph-truncation-sampler.js';
import type { PenaltySource, SparseBiasLinks } from '../../backend/sparse-bias-sampler.js';
import { dryEnabled } from '../../sampling/token-sampler.js';
import type { StepEntry } from './scheduler.js';
import type { Sequence } from './sequence.js';

/** Makes a token mask link for a vocabulary of `vocabSize` tokens. */
export type TokenMaskFactory = (vocabSize: number) => GrammarMaskSampler;

/**
 * Why a choice must sample on the host (its full logits row is read), or undefined when its chain
 * can run in the graph: only a mask (`masked`: Sequence.masked) where no mask link can be made
 * (`masksOnDevice` false). Every sampling stage has a link; penalty windows of any length among
 * them (llama.cpp's link keeps the window's distinct tokens, at most a vocabulary of them,
 * whatever the window's length).
 */
export function hostOnlyReason(masked: boolean, masksOnDevice: boolean): string | undefined {
  return masked && !masksOnDevice ? 'a token mask' : undefined;
}

/** One link of a chain and the settings llama.cpp builds its part of the graph from (its state aside). */
type Link =
  | { kind: 'token_mask' }
  | { kind: 'logit_bias'; biases: [number, number][] }
  | { kind: 'dry'; capacity: number }
  | { kind: 'penalties'; window: number; repeat: number; frequency: number; presence: number; countsPrompt: boolean }
  | { kind: 'greedy' }
  | { kind: 'temp'; temperature: number }
  | { kind: 'top_n_sigma'; n: number }
  | { kind: 'top_k'; k: number }
  | { kind: 'typical'; p: number }
  | { kind: 'xtc'; probability: number; threshold: number }
  | { kind: 'top_p'; p: number }
  | { kind: 'min_p'; p: number }
  | { kind: 'dist' }
  | { kind: 'logprobs_tap' }
  | { kind: 'outputs'; topLogprobs: number | null };

/** The links of a sequence's chain, in order. */
export function chainLinks(params: Readonly<SamplingParams>, masked: boolean, lengthLimit: number, vocabSize: number): Link[] {
  const links: Link[] = [];
  // First, as on the host (token-sampler.ts masks before temperature and truncation): no
  // stage before it turns a masked token's -inf into anything else.
  if (masked) links.push({ kind: 'token_mask' });
  if (params.logitBias && params.logitBias.size > 0) links.push({ kind: 'logit_bias', biases: [...params.logitBias] });
  // Two penalty stages, because their windows differ: the repetition penalty's covers the
  // prompt too (its last repeat_last_n tokens, -1: all), OpenAI's penalties only the output.
  // A window as long as the sequence can grow never drops a token.
  const repetition = params.repetitionPenalty ?? 1;
  const repeatLastN = params.repeatLastN ?? -1;
  if (repetition !== 1 && repeatLastN !== 0) {
    links.push({ kind: 'penalties', window: repeatLastN < 0 ? lengthLimit : repeatLastN, repeat: repetition, frequency: 0, presence: 0, countsPrompt: true });
  }
  if (params.frequencyPenalty !== 0 || params.presencePenalty !== 0) {
    links.push({ kind: 'penalties', window: lengthLimit, repeat: 1, frequency: params.frequencyPenalty, presence: params.presencePenalty, countsPrompt: false });
  }
  // DRY's penalties follow from the tokens alone: the host lists them each step, the graph subtracts them.
  // No step penalises more tokens than the vocabulary has, or than its window holds (each
  // penalised token follows one of the window's tokens): the inputs go up whole every step.
  if (dryEnabled(params)) {
    const window = params.dryPenaltyLastN ?? DRY_DEFAULTS.penaltyLastN;
    links.push({ kind: 'dry', capacity: Math.min(vocabSize, window > 0 ? Math.min(window, lengthLimit) : lengthLimit) });
  }
  // Logprobs describe these logits, before temperature and truncation (token-sampler.ts).
  if (params.logprobs) links.push({ kind: 'logprobs_tap' });
  links.push(...drawLinks(params, vocabSize));
  // Last: only the token, and the logprobs asked for, come back (sampled-outputs-sampler.ts).
  links.push({ kind: 'outputs', topLogprobs: params.logprobs ? Math.min(Math.max(0, Math.floor(params.topLogprobs)), MAX_TOP_LOGPROBS, vocabSize) : null });
  return links;
}

/** The links that choose the token from the processed logits. */
function drawLinks(params: Readonly<SamplingParams>, vocabSize: number): Link[] {
  const invTemperature = 1 / params.temperature;
  if (params.temperature === 0 || !Number.isFinite(invTemperature)) return [{ kind: 'greedy' }];
  const links: Link[] = [];
  if (params.temperature !== 1) links.push({ kind: 'temp', temperature: params.temperature });
  const minP = params.minP ?? 0;
  // ggml's min_p keeps logits strictly above max + ln p, which at p = 1 keeps nothing; the
  // host keeps the best token(s) then, as top_k 1 does.
  const topK = minP >= 1 ? 1 : Math.min(params.topK ?? 0, vocabSize);
  // Before top_k, as on the host: σ is taken over every allowed token.
  if ((params.topNSigma ?? 0) > 0) links.push({ kind: 'top_n_sigma', n: params.topNSigma! });
  if (topK > 0) links.push({ kind: 'top_k', k: topK });
  if ((params.typicalP ?? 1) < 1) links.push({ kind: 'typical', p: params.typicalP! });
  if (params.topP < 1) links.push({ kind: 'top_p', p: params.topP });
  if (minP > 0 && minP < 1) links.push({ kind: 'min_p', p: minP });
  if ((params.xtcProbability ?? 0) > 0) links.push({ kind: 'xtc', probability: params.xtcProbability!, threshold: params.xtcThreshold ?? XTC_DEFAULT_THRESHOLD });
  links.push({ kind: 'dist' });
  return links;
}

/**
 * Whether idle copies of a chain with these links cost a step next to nothing: none uploads more
 * than a few bytes a step (a grammar's mask, a penalty window's ids and counts, and DRY's pairs do).
 */
export function idleCopiesAreCheap(links: readonly Link[]): boolean {
  return links.every(({ kind }) => kind !== 'token_mask' && kind !== 'penalties' && kind !== 'dry');
}

/** What two chains must share for one to take over the other's place in the graph. */
export function configurationKey(links: readonly Link[]): string {
  return JSON.stringify(links);
}

/** The links of lmforge's own that chains are made of (custom-sampler.ts). */
export interface DeviceLinks {
  outputs: SampledOutputLinks;
  truncations: GraphTruncationLinks;
  sparseBias: SparseBiasLinks;
}

/** A chain and its mask link (the first, for a masked sequence's configuration). */
interface Chain {
  chain: SamplerHandle;
  mask: GrammarMaskSampler | undefined;
}

/** A chain attached to a sequence id. It stays there when its sequence leaves, for the next of its configuration. */
interface AttachedChain extends Chain {
  key: string;
  /** The sequence it samples for now; undefined while idle. */
  owner: Sequence | undefined;
}

/** The chains of the sequences that sample in the graph, attached to sequence ids as steps need them. */
export class DeviceSampling {
  /** By sequence id: the chain llama.cpp holds for it. */
  private readonly attached = new Map<number, AttachedChain>();
  /** Per sequence seen: its chain's configuration key, or null when it samples on the host. */
  private readonly keys = new Map<Sequence, string | null>();
  /** Preempted sequences' chains (penalty windows, generator position), cloned as they left their ids. */
  private readonly parked = new Map<Sequence, Chain>();
  /** Steps whose decode re-planned llama.cpp's graph: a chain was given to it or taken from it (any number in one step). */
  replans = 0;
  /** Whether this step's prepare changed a chain (llama.cpp re-plans once, at the next decode). */
  private changed = false;

  constructor(
    private readonly api: SamplerApi,
    private readonly context: LlamaContext,
    /** lmforge's own links: every chain's last (and the tap logprobs need), and the stages llama.cpp lacks in the graph. */
    private readonly links: DeviceLinks,
    /** Sequence ids the context has (running and recycling): where idle copies may wait. */
    private readonly slotCount: number,
    /** Token mask links; without it, masked sequences sample on the host. */
    private readonly createMask?: TokenMaskFactory,
  ) {}

  /** Whether this sequence's tokens are chosen in the graph. */
  onDevice(sequence: Sequence): boolean {
    return this.keyOf(sequence) !== null;
  }

  /**
   * How well free sequence id `slot` suits `sequence`: an id holding a chain of its
   * configuration (taken over, nothing re-planned), then one holding none, then one holding
   * another's (to be replaced, or, for a sequence sampled on the host, taken away).
   */
  rankSlot(sequence: Sequence, slot: number): number {
    const held = this.attached.get(slot);
    if (!held) return 1;
    return held.key === this.keyOf(sequence) ? 2 : 0;
  }

  /**
   * Before a decode: every entry that asks for logits has its chain attached to its sequence
   * id, or none when it samples on the host, and a masked one's mask set from its current
   * state (its grammar's, its tokens so far).
   */
  prepare(entries: readonly StepEntry[]): boolean[] {
    this.release();
    this.changed = false;
    const onDevice = entries.map(({ sequence, logits, promptRows }) => {
      if (logits === 0) return false;
      // Rows that score a prompt are read on the host, and llama.cpp samples one row a sequence.
      const key = promptRows > 0 ? null : this.keyOf(sequence);
      let held = this.attached.get(sequence.slot);
      if (key === null) {
        if (held) this.detach(sequence.slot, held);
        return false;
      }
      if (held?.owner !== sequence) held = this.takeOver(sequence, key, held);
      // A request that failed (its grammar too, perhaps) is not sampled: its mask is left as it was.
      if (held.mask && !ended(sequence)) {
        sequence.grammar?.refresh(); // a no-op unless the sequence is new since the engine refreshed masks
        held.mask.setMask(sequence.allowedMask() ?? null);
      }
      return true;
    });
    if (this.changed) this.replans++;
    return onDevice;
  }

  /**
   * Throws when the token the graph chose for `sequence` cannot be trusted: one of its chain's
   * links of lmforge's own failed in a hook (at a graph build, the graph lacks that stage; at
   * an input, a step's values went missing).
   */
  verify(sequence: Sequence): void {
    const truncation = this.links.truncations.failure();
    const bias = this.links.sparseBias.failure();
    if (!truncation && !bias) return;
    for (const link of this.linksOf(sequence)) {
      if (truncation && (link.kind === 'top_n_sigma' || link.kind === 'typical' || link.kind === 'xtc')) {
        throw new Error(`a truncation link failed in llama.cpp's sampling graph: ${truncation.message}`, { cause: truncation });
      }
      if (bias && link.kind === 'dry') throw new Error(`the DRY link failed in llama.cpp's sampling graph: ${bias.message}`, { cause: bias });
    }
  }

  /** Records a generated token in the sequence's chain (its penalties' windows). */
  accept(sequence: Sequence, token: number): void {
    const held = this.attached.get(sequence.slot);
    if (held?.owner === sequence) this.api.llama_sampler_accept(held.chain, token);
  }

  /** Detaches and frees every chain. */
  dispose(): void {
    for (const [slot, held] of this.attached) this.detach(slot, held);
    for (const { chain } of this.parked.values()) this.api.llama_sampler_free(chain);
    this.parked.clear();
    this.keys.clear();
  }

  /**
   * `sequence` starts sampling on its id: the id's chain takes its state when configured alike;
   * otherwise its own chain (new, or the one it parked) replaces the id's.
   */
  private takeOver(sequence: Sequence, key: string, held: AttachedChain | undefined): AttachedChain {
    const own = this.parked.get(sequence) ?? this.buildChain(sequence);
    this.parked.delete(sequence);
    if (held && held.key === key) {
      this.api.llama_sampler_copy(own.chain, held.chain);
      this.api.llama_sampler_free(own.chain);
      held.owner = sequence;
      return held;
    }
    if (!this.context.setSampler(sequence.slot, own.chain)) {
      this.api.llama_sampler_free(own.chain);
      throw new Error(`llama.cpp could not sample sequence ${sequence.slot} in the graph`);
    }
    this.changed = true;
    if (held) this.api.llama_sampler_free(held.chain);
    const attached = { ...own, key, owner: sequence };
    this.attached.set(sequence.slot, attached);
    if (idleCopiesAreCheap(this.linksOf(sequence))) this.spreadIdle(attached);
    return attached;
  }

  /** An idle copy of `chain` on every id that holds no chain, for later sequences configured alike. */
  private spreadIdle(chain: AttachedChain): void {
    for (let slot = 0; slot < this.slotCount; slot++) {
      if (this.attached.has(slot)) continue;
      const copy = this.cloneOf(chain);
      if (!this.context.setSampler(slot, copy.chain)) {
        this.api.llama_sampler_free(copy.chain);
        return;
      }
      this.attached.set(slot, { ...copy, key: chain.key, owner: undefined });
    }
  }

  private detach(slot: number, held: AttachedChain): void {
    this.context.setSampler(slot, null);
    this.changed = true;
    this.api.llama_sampler_free(held.chain);
    this.attached.delete(slot);
  }

  /**
   * Chains whose sequence left their id go idle. One that left unfinished (preempted) keeps its
   * state in a clone for the id it comes back on; those of sequences that ended are dropped.
   */
  private release(): void {
    for (const [slot, held] of this.attached) {
      const owner = held.owner;
      if (!owner || (owner.slot === slot && !ended(owner))) continue;
      if (!ended(owner)) this.parked.set(owner, this.cloneOf(held));
      held.owner = undefined;
    }
    for (const [sequence, { chain }] of this.parked) {
      if (!ended(sequence)) continue;
      this.api.llama_sampler_free(chain);
      this.parked.delete(sequence);
    }
    for (const sequence of this.keys.keys()) if (ended(sequence)) this.keys.delete(sequence);
  }

  /** An unattached copy of a chain with its state (a mask link's clone is the clone's first link). */
  private cloneOf({ chain, mask }: Chain): Chain {
    const clone = this.api.llama_sampler_clone(chain);
    if (!clone) throw new Error('llama.cpp could not clone a sampler chain');
    if (!mask) return { chain: clone, mask: undefined };
    const link = this.api.llama_sampler_chain_get(clone, 0);
    const cloned = link && grammarMaskSamplerAt(link as unknown as SamplerPointer);
    if (!cloned) throw new Error('a cloned sampler chain lost its grammar mask link');
    return { chain: clone, mask: cloned };
  }

  private keyOf(sequence: Sequence): string | null {
    let key = this.keys.get(sequence);
    if (key === undefined) {
      const reason = hostOnlyReason(sequence.masked, this.createMask !== undefined);
      key = reason === undefined ? configurationKey(this.linksOf(sequence)) : null;
      this.keys.set(sequence, key);
    }
    return key;
  }

  private linksOf(sequence: Sequence): Link[] {
    return chainLinks(sequence.sampler.params, sequence.masked, sequence.request.lengthLimit, sequence.sampler.vocabSize);
  }

  /** A new, unattached chain for the sequence: its links, the prompt in a repetition window, its seed. */
  private buildChain(sequence: Sequence): Chain {
    const api = this.api;
    const vocabSize = sequence.sampler.vocabSize;
    const chain = api.llama_sampler_chain_init({ no_perf: true });
    if (!chain) throw new Error('llama.cpp could not create a sampler chain');
    const add = (stage: SamplerHandle) => api.llama_sampler_chain_add(chain, stage);
    // lmforge's own links come as addresses (koffi's view of a llama_sampler *); the chain takes handles.
    const addOwn = (link: SamplerPointer) => add(link as unknown as SamplerHandle);
    let mask: GrammarMaskSampler | undefined;
    const randomness = deviceRandomness(sequence);
    for (const link of this.linksOf(sequence)) {
      switch (link.kind) {
        case 'token_mask':
          mask = this.createMask!(vocabSize);
          addOwn(mask.sampler);
          break;
        case 'logit_bias': {
          const biases = Buffer.alloc(link.biases.length * LOGIT_BIAS_BYTES);
          link.biases.forEach(([token, value], i) => {
            biases.writeInt32LE(token, i * LOGIT_BIAS_BYTES);
            biases.writeFloatLE(value, i * LOGIT_BIAS_BYTES + LOGIT_BIAS_VALUE_OFFSET);
          });
          add(api.llama_sampler_init_logit_bias(vocabSize, link.biases.length, biases));
          break;
        }
        case 'penalties': {
          const stage = api.llama_sampler_init_penalties(vocabSize, link.window, link.repeat, link.frequency, link.presence);
          // Before joining the chain, so that only this stage counts the prompt.
          if (link.countsPrompt) for (let i = 0; i < sequence.promptLength; i++) api.llama_sampler_accept(stage, sequence.tokens[i]!);
          add(stage);
          break;
        }
        case 'dry':
          addOwn(this.links.sparseBias.create(dryPenaltiesOf(sequence), link.capacity, vocabSize));
          break;
        case 'greedy':
          add(api.llama_sampler_init_greedy());
          break;
        case 'temp':
          add(api.llama_sampler_init_temp(link.temperature));
          break;
        case 'top_n_sigma':
          addOwn(this.links.truncations.topNSigma(link.n));
          break;
        case 'top_k':
          add(api.llama_sampler_init_top_k(link.k));
          break;
        case 'typical':
          addOwn(this.links.truncations.typical(link.p));
          break;
        case 'xtc':
          addOwn(this.links.truncations.xtc(link.probability, link.threshold, randomness.xtc()));
          break;
        case 'top_p':
          add(api.llama_sampler_init_top_p(link.p, 1));
          break;
        case 'min_p':
          add(api.llama_sampler_init_min_p(link.p, 1));
          break;
        case 'dist':
          add(api.llama_sampler_init_dist(randomness.drawSeed));
          break;
        case 'logprobs_tap':
          addOwn(this.links.outputs.tap());
          break;
        case 'outputs':
          addOwn(this.links.outputs.outputs(link.topLogprobs));
          break;
      }
    }
    return { chain, mask };
  }
}

function ended(sequence: Sequence): boolean {
  return sequence.finish !== undefined || sequence.request.failed || sequence.request.cancelled;
}

/**
 * The draw's 32-bit seed and XTC's chances, from one stream per (seed, choice) as on the host
 * path: its first word seeds the draw, XTC reads on from there, so a seed repeats both; random
 * without a seed (the OS's entropy for XTC, opened only for a chain with an XTC link).
 */
function deviceRandomness(sequence: Sequence): { drawSeed: number; xtc: () => SeededRng } {
  const seed = sequence.request.request.seed;
  if (seed === undefined) return { drawSeed: RANDOM_SEED, xtc: () => SeededRng.fromEntropy() };
  const rng = new SeededRng(seed, sequence.choice);
  const word = rng.nextUint32();
  // RANDOM_SEED is the one value llama.cpp reads as "pick a random seed".
  return { drawSeed: word === RANDOM_SEED ? RANDOM_SEED - 1 : word, xtc: () => rng };
}

/** DRY's penalties for `sequence`'s next token, listed before each step; none once it has ended (its chain then idles). */
function dryPenaltiesOf(sequence: Sequence): PenaltySource {
  return (emit) => {
    if (!ended(sequence)) sequence.sampler.dryPenalties(sequence.tokens, sequence.tokens.length, emit);
  };
}

/**
 * The token the graph chose for batch token `index` of the last decode, with the logprobs its
 * chain's outputs link computed when the request asked for them (`logprobs`), ordered as the
 * host orders them (descending, ties to the lower id; tokens a mask excluded left out).
 */
export function graphSample(context: LlamaContext, index: number, logprobs: boolean): SampledToken {
  const token = context.sampledToken(index);
  if (!logprobs) return { token };
  const computed = context.sampledLogprobs(index);
  // Never a made-up logprob: a chain that returned none fails its request.
  if (!computed) throw new Error(`the graph returned no logprobs for batch token ${index}, whose request asked for them`);
  const [logprob, ...top] = computed.values;
  const topLogprobs: TopLogprob[] = [];
  top.forEach((value, i) => {
    if (value > -Infinity) topLogprobs.push({ token: computed.ids[i]!, logprob: value });
  });
  topLogprobs.sort((a, b) => b.logprob - a.logprob || a.token - b.token);
  return { token, logprob: logprob!, topLogprobs };
}
