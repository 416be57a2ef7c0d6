// llama_decode in a plain JavaScript loop over the engine's batch shapes, through lmforge's
// bindings, with no sampling, no scheduling and no worker thread: against the same loop in C
// (decode-floor.c) it shows what the bindings cost (kernel parity), and the engine's distance
// from it what scheduling, sampling, detokenizing and messages cost.
import { performance } from 'node:perf_hooks';
import { Batch } from '../../runtime/backend/batch.js';
import { LlamaContext, type ContextOptions } from '../../runtime/backend/context.js';
import { parseDeviceSpec } from '../../runtime/backend/device-spec.js';
import { libraryKindsFor, listDevices, selectDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';

export interface DecodeRun {
  tokens: number;
  seconds: number;
}

function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

export class BareDecoder {
  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    private readonly batch: Batch,
  ) {}

  /** Loads the model on `device` (a --device spec, the CPU unless given) with a context shaped like the engine's (pass the engine's sizes). */
  static async create(modelPath: string, shape: ContextOptions, device = 'cpu'): Promise<BareDecoder> {
    const spec = parseDeviceSpec(device);
    const { api } = loadLlamaLibrary({ kinds: libraryKindsFor(spec) });
    const model = await LlamaModel.create(api, { path: modelPath, devices: selectDevices(listDevices(api), spec, 1) });
    const context = LlamaContext.create(model, shape);
    return new BareDecoder(model, context, new Batch(context.batchSize));
  }

  /** Bytes of weights, read once per decode step: what bounds decode speed at small widths. */
  get modelBytes(): number {
    return this.model.info.sizeBytes;
  }

  tokenize(text: string): number[] {
    return Array.from(this.model.vocabulary.tokenize(text, { addSpecial: false, parseSpecial: true }));
  }

  /**
   * The C floor's loop (decode-floor.c): prefills `prompt` into sequences 0..width-1, in as
   * many batches as they need (untimed), then times `steps` decode calls of one token per
   * sequence, each asking for its logits and fetching them as the engine does.
   */
  async decode(prompt: readonly number[], width: number, steps: number, most = 0): Promise<DecodeRun & { cpuSeconds: number }> {
    const { batch, context } = this;
    context.clear();
    batch.clear();
    for (let s = 0; s < width; s++) {
      if (batch.length + prompt.length > batch.capacity) {
        await context.decode(batch);
        batch.clear();
      }
      prompt.forEach((token, i) => batch.add(token, i, s, i === prompt.length - 1));
    }
    await context.decode(batch);
    // Any fixed token will do: nothing is sampled, the cost of a step does not depend on it.
    const token = prompt[prompt.length - 1]!;
    const start = performance.now();
    const cpuStart = cpuSeconds();
    // Each step in about equal batches of at most `most` tokens (0: one), as the C loop.
    const per = most > 0 ? Math.ceil(width / Math.ceil(width / most)) : width;
    for (let step = 0; step < steps; step++) {
      for (let first = 0; first < width; first += per) {
        const last = Math.min(first + per, width);
        batch.clear();
        for (let s = first; s < last; s++) batch.add(token, prompt.length + step, s, true);
        // On this thread, as the engine's worker decodes when it has nothing to overlap.
        context.decodeNow(batch);
        // One llama_get_logits a batch, as the engine (and the C loop) read them; none is read here.
        context.logits(last - first - 1, last - first);
      }
    }
    const seconds = (performance.now() - start) / 1000;
    const cpu = cpuSeconds() - cpuStart;
    context.clear();
    return { tokens: width * steps, seconds, cpuSeconds: cpu };
  }

  /**
   * The kernel work of serving `requests` requests of `promptLength` prompt tokens and
   * `outputLen` output tokens, `width` at a time, with nothing between the decodes: each wave
   * of `width` prompts is computed one prompt at a time (its last row gives the first token),
   * then the wave decodes its other tokens in steps of `width`. Token ids do not change the
   * cost; nothing is sampled. What a server spends beyond this is scheduling, sampling and
   * messages, or a worse schedule: a prompt token costs about the same in any batch from a few
   * dozen tokens up, and a decode token about the same at width 8 or 16, so packing or
   * staggering the same work differently changes its cost little.
   */
  workload(promptLength: number, requests: number, width: number, outputLen: number): DecodeRun {
    const { batch, context } = this;
    context.clear();
    const start = performance.now();
    for (let first = 0; first < requests; first += width) {
      const wave = Math.min(width, requests - first);
      for (let s = 0; s < wave; s++) {
        for (let from = 0; from < promptLength; from += context.batchSize) {
          batch.clear();
          const to = Math.min(promptLength, from + context.batchSize);
          for (let i = from; i < to; i++) batch.add(100 + ((i * 7 + first + s) % 500), i, s, i === promptLength - 1);
          context.decodeNow(batch);
        }
      }
      for (let step = 1; step < outputLen; step++) {
        batch.clear();
        for (let s = 0; s < wave; s++) batch.add(123, promptLength + step - 1, s, true);
        context.decodeNow(batch);
      }
      for (let s = 0; s < wave; s++) context.remove(s, 0, -1);
    }
    const seconds = (performance.now() - start) / 1000;
    context.clear();
    return { tokens: requests * outputLen, seconds };
  }

  async dispose(): Promise<void> {
    await this.context.dispose();
    this.batch.dispose();
    this.model.dispose();
  }
}
