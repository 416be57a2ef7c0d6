// Where a worker's code is: the compiled .js beside the caller (dist/), or, running from source, the boot
// file beside this module, which registers tsx in the worker (ts-worker-boot.mjs; a child process:
// ts-process-boot.mjs) and then loads the .ts (loaders do not reach workers on Node 20).
// `name` is relative to the caller's folder. Every worker and child process starts here: the
// engine's, the grammar service's and the compiler's mask workers, so it lives in the compiler,
// the layer all of them may import.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A worker's URL, and the workerData its boot file needs when it runs from source. */
export interface WorkerEntry {
  url: URL;
  workerData?: { tsEntry: string };
}

export function workerEntry(name: string, callerUrl: string): WorkerEntry {
  const source = new URL(`./${name}.ts`, callerUrl);
  if (!existsSync(fileURLToPath(source))) return { url: new URL(`./${name}.js`, callerUrl) };
  return { url: new URL('./ts-worker-boot.mjs', import.meta.url), workerData: { tsEntry: source.href } };
}

/** The same for a child process: the script to fork and its arguments (ts-process-boot.mjs from source). */
export function processEntry(name: string, callerUrl: string): { script: string; args: string[] } {
  const source = new URL(`./${name}.ts`, callerUrl);
  if (!existsSync(fileURLToPath(source))) return { script: fileURLToPath(new URL(`./${name}.js`, callerUrl)), args: [] };
  return { script: fileURLToPath(new URL('./ts-process-boot.mjs', import.meta.url)), args: [source.href] };
}
