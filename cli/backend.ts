// `lmforge backend build cuda`: builds ggml's CUDA backend for this machine's card from the
// pinned llama.cpp source, for cards the prebuilt library cannot run (an H100 on a CUDA 13.0
// driver, for one); `serve` then picks it up on its own. Progress on stderr, the installed
// folder as the last line on stdout.
//   lmforge backend build cuda                 # for the first card's architecture, every CPU
//   lmforge backend build cuda --arch 90 --jobs 16
import type { CAC } from 'cac';
import { buildCudaBackend } from '../runtime/backend/cuda/build-cuda-backend.js';
import { installedBinaryFolder, prebuiltPackageFor } from '../runtime/backend/library.js';
import { UsageError } from './cli-error.js';
import { numberAsTyped } from './option-values.js';

interface BackendFlags {
  arch?: string | number;
  jobs?: string | number;
  flashAttention?: boolean;
}

export function registerBackend(cli: CAC): void {
  cli
    .command('backend <action> <kind>', 'Build a backend library for this machine: `backend build cuda` compiles ggml\'s CUDA backend for the local card (needs nvcc and cmake; minutes)')
    .usage('backend build cuda [--arch CC] [--jobs N] [--no-flash-attention]   (the one action and kind: compiles ggml\'s CUDA backend for the local card; needs nvcc and cmake; minutes)')
    .option('--arch <cc>', 'Compute capability to build for, as major×10+minor (90 for an H100, 80 for an A100); default: the first card\'s')
    .option('--jobs <n>', 'Parallel compile jobs (default: every CPU)')
    .option('--no-flash-attention', 'Leave out FlashAttention\'s CUDA kernels: builds several times faster, decodes slower at long contexts')
    .action(async (action: string, kind: string, flags: BackendFlags) => {
      if (action !== 'build') throw new UsageError(`backend ${action}: unknown action; the one there is: lmforge backend build cuda`);
      if (kind !== 'cuda') throw new UsageError(`backend build ${kind}: only cuda can be built (other devices use the prebuilt packages, or --model-lib with a build of your own)`);
      const arch = flags.arch === undefined ? undefined : positive('--arch', flags.arch);
      const jobs = flags.jobs === undefined ? undefined : positive('--jobs', flags.jobs);
      const packageName = prebuiltPackageFor('cuda');
      const prebuiltFolder = packageName && installedBinaryFolder(packageName);
      if (!prebuiltFolder) throw new UsageError(`backend build cuda: the prebuilt CUDA package ${packageName ?? '(none for this platform)'} is not installed; it provides the libraries the build is loaded beside (npm install ${packageName ?? ''})`);
      const folder = await buildCudaBackend({ arch, jobs, flashAttention: flags.flashAttention !== false, prebuiltFolder, log: (line) => console.error(line) });
      console.log(folder);
    });
}

function positive(flag: string, value: string | number): number {
  const n = numberAsTyped(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${flag} ${value}: expected a positive whole number`);
  return n;
}
