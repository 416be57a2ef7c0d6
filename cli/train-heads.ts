// `lmforge train-heads [MODEL]`: Medusa heads for a model, by self-distillation. The model
// answers a set of prompts (cli/training/training-prompts.ts), the hidden states its answer
// tokens were sampled from are recorded, and PyTorch (CPU, in a venv under $LMFORGE_HOME that
// this command makes once: torch==2.13.0, gguf==0.19.0) fits K heads to predict the tokens
// that followed. The heads file's path is the last line on stdout:
//   HEADS=$(lmforge train-heads smollm2 | tail -n 1)
//   lmforge serve smollm2 --speculative-mode medusa --additional-models "$HEADS"
import { execFile, spawn } from 'node:child_process';
import { constants, existsSync } from 'node:fs';
import { access, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CAC } from 'cac';
import { lmforgeHome } from '../runtime/lmforge-home.js';
import { resolveModel } from '../runtime/models/resolve-model.js';
import { DEFAULT_MODEL } from '../runtime/models/known-models.js';
import { collectSelfDistillation } from './training/self-distill.js';
import { trainingPrompts } from './training/training-prompts.js';
import { UsageError } from './cli-error.js';
import { numberAsTyped } from './option-values.js';

const run = promisify(execFile);
// Beside the sources in a checkout (cli/..), at the package root once built (dist/cli/../..).
const here = dirname(fileURLToPath(import.meta.url));
const TRAINER = [join(here, '..'), join(here, '..', '..')].map((root) => join(root, 'cli', 'training', 'train_medusa.py')).find(existsSync) ?? 'cli/training/train_medusa.py';
/** Pinned: a CPU build of this torch is what installs here without a multi-GB download. */
const PYTHON_PACKAGES = ['torch==2.13.0', 'gguf==0.19.0'];

interface TrainFlags {
  out?: string;
  heads: string;
  prompts: string;
  tokens: string;
  epochs: string;
  concurrency: string;
  threads?: string;
  keepData?: boolean;
}

export function registerTrainHeads(cli: CAC): void {
  cli
    .command('train-heads [model]', `Train Medusa heads for a model by self-distillation (default model: ${DEFAULT_MODEL}); prints the heads file's path last`)
    .option('--out <path>', 'Where to write the heads: a file, or a folder to write MODEL.medusa.gguf in (default: $LMFORGE_HOME/heads/MODEL.medusa.gguf)')
    .option('--heads <k>', 'Number of heads (head k predicts the token k + 2 positions on)', { default: '3' })
    .option('--prompts <n>', 'Prompts the model answers for the training data (at least 10)', { default: '160' })
    .option('--tokens <n>', 'Longest answer, in tokens (at least 8)', { default: '128' })
    .option('--epochs <n>', 'Passes over the data', { default: '3' })
    .option('--concurrency <n>', 'Answers generated at once', { default: '4' })
    .option('--threads <n>', 'CPU threads for generation and training (default: every usable CPU)')
    .option('--keep-data', 'Keep the recorded hidden states (under $LMFORGE_HOME/train-heads)')
    .action(async (model: string | undefined, flags: TrainFlags) => {
      const count = (value: string, flag: string, least = 1) => {
        const n = numberAsTyped(value);
        if (!Number.isSafeInteger(n) || n < least) throw new UsageError(`${flag} ${value} is not valid: give an integer ≥ ${least}`);
        return n;
      };
      const heads = count(flags.heads, '--heads');
      const prompts = count(flags.prompts, '--prompts', 10);
      const tokens = count(flags.tokens, '--tokens', 8);
      const epochs = count(flags.epochs, '--epochs');
      const concurrency = count(flags.concurrency, '--concurrency');
      const threads = flags.threads === undefined ? undefined : count(flags.threads, '--threads');
      const resolved = await resolveModel(model ?? DEFAULT_MODEL);
      const stem = basename(resolved.ggufPath).replace(/\.gguf$/i, '');
      // Settled before minutes of generation and training, not found wrong after them.
      const out = await headsFile(flags.out, stem);
      const python = await trainingPython();
      await mkdir(join(lmforgeHome(), 'train-heads'), { recursive: true });
      const work = await mkdtemp(join(lmforgeHome(), 'train-heads', `${stem}-`));
      try {
        const log = (line: string) => process.stderr.write(`train-heads: ${line}\n`);
        log(`${resolved.ggufPath}: answering ${prompts} prompts (up to ${tokens} tokens each)`);
        const data = await collectSelfDistillation({
          modelPath: resolved.ggufPath,
          prompts: trainingPrompts(prompts),
          maxTokens: tokens,
          concurrency,
          ...(threads ? { threads } : {}),
          outDir: work,
          onProgress: log,
        });
        log(`${data.samples} answers, ${data.positions} positions: generated in ${data.generationSeconds.toFixed(0)} s, hidden states in ${data.hiddenSeconds.toFixed(0)} s`);
        const trainStart = performance.now();
        const args = [TRAINER, '--data', work, '--target', resolved.ggufPath, '--heads', String(heads), '--out', out, '--epochs', String(epochs), '--target-name', stem];
        if (threads) args.push('--threads', String(threads));
        const result = await runTrainer(python, args, log);
        const seconds = (performance.now() - trainStart) / 1000;
        log(`trained ${heads} heads in ${seconds.toFixed(0)} s; held-out accuracy per head: ${result.accuracy.map((a) => a.toFixed(3)).join(', ')}`);
        console.log(JSON.stringify({ model: resolved.ggufPath, heads, positions: data.positions, generationSeconds: data.generationSeconds, hiddenSeconds: data.hiddenSeconds, trainingSeconds: seconds, accuracy: result.accuracy }));
        console.log(out);
      } finally {
        if (flags.keepData) process.stderr.write(`train-heads: data kept in ${work}\n`);
        else await rm(work, { recursive: true, force: true });
      }
    });
}

/** The venv's python, made on first use. */
async function trainingPython(): Promise<string> {
  const venv = join(lmforgeHome(), 'train-heads-venv');
  const python = join(venv, 'bin', 'python');
  const ready = existsSync(python) && (await run(python, ['-c', 'import torch, gguf']).then(() => true, () => false));
  if (ready) return python;
  process.stderr.write(`train-heads: installing ${PYTHON_PACKAGES.join(' ')} into ${venv} (once)\n`);
  await run('python3', ['-m', 'venv', venv]);
  await run(join(venv, 'bin', 'pip'), ['install', '-q', ...PYTHON_PACKAGES], { maxBuffer: 1 << 26 });
  return python;
}

/** Runs the trainer, passing its epoch lines to the log; returns its final JSON line. */
function runTrainer(python: string, args: string[], log: (line: string) => void): Promise<{ accuracy: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let last = '';
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line.trim() === '') continue;
        last = line;
        if (line.includes('"epoch"')) log(line);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the trainer (${TRAINER}) exited with status ${code}`));
      try {
        resolve(JSON.parse(last) as { accuracy: number[] });
      } catch {
        reject(new Error(`the trainer printed no result (last line: ${last})`));
      }
    });
  });
}

/** Where the heads go: --out as a file, or inside it when it is a folder; its folder made, and writable. */
async function headsFile(given: string | undefined, stem: string): Promise<string> {
  const name = `${stem}.medusa.gguf`;
  if (given === undefined) {
    const out = join(lmforgeHome(), 'heads', name);
    await mkdir(dirname(out), { recursive: true });
    return out;
  }
  const out = resolve(String(given));
  const info = await stat(out).catch(() => undefined);
  const file = info?.isDirectory() ? join(out, name) : out;
  await mkdir(dirname(file), { recursive: true }).catch((error: Error) => {
    throw new UsageError(`--out ${given}: cannot make its folder (${error.message})`);
  });
  await access(dirname(file), constants.W_OK).catch(() => {
    throw new UsageError(`--out ${given}: ${dirname(file)} is not writable`);
  });
  return file;
}
