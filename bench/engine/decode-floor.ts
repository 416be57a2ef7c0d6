// The C decode loop (decode-floor.c) as a child process: llama_decode over the engine's batch
// shapes with no JavaScript between decodes, through the same prebuilt libllama. It stays up
// between measurements, so the model loads once and runs interleave with the engine's.
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { DecodeRun } from './bare-decode.js';

const script = fileURLToPath(new URL('../build-peer-llama-server.sh', import.meta.url));

/** Builds (once, cached) the peer tools against the prebuilt libraries; returns their folder. */
export async function peerBinFolder(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', [script], { maxBuffer: 1 << 24 });
  return stdout.trim().split('\n').at(-1)!;
}

export interface FloorShape {
  contextSize: number;
  batchSize: number;
  sequences: number;
  threads: number;
}

export class DecodeFloor {
  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly lines: AsyncIterator<string>,
    private readonly reader: Interface,
    private readonly stderr: () => string,
  ) {}

  /**
   * Starts the driver on `modelPath` with the engine's context shape; `promptText` is tokenized
   * by llama.cpp. `binary`: a driver built elsewhere (build-decode-floor.ts; default: the one
   * beside the peer llama-server); `gpuLayers`: layers to offload (default none).
   */
  static async start(modelPath: string, shape: FloorShape, promptText: string, options: { binary?: string; gpuLayers?: number } = {}): Promise<DecodeFloor> {
    const binary = options.binary ?? join(await peerBinFolder(), 'lmforge-decode-floor');
    const args = [modelPath, shape.contextSize, shape.batchSize, shape.sequences, shape.threads, promptText, ...(options.gpuLayers ? [options.gpuLayers] : [])].map(String);
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk) => (errors += chunk));
    const reader = createInterface({ input: child.stdout });
    return new DecodeFloor(child, reader[Symbol.asyncIterator](), reader, () => errors);
  }

  /**
   * Prefills the prompt into `width` sequences (untimed), then times `steps` decodes of one
   * token each (wall and CPU time), each step in about equal batches of at most `most` tokens
   * (0: one batch).
   */
  async decode(width: number, steps: number, most = 0): Promise<DecodeRun & { cpuSeconds: number }> {
    this.child.stdin.write(`${width} ${steps} ${most}\n`);
    const next = await this.lines.next();
    if (next.done) throw new Error(`the decode-floor driver exited: ${this.stderr().trim()}`);
    const answer = JSON.parse(next.value) as { tokens: number; seconds: number; cpu_seconds: number };
    return { tokens: answer.tokens, seconds: answer.seconds, cpuSeconds: answer.cpu_seconds };
  }

  async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.stdin.end();
      await exited;
    }
    this.reader.close();
  }
}
