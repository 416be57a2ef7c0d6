// Kernel parity, shown two ways before any server is compared. By construction: both server
// processes map the very same libllama/libggml files (read from /proc/PID/maps, Linux). By
// measurement: the same batch shapes decoded through that library by lmforge's bindings (the
// JavaScript loop of bench:engine) and by C (decode-floor.c), interleaved; their ratio should
// be 1 within noise, so that whatever separates the servers is not the kernels.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { BareDecoder } from '../engine/bare-decode.js';
import { DecodeFloor, type FloorShape } from '../engine/decode-floor.js';
import { interleavedOrder } from './interleave.js';
import { ratioSpread, type Spread } from './ratio-spread.js';

/** The libllama and libggml files a process and its descendants have mapped, as real paths, sorted. */
export function mappedLlamaLibraries(pid: number): string[] {
  const files = new Set<string>();
  // lmforge decodes in a child process of the server (the engine's isolation): read them all.
  for (const member of processTree(pid)) {
    let maps: string;
    try {
      maps = readFileSync(`/proc/${member}/maps`, 'utf8');
    } catch {
      continue; // it ended meanwhile
    }
    for (const line of maps.split('\n')) {
      const path = line.slice(line.indexOf('/'));
      if (line.includes('/') && /^lib(llama|ggml)[^/]*\.so[.\d]*$/.test(basename(path)) && !/^libllama-(common|server)/.test(basename(path))) {
        files.add(realpathSync(path));
      }
    }
  }
  return [...files].sort();
}

/** A process and its descendants, from /proc's children lists (Linux). */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${tree[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${tree[i]}/task/${task}/children`, 'utf8').trim().split(/\s+/)) if (child) tree.push(Number(child));
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return tree;
}

export interface KernelParity {
  width: number;
  /** bindings loop / C loop, per repetition. */
  ratio: Spread;
  bindingsTokensPerS: number[];
  cTokensPerS: number[];
}

export async function measureKernelParity(
  modelPath: string, shape: FloorShape, widths: readonly number[], reps: number, steps: number,
): Promise<KernelParity[]> {
  const bare = await BareDecoder.create(modelPath, shape);
  const promptText = 'The history of the printing press begins in the fifteenth century, when';
  const prompt = bare.tokenize(promptText);
  const floor = await DecodeFloor.start(modelPath, shape, promptText);
  try {
    await bare.decode(prompt, 1, 4);
    await floor.decode(1, 4);
    const out: KernelParity[] = [];
    for (const width of widths) {
      const bindings: number[] = [];
      const c: number[] = [];
      for (const order of interleavedOrder('bindings', 'c', reps)) {
        for (const side of order) {
          const run = side === 'c' ? await floor.decode(width, steps) : await bare.decode(prompt, width, steps);
          (side === 'c' ? c : bindings).push(run.tokens / run.seconds);
        }
      }
      out.push({ width, ratio: ratioSpread(bindings, c), bindingsTokensPerS: bindings, cTokensPerS: c });
    }
    return out;
  } finally {
    await floor.dispose();
    await bare.dispose();
  }
}
