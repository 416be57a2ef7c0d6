// The engine's side of the boundary: owns the library, the model, the context and the loop, so
// the HTTP thread never waits on native work. Talks to client/engine.ts through protocol.ts
// messages over a channel: a worker thread's port (engine-worker.ts) or a child process's IPC
// (engine-process.ts). Token streams and control messages cross it; logits never do.
import { LmforgeError } from '../../../compiler/lmforge-error.js';
import { availableParallelism } from 'node:os';
import { LlamaContext } from '../../backend/context.js';
import { usableCpus } from '../../backend/cpu-load.js';
import { parseDeviceSpec } from '../../backend/device-spec.js';
import { describeDevice, libraryKindsFor, listDevices, selectDevices, type Device } from '../../backend/devices.js';
import { readHostMemory } from '../../backend/host-memory.js';
import { loadLlamaLibrary, releaseLlamaLogs } from '../../backend/library.js';
import { kvBytesPerToken, LlamaModel } from '../../backend/model.js';
import { computeEngineConfig, ConfigError } from '../engine-config.js';
import type { MemoryFacts } from '../memory-budget.js';
import { EngineCore } from './core.js';
import { resolveSampling } from '../sampling-setting.js';
import { createGrammarMaskSampler } from '../../backend/grammar-mask-sampler.js';
import { sampledOutputLinks } from '../../backend/sampled-outputs-sampler.js';
import { graphTruncationLinks } from '../../backend/graph-truncation-sampler.js';
import { sparseBiasLinks } from '../../backend/sparse-bias-sampler.js';
import { CPU_PROMPT_STEP_FLOOR } from './scheduler.js';
import { DraftModelProposer } from './speculative/proposers/draft-model-proposer.js';
import { MedusaProposer } from './speculative/proposers/medusa-proposer.js';
import { Eagle3Proposer } from './speculative/proposers/eagle3-proposer.js';
import { checkEagle3File } from './speculative/proposers/eagle3-format.js';
import { Eagle3Features } from '../../backend/eagle3-features.js';
import { readMedusaWeights } from './speculative/proposers/medusa-format.js';
import type { DraftProposer } from './speculative/proposers/proposer.js';
import { ggmlApiFor } from '../../backend/ggml-api.js';
import { MedusaGraph } from '../../backend/medusa-graph.js';
import { statSync } from 'node:fs';
import { vocabularyDifference } from './speculative/vocabulary-match.js';
import type { LlamaApi } from '../../backend/llama-api.js';
import type { EngineInfo, EngineInitOptions, FromWorker, ToWorker } from '../protocol.js';
import type { EngineChannel } from './engine-channel.js';
import { probeShapes, runStartupProbe } from './startup-probe.js';

/** Calls a test-only fault switch makes (engine-fault.ts). */
export interface EngineHooks {
  /** Just before the start-up probe decodes. */
  beforeProbe?: (() => void) | undefined;
}

let channel: EngineChannel | undefined;
let hooks: EngineHooks = {};
const post = (message: FromWorker) => channel!.post(message);

/** How often a serving engine says it is alive (the server's watchdog reads it: engine.ts). */
const HEARTBEAT_MS = 1000;

let core: EngineCore | undefined;
let heartbeat: NodeJS.Timeout | undefined;
let model: LlamaModel | undefined;
let context: LlamaContext | undefined;
/** small_draft: the draft model, its context and the proposer running it. */
let draft: { model: LlamaModel; context?: LlamaContext; proposer?: DraftModelProposer } | undefined;
/** eagle: the EAGLE-3 draft, its context and the proposer running it. */
let eagle: { model: LlamaModel; context?: LlamaContext; proposer?: Eagle3Proposer } | undefined;
/** medusa: the heads' graph and the proposer running it. */
let medusa: { graph: MedusaGraph; proposer: MedusaProposer } | undefined;

async function init(options: EngineInitOptions): Promise<EngineInfo> {
  const spec = parseDeviceSpec(options.device);
  const library = loadLlamaLibrary({ kinds: libraryKindsFor(spec), modelLib: options.modelLib, deviceId: spec.id });
  const devices = selectDevices(listDevices(library.api), spec, options.overrides.tensor_parallel_shards ?? 1);
  // Read before the weights load, so that they are not counted as taken twice.
  const memory = memoryOf(devices);
  model = await LlamaModel.create(library.api, { path: options.modelPath, devices });
  const info = model.info;
  const speculativeMode = options.speculativeMode ?? 'disable';
  if (speculativeMode === 'small_draft') draft = { model: await loadDraftModel(library.api, model, options.draftModelPath, devices) };
  if (speculativeMode === 'eagle') eagle = { model: await loadEagle3Draft(library.api, model, options.draftModelPath, devices) };
  if (speculativeMode === 'medusa' && !options.draftModelPath) throw new ConfigError('--speculative-mode medusa needs Medusa heads: give them with --additional-models HEADS.gguf (lmforge train-heads makes them)');
  // The heads' own weights count with the model's (a tied output projection is a copy of the model's, left out).
  const headsBytes = speculativeMode === 'medusa' ? statSync(options.draftModelPath!).size : 0;
  // The draft's weights and KV cells (as many as the target's) count in the same budget; for
  // EAGLE-3, also the target's kept layer inputs (3 rows of n_embd floats per batch token,
  // bounded here by the context window's worth).
  const draftInfo = (draft ?? eagle)?.model.info;
  const featureBytes = eagle ? 3 * info.embeddingLength * 4 * Math.min(info.contextLength || 4096, 4096) : 0;
  const config = computeEngineConfig(options.mode, options.overrides, {
    contextLength: info.contextLength,
    slidingWindow: info.slidingWindow,
    kvBytesPerToken: kvBytesPerToken(info) + (draftInfo ? kvBytesPerToken(draftInfo) : 0),
    modelBytes: info.sizeBytes + (draftInfo?.sizeBytes ?? 0) + headsBytes + featureBytes,
    vocabSize: model.vocabulary.size,
    embeddingLength: info.embeddingLength,
    memory,
    maxParallelSequences: library.api.llama_max_parallel_sequences(),
  }, speculativeMode !== 'disable', options.kvLayout ?? 'shared');
  if (options.maxQueuedRequests !== undefined) config.maxQueuedRequests = options.maxQueuedRequests;
  if (speculativeMode !== 'disable' && (info.recurrent || draftInfo?.recurrent)) {
    // Rejected drafts are undone by removing their positions, which a recurrent state cannot do.
    throw new ConfigError(`--speculative-mode ${options.speculativeMode} is not available for ${info.architecture}: its recurrent layers cannot drop rejected draft tokens (max_history_size snapshots are not implemented); use a transformer model or --speculative-mode disable`);
  }
  // An explicit --threads is used as given; by default the count follows the load of other processes.
  const threads = options.threads ?? usableCpus();
  const adaptiveThreads = options.threads === undefined;
  // The target and any draft context share the cache's shape, so that a sequence id means the same on each.
  const shared = {
    contextSize: config.maxTotalSeqLength,
    batchSize: config.prefillChunkSize + config.maxNumSequence,
    sequences: config.maxNumSequence + config.prefixCacheRecyclingSeqs,
    unifiedKv: config.kvLayout === 'shared',
    threads,
    adaptiveThreads,
  };
  // A logit row per decoding sequence and draft token, and the rows of prompts being scored (llama.cpp aborts past its limit).
  context = LlamaContext.create(model, { ...shared, outputs: config.maxNumSequence + config.maxDraftTokens + config.scoredRowsPerStep });
  const vocabulary = model.vocabulary;
  if (draft) {
    draft.context = LlamaContext.create(draft.model, shared);
    draft.proposer = new DraftModelProposer(draft.context, (token) => vocabulary.isEndOfGeneration(token));
  }
  if (eagle) {
    eagle.context = LlamaContext.create(eagle.model, { ...shared, outputs: config.maxNumSequence, other: context });
    const features = Eagle3Features.create(library.extensions(), context, eagle.context);
    eagle.proposer = new Eagle3Proposer(eagle.context, features, (token) => vocabulary.isEndOfGeneration(token));
  }
  if (speculativeMode === 'medusa') {
    const weights = await readMedusaWeights(options.draftModelPath!, { path: options.modelPath, embeddingLength: info.embeddingLength, vocabSize: vocabulary.size });
    const graph = MedusaGraph.create(ggmlApiFor(library.path), library.api, devices[0]!, weights);
    const targetContext = context;
    medusa = { graph, proposer: new MedusaProposer(graph, (token) => vocabulary.isEndOfGeneration(token), () => targetContext.threads) };
  }
  // The server learns what is probed first: if the backend aborts the process here, it names them.
  const target = { devices: devices.map(describeDevice), library: `${library.source} (${library.path})`, modelLib: options.modelLib !== undefined };
  post({ type: 'probing', target });
  hooks.beforeProbe?.();
  await runStartupProbe(context, probeShapes(context, config.maxNumSequence, config.prefillChunkSize), target, Math.max(vocabulary.bos, 0));
  const proposer: DraftProposer | undefined = draft?.proposer ?? eagle?.proposer ?? medusa?.proposer;
  let sampling: 'device' | 'host';
  try {
    sampling = resolveSampling(options.sampling ?? 'auto', { gpu: devices.some((device) => device.kind !== 'cpu'), speculative: speculativeMode !== 'disable' });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  core = new EngineCore(context, vocabulary, config, (events) => post({ type: 'events', events }), {
    tracing: options.tracing ?? false,
    profileSteps: options.profileSteps ?? false,
    ...(options.vocabularyTables ? { vocabularyTables: options.vocabularyTables } : {}),
    overlapMasks: devices.some((device) => device.kind !== 'cpu') || threads < availableParallelism(),
    ...(devices.every((device) => device.kind === 'cpu') ? { promptStepFloor: CPU_PROMPT_STEP_FLOOR, splitSteps: true } : {}),
    speculation: { mode: speculativeMode, draftLength: options.overrides.spec_draft_length ?? 0, ...(proposer ? { proposer } : {}) },
    sampling,
    tokenMasks: (vocabSize) => createGrammarMaskSampler(library.path, vocabSize),
    ...(sampling === 'device' ? { deviceLinks: { outputs: sampledOutputLinks(library.path), truncations: graphTruncationLinks(library.path), sparseBias: sparseBiasLinks(library.path) } } : {}),
  });
  core.start();
  // Sent between steps like every other message: none for a while means this thread is stuck;
  // the same count of steps with requests held means a decode on another thread is.
  heartbeat = setInterval(() => post({ type: 'alive', ...core!.progress() }), HEARTBEAT_MS);
  heartbeat.unref();
  return {
    config,
    vocabSize: vocabulary.size,
    endOfGeneration: Array.from(vocabulary.endOfGeneration),
    bosToken: vocabulary.bos,
    addBos: vocabulary.addBos,
    bosText: vocabulary.bos >= 0 ? vocabulary.text(vocabulary.bos) : '',
    eosText: vocabulary.eos >= 0 ? vocabulary.text(vocabulary.eos) : '',
    architecture: info.architecture,
    description: info.description,
    contextLength: info.contextLength,
    chatTemplate: info.chatTemplate,
    toolUseChatTemplate: info.toolUseChatTemplate,
    devices: devices.map(describeDevice),
    threads: { max: threads, adaptive: context.threadGovernor !== undefined },
    library: `${library.source} (${library.path})`,
    libraryNotes: library.notes,
    sampling,
    tokenTexts: Array.from({ length: vocabulary.size }, (_, id) => vocabulary.text(id)),
    grammarVocabulary: core.grammarVocabularyBytes(),
  };
}

/** Loads the small_draft model beside the target, refusing one whose vocabulary differs. */
async function loadDraftModel(api: LlamaApi, target: LlamaModel, path: string | undefined, devices: Device[]): Promise<LlamaModel> {
  if (!path) throw new ConfigError('--speculative-mode small_draft needs a draft model: give it with --additional-models PATH');
  return loadBesideTarget(api, target, path, devices);
}

/** Loads the EAGLE-3 draft beside the target, after checking that it was made for it. */
async function loadEagle3Draft(api: LlamaApi, target: LlamaModel, path: string | undefined, devices: Device[]): Promise<LlamaModel> {
  if (!path) throw new ConfigError('--speculative-mode eagle needs an EAGLE-3 draft: give it with --additional-models EAGLE3.gguf');
  await checkEagle3File(path, { layers: target.info.layers, embeddingLength: target.info.embeddingLength, vocabSize: target.vocabulary.size });
  return loadBesideTarget(api, target, path, devices);
}

/** Loads a model that drafts for the target: its tokens are the target's, or it is refused. */
async function loadBesideTarget(api: LlamaApi, target: LlamaModel, path: string, devices: Device[]): Promise<LlamaModel> {
  const loaded = await LlamaModel.create(api, { path, devices });
  const difference = vocabularyDifference(target.vocabulary, loaded.vocabulary);
  if (difference) {
    loaded.dispose();
    throw new ConfigError(`--additional-models ${path}: its vocabulary is not the model's, so its drafts cannot be verified: ${difference}`);
  }
  return loaded;
}

/** GPU memory for GPUs; for the CPU, the host's (ggml reports all of RAM as free there). */
function memoryOf(devices: Device[]): MemoryFacts {
  const gpus = devices.filter((device) => device.kind !== 'cpu');
  if (gpus.length > 0) {
    return {
      onDevice: true,
      totalBytes: gpus.reduce((sum, device) => sum + device.totalBytes, 0),
      availableBytes: gpus.reduce((sum, device) => sum + device.freeBytes, 0),
      source: gpus.map(describeDevice).join(' + '),
    };
  }
  return { onDevice: false, ...readHostMemory() };
}

async function shutdown(): Promise<void> {
  clearInterval(heartbeat);
  await core?.stop();
  draft?.proposer?.dispose();
  await draft?.context?.dispose();
  draft?.model.dispose();
  eagle?.proposer?.dispose();
  await eagle?.context?.dispose();
  eagle?.model.dispose();
  await medusa?.graph.dispose();
  await context?.dispose();
  model?.dispose();
  releaseLlamaLogs();
  post({ type: 'closed' });
  channel!.close();
}

/** Serves one engine over `to`: init, then requests, until shutdown. */
export function serveEngine(to: EngineChannel, testHooks: EngineHooks = {}): void {
  channel = to;
  hooks = testHooks;
  to.on(handle);
}

/** One message from the server's side. */
function handle(message: ToWorker): void {
  switch (message.type) {
    case 'init':
      init(message.options).then(
        (info) => post({ type: 'ready', info }),
        (error: Error) => {
          // The main thread ends this worker next: llama.cpp must not keep logging into it.
          releaseLlamaLogs();
          post({ type: 'init-failed', message: error.message, userFacing: error instanceof LmforgeError && error.userFacing });
        },
      );
      break;
    case 'submit':
      core?.submit(message.id, message.request);
      break;
    case 'cancel':
      core?.cancel(message.id);
      break;
    case 'stats':
      if (core) post({ type: 'stats', stats: core.stats() });
      break;
    case 'detokenize':
      if (model) post({ type: 'detokenized', id: message.id, text: model.vocabulary.detokenize(message.tokens) });
      break;
    case 'tokenize': {
      if (!core) break;
      const tokens = core.tokenize(message.text, message.addSpecial);
      post(tokens instanceof Int32Array ? { type: 'tokenized', id: message.id, tokens: Array.from(tokens) } : { type: 'tokenized', id: message.id, error: tokens });
      break;
    }
    case 'shutdown':
      void shutdown();
      break;
    case 'together':
      // All of them before the loop runs again: the first submit may wake it (core.ts).
      for (const each of message.messages) handle(each);
      break;
  }
}
