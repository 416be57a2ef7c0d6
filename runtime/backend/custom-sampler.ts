// Samplers of lmforge's own in llama.cpp's sampler chains (llama_sampler_i, llama.h), written in
// JavaScript: koffi turns each hook into a C function pointer, and llama.cpp calls them from
// llama_decode (graph build, inputs) and from llama_sampler_sample / _apply (host path). Each
// kind (the grammar mask, the sampled-outputs link) registers its hooks once per process
// (koffi's callback slots are few) and keeps every live sampler's state in a table, found by the
// id the sampler's C struct carries as its context pointer.
//
//   const kind = defineCustomSampler<MyState>(library.path, 'my-link', (ggml) => hooks);
//   const pointer = kind.create(state);            // a llama_sampler *; a chain that adds it owns it
//   kind.stateAt(pointer)                          // the state, for a clone llama.cpp made too
//
// Threads: a decode on this thread (LlamaContext.decodeNow) runs the hooks directly; one on a
// koffi worker (decode()) has koffi queue each call to this thread, which must then stay free
// until the decode ends.
import koffi from 'koffi';
import { ggmlApiFor, type GgmlApi, type GgmlBufferType, type GgmlContext, type GgmlGraph, type GgmlTensor } from './ggml-api.js';

/** A struct llama_sampler *, as koffi gives pointers: its address. */
export type SamplerPointer = bigint;

/** struct llama_sampler_data: the chain's tensors, which each link's backend_apply reads and replaces. */
export interface SamplerData {
  logits: GgmlTensor | null;
  probs: GgmlTensor | null;
  sampled: GgmlTensor | null;
  candidates: GgmlTensor | null;
}

/** The host path's llama_token_data_array, as views over its entries (id, logit, p per token). */
export interface TokenDataView {
  /** Entry i's token id is ids[i * 3]. */
  ids: Int32Array;
  /** Entry i's logit is logits[i * 3 + 1] (and its probability logits[i * 3 + 2]). */
  logits: Float32Array;
}
/** sizeof(llama_token_data) in 4-byte words: int32 id, float logit, float p. */
export const TOKEN_DATA_WORDS = 3;

/** What a kind does at each of llama.cpp's calls; `state` is the sampler's own. */
export interface CustomSamplerHooks<S> {
  /** The host path. `failed`: a hook threw before this call could finish it: fail closed. */
  apply(state: S, entries: TokenDataView, failed: boolean): void;
  /**
   * Whether the link runs in the graph on buffers of `buft`, with up to `outputsPerSequence` rows
   * a sequence a step. Unlike llama.cpp's own links, lmforge's do not probe the device for each
   * op: ggml's scheduler runs an op the device lacks on the CPU (slower, the same result), where
   * false would hand the link to its host apply, which fails closed (allowNothingOnHost).
   */
  backendInit(state: S, buft: GgmlBufferType, outputsPerSequence: number): boolean;
  /** Adds the link's operations to the graph; `set` replaces a field of the chain's data. */
  backendApply(state: S, ctx: GgmlContext, graph: GgmlGraph, data: SamplerData, set: (field: keyof SamplerData, tensor: GgmlTensor | null) => void): void;
  /** Before each graph computation: the link's input tensors get their values. */
  backendSetInput?(state: S): void;
  /** llama.cpp builds a new graph: the tensors of the old one are gone. */
  backendReset?(state: S): void;
  /** A new state, a copy of `state` (llama_sampler_clone). */
  clone(state: S): S;
  /** Moves `source`'s mutable state into `target`, which keeps its place in the graph (llama_sampler_copy). */
  copyState(source: S, target: S): void;
  /** The sampler is freed (by its chain, or llama_sampler_free). */
  free(state: S): void;
  /**
   * A hook threw (koffi gave llama.cpp a zero instead), for a kind whose states keep their own
   * failures; every kind also keeps its first one (CustomSamplerKind.failure).
   */
  fail?(state: S, error: Error): void;
}

/**
 * The host-path apply of a link that only runs in the graph (the engine never samples its
 * chains on the host): it fails closed, allowing no token, rather than let one through without
 * the link's work.
 */
export function allowNothingOnHost(_state: unknown, { logits }: TokenDataView): void {
  for (let i = 1; i < logits.length; i += TOKEN_DATA_WORDS) logits[i] = -Infinity;
}

export interface CustomSamplerKind<S> {
  readonly ggml: GgmlApi;
  /** A new llama_sampler with this state. */
  create(state: S): SamplerPointer;
  /** The state behind `sampler` (one this kind made, or llama.cpp cloned from one); undefined for any other sampler. */
  stateAt(sampler: SamplerPointer): S | undefined;
  /** The first error a hook of this kind threw in this process, if any: sticky, as a graph llama.cpp reuses may lack the link's work. */
  failure(): Error | undefined;
}

// llama_sampler_i (llama.h), every member a function pointer; its address goes to
// llama_sampler_init, which keeps it, so it lives as long as the process.
const SamplerInterface = koffi.struct({
  name: 'void *',
  accept: 'void *',
  apply: 'void *',
  reset: 'void *',
  clone: 'void *',
  free: 'void *',
  backend_init: 'void *',
  backend_accept: 'void *',
  backend_apply: 'void *',
  backend_set_input: 'void *',
  backend_reset: 'void *',
  copy_state: 'void *',
});
// struct llama_sampler: the interface and the context pointer, which carries a state's id here.
const SamplerHeader = koffi.struct({ iface: 'void *', ctx: 'intptr_t' });
const SamplerDataStruct = koffi.struct({ logits: 'ggml_tensor *', probs: 'ggml_tensor *', sampled: 'ggml_tensor *', candidates: 'ggml_tensor *' });
const SAMPLER_DATA_OFFSETS: Record<keyof SamplerData, number> = { logits: 0, probs: 8, sampled: 16, candidates: 24 };
const TokenDataArray = koffi.struct({ data: 'void *', size: 'size_t', selected: 'int64_t', sorted: 'bool' });

// The hooks' C types, named once per process.
const Signatures = {
  name: koffi.proto('void *lmforge_sampler_name(void *smpl)'),
  apply: koffi.proto('void lmforge_sampler_apply(void *smpl, void *cur_p)'),
  clone: koffi.proto('void *lmforge_sampler_clone(void *smpl)'),
  free: koffi.proto('void lmforge_sampler_free(void *smpl)'),
  backendInit: koffi.proto('bool lmforge_sampler_backend_init(void *smpl, ggml_backend_buffer_type *buft, uint32_t n_outputs_max_per_seq)'),
  backendApply: koffi.proto('void lmforge_sampler_backend_apply(void *smpl, ggml_context *ctx, ggml_cgraph *gf, void *data)'),
  backendSetInput: koffi.proto('void lmforge_sampler_backend_set_input(void *smpl)'),
  backendReset: koffi.proto('void lmforge_sampler_backend_reset(void *smpl)'),
  copyState: koffi.proto('void lmforge_sampler_copy_state(void *src, void *dst)'),
};

const kinds = new Map<string, { path: string; kind: CustomSamplerKind<never> }>();

/** The kind named `name` on the libllama at `libllamaPath`, its hooks registered on first use. */
export function defineCustomSampler<S>(libllamaPath: string, name: string, hooksFor: (ggml: GgmlApi) => CustomSamplerHooks<S>): CustomSamplerKind<S> {
  const known = kinds.get(name);
  if (known) {
    if (known.path !== libllamaPath) throw new Error(`${name} samplers are bound to ${known.path}, not ${libllamaPath}`);
    return known.kind as unknown as CustomSamplerKind<S>;
  }
  const kind = register(libllamaPath, name, hooksFor);
  kinds.set(name, { path: libllamaPath, kind: kind as unknown as CustomSamplerKind<never> });
  return kind;
}

function register<S>(libllamaPath: string, name: string, hooksFor: (ggml: GgmlApi) => CustomSamplerHooks<S>): CustomSamplerKind<S> {
  const ggml = ggmlApiFor(libllamaPath);
  const hooks = hooksFor(ggml);
  const samplerInit = koffi.load(libllamaPath).func('void *llama_sampler_init(void *iface, intptr_t ctx)') as (iface: bigint, ctx: number) => SamplerPointer | null;
  const states = new Map<number, S>();
  let nextId = 1;
  const idOf = (sampler: bigint): number => Number((koffi.decode(sampler, SamplerHeader) as { ctx: number | bigint }).ctx);
  const stateOf = (sampler: bigint): S => {
    const state = states.get(idOf(sampler));
    if (state === undefined) throw new Error(`llama.cpp called a ${name} sampler that no longer exists (id ${idOf(sampler)})`);
    return state;
  };
  const create = (state: S): SamplerPointer => {
    const id = nextId++;
    states.set(id, state);
    const pointer = samplerInit(iface, id);
    if (!pointer) {
      states.delete(id);
      throw new Error('llama_sampler_init failed');
    }
    return pointer;
  };
  // koffi hands C a zero for a callback that throws: say so on stderr, keep the kind's first
  // error, and give it to the state too where the kind wants it.
  let firstFailure: Error | undefined;
  const guarded = <A extends [bigint, ...unknown[]], R>(hook: string, fn: (...args: A) => R, onError: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return fn(...args);
      } catch (error) {
        process.stderr.write(`lmforge: ${name} sampler ${hook} failed: ${(error as Error).stack ?? error}\n`);
        firstFailure ??= error as Error;
        if (hooks.fail) {
          const state = states.get(idOf(args[0]));
          if (state !== undefined) hooks.fail(state, error as Error);
        }
        return onError(...args);
      }
    };
  const registered = (signature: ReturnType<typeof koffi.proto>, fn: (...args: never[]) => unknown): bigint => koffi.register(fn, koffi.pointer(signature)) as bigint;
  const nameBytes = Buffer.byteLength(name) + 1;
  const namePointer = koffi.alloc('char', nameBytes) as bigint;
  koffi.encode(namePointer, koffi.array('char', nameBytes, 'String'), name);

  const apply = (sampler: bigint, candidates: bigint, failed: boolean): void => {
    const state = stateOf(sampler);
    const { data, size } = koffi.decode(candidates, TokenDataArray) as { data: bigint; size: number | bigint };
    const count = Number(size);
    if (count === 0) return;
    const bytes = koffi.view(data, count * TOKEN_DATA_WORDS * 4);
    hooks.apply(state, { ids: new Int32Array(bytes), logits: new Float32Array(bytes) }, failed);
  };
  const backendApply = (sampler: bigint, context: bigint, graph: bigint, dataPointer: bigint): void => {
    const data = koffi.decode(dataPointer, SamplerDataStruct) as SamplerData;
    const set = (field: keyof SamplerData, tensor: GgmlTensor | null) => koffi.encode(dataPointer, SAMPLER_DATA_OFFSETS[field], 'ggml_tensor *', tensor);
    hooks.backendApply(stateOf(sampler), context as unknown as GgmlContext, graph as unknown as GgmlGraph, data, set);
  };
  const free = (sampler: bigint): void => {
    const id = idOf(sampler);
    const state = states.get(id);
    if (state === undefined) return;
    states.delete(id);
    hooks.free(state);
  };
  const clone = (sampler: bigint): SamplerPointer => create(hooks.clone(stateOf(sampler)));
  const none = () => undefined;

  const iface = koffi.alloc(SamplerInterface, 1) as bigint;
  koffi.encode(iface, SamplerInterface, {
    name: registered(Signatures.name, () => namePointer),
    accept: null,
    apply: registered(Signatures.apply, guarded('apply', (sampler: bigint, candidates: bigint) => apply(sampler, candidates, false), (sampler, candidates) => apply(sampler, candidates, true))),
    reset: null,
    clone: registered(Signatures.clone, guarded('clone', clone, () => null as unknown as SamplerPointer)),
    free: registered(Signatures.free, guarded('free', free, none)),
    backend_init: registered(
      Signatures.backendInit,
      guarded('backend_init', (sampler: bigint, buft: bigint, outputs: number) => hooks.backendInit(stateOf(sampler), buft as unknown as GgmlBufferType, outputs), () => false),
    ),
    backend_accept: null,
    backend_apply: registered(Signatures.backendApply, guarded('backend_apply', backendApply, none)),
    backend_set_input: hooks.backendSetInput
      ? registered(Signatures.backendSetInput, guarded('backend_set_input', (sampler: bigint) => hooks.backendSetInput!(stateOf(sampler)), none))
      : null,
    backend_reset: hooks.backendReset ? registered(Signatures.backendReset, guarded('backend_reset', (sampler: bigint) => hooks.backendReset!(stateOf(sampler)), none)) : null,
    copy_state: registered(Signatures.copyState, guarded('copy_state', (source: bigint, target: bigint) => hooks.copyState(stateOf(source), stateOf(target)), none)),
  });
  const stateAt = (sampler: SamplerPointer): S | undefined => {
    const header = koffi.decode(sampler, SamplerHeader) as { iface: unknown; ctx: number | bigint };
    if (koffi.address(header.iface as never) !== koffi.address(iface as never)) return undefined;
    return states.get(Number(header.ctx));
  };
  return { ggml, create, stateAt, failure: () => firstFailure };
}
