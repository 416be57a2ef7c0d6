// Self-distillation data for Medusa heads: the model answers each prompt (rendered with its
// chat template, through the engine, several at once), then every answer is computed again in
// one pass with hidden states on, which records the last hidden state from which each answer
// token was sampled. The heads learn from those states to predict the tokens that followed.
//   hidden.f32     one row of `embedding` float32 per answer position, samples one after another
//   samples.json   { embedding, vocabSize, samples: [{ rows, answer }] }: sample i's row j is the
//                  state its answer[j] was sampled from, so head k's target there is answer[j + 1 + k]
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Batch } from '../../runtime/backend/batch.js';
import { LlamaContext } from '../../runtime/backend/context.js';
import { listDevices } from '../../runtime/backend/devices.js';
import { loadLlamaLibrary } from '../../runtime/backend/library.js';
import { LlamaModel } from '../../runtime/backend/model.js';
import { ChatTemplate } from '../../runtime/chat-format/chat-template.js';
import { chooseChatTemplate } from '../../runtime/chat-format/template-choice.js';
import { Engine } from '../../runtime/engine/client/engine.js';

export interface DistillOptions {
  modelPath: string;
  prompts: readonly string[];
  /** Answer length limit, in tokens. */
  maxTokens: number;
  /** Requests generated at once. */
  concurrency: number;
  threads?: number;
  /** Folder the two files go to. */
  outDir: string;
  onProgress?: (line: string) => void;
}

export interface DistillResult {
  samples: number;
  positions: number;
  embedding: number;
  generationSeconds: number;
  hiddenSeconds: number;
}

interface Answer {
  prompt: string;
  tokens: number[];
}

/** Generates the answers, then records their hidden states; writes the two files. */
export async function collectSelfDistillation(options: DistillOptions): Promise<DistillResult> {
  const start = performance.now();
  const answers = await generateAnswers(options);
  const generated = performance.now();
  const { positions, embedding } = await recordHiddenStates(options, answers);
  return {
    samples: answers.length,
    positions,
    embedding,
    generationSeconds: (generated - start) / 1000,
    hiddenSeconds: (performance.now() - generated) / 1000,
  };
}

async function generateAnswers(options: DistillOptions): Promise<Answer[]> {
  const engine = await Engine.create({
    modelPath: options.modelPath,
    device: 'cpu',
    mode: 'local',
    overrides: { max_num_sequence: options.concurrency, context_window_size: 2048 },
    ...(options.threads ? { threads: options.threads } : {}),
  });
  try {
    const info = engine.info;
    const chosen = chooseChatTemplate(info);
    const template = new ChatTemplate(chosen.source, { bos: info.bosText, eos: info.eosText }, chosen.stop);
    const answers: Answer[] = new Array(options.prompts.length);
    let next = 0;
    let done = 0;
    const worker = async () => {
      for (let i = next++; i < options.prompts.length; i = next++) {
        const prompt = template.render([{ role: 'user', content: options.prompts[i]! }], { addGenerationPrompt: true });
        const tokens: number[] = [];
        // Half greedy (what the bench and most clients ask for), half sampled (variety).
        const sampling = i % 2 === 0 ? { temperature: 0 } : { temperature: 0.7, topP: 0.95 };
        for await (const event of engine.generate({ prompt, addSpecial: true, maxTokens: options.maxTokens, seed: i, sampling, ...(chosen.stop.length ? { stop: [...chosen.stop] } : {}) })) {
          if (event.type === 'delta') tokens.push(...event.tokens);
        }
        answers[i] = { prompt, tokens };
        if (++done % 10 === 0) options.onProgress?.(`answered ${done} of ${options.prompts.length} prompts`);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    return answers.filter((answer) => answer.tokens.length >= 2);
  } finally {
    await engine.dispose();
  }
}

/** Hidden states are read in chunks: with them on, llama.cpp returns logits for every token. */
const CHUNK = 256;

async function recordHiddenStates(options: DistillOptions, answers: Answer[]): Promise<{ positions: number; embedding: number; vocabSize: number }> {
  const library = loadLlamaLibrary({ kinds: ['cpu'] });
  const cpu = listDevices(library.api).filter((device) => device.kind === 'cpu');
  const model = await LlamaModel.create(library.api, { path: options.modelPath, devices: cpu });
  // Without a thread count, as the engine: fewer threads while other processes keep CPUs busy.
  const context = LlamaContext.create(model, { contextSize: 4096, batchSize: 2048, sequences: 1, outputs: CHUNK, ...(options.threads ? { threads: options.threads } : { adaptiveThreads: true }) });
  const batch = new Batch(2048);
  const embedding = model.info.embeddingLength;
  const vocabSize = model.vocabulary.size;
  const out = createWriteStream(join(options.outDir, 'hidden.f32'));
  const samples: { rows: number; answer: number[] }[] = [];
  let positions = 0;
  try {
    for (const [index, answer] of answers.entries()) {
      const prompt = Array.from(model.vocabulary.tokenize(answer.prompt, { addSpecial: true, parseSpecial: true }));
      const tokens = prompt.concat(answer.tokens);
      if (tokens.length > 4000) continue;
      context.clear();
      // The prompt but its last token, without hidden states; from the last prompt token on
      // (the state the first answer token was sampled from), every state but the final one's.
      context.setHiddenStates(false);
      for (let from = 0; from < prompt.length - 1; from += batch.capacity) {
        batch.clear();
        for (let p = from; p < Math.min(prompt.length - 1, from + batch.capacity); p++) batch.add(tokens[p]!, p, 0, false);
        await context.decode(batch);
      }
      context.setHiddenStates(true);
      const last = tokens.length - 1;
      for (let from = prompt.length - 1; from < last; from += CHUNK) {
        batch.clear();
        const to = Math.min(last, from + CHUNK);
        for (let p = from; p < to; p++) batch.add(tokens[p]!, p, 0, true);
        await context.decode(batch);
        const rows = new Float32Array(embedding * (to - from));
        for (let r = 0; r < to - from; r++) rows.set(context.hiddenState(r, batch.outputs), r * embedding);
        if (!out.write(Buffer.from(rows.buffer))) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      }
      samples.push({ rows: last - (prompt.length - 1), answer: answer.tokens });
      positions += last - (prompt.length - 1);
      if ((index + 1) % 20 === 0) options.onProgress?.(`recorded hidden states of ${index + 1} of ${answers.length} answers`);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    batch.dispose();
    await context.dispose();
    model.dispose();
  }
  await writeFile(join(options.outDir, 'samples.json'), JSON.stringify({ embedding, vocabSize, samples }));
  return { positions, embedding, vocabSize };
}
