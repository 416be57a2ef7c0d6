// Which CUDA build of llama.cpp to load on this card: every candidate installed here, judged
// before loading (cuda-fit.ts), so a library that would abort at its first kernel is never
// loaded. Candidates, in order of preference:
//   1. builds made here by `lmforge backend build cuda` ($LMFORGE_HOME/backends/cuda-VERSION-smXY);
//   2. the prebuilt package (@node-llama-cpp/<platform>-cuda);
//   3. that package's fallback build of libggml-cuda (…-cuda-ext: older toolkit, PTX for older cards).
// A loadable folder holds libllama and the ggml backends beside it (ggml loads every backend
// from libllama's folder), so a build or the fallback is served from a folder of its own under
// $LMFORGE_HOME/backends: links to the prebuilt files, with its own libggml-cuda.so.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { lmforgeHome } from '../../lmforge-home.js';
import { readFatBinary, summarizeFatBinary, type FatBinarySummary } from './fat-binary.js';
import { ElfFile } from './elf-file.js';
import { canLoadLibrary } from '../can-load-library.js';
import { chooseCudaLibrary, type CudaLibraryCandidate } from './cuda-fit.js';
import { probeCudaDriver } from './cuda-driver.js';

export const CUDA_LIBRARY_FILE = 'libggml-cuda.so';
/** What `lmforge backend build cuda` writes beside its library. */
export const BUILD_RECORD_FILE = 'lmforge-build.json';

export interface CudaLibrary extends CudaLibraryCandidate {
  /** The libggml-cuda.so judged. */
  cudaFile: string;
  /** The folder to load libllama from: set, or made on first use by `loadableFolder`. */
  folder?: string;
  /** For the fallback: the folder to make from the prebuilt one, with this cudaFile. */
  composeInto?: string;
}

export function backendsDir(home: string = lmforgeHome()): string {
  return join(home, 'backends');
}

/** The folder `lmforge backend build cuda` installs a build for `arch` into. */
export function localBuildFolder(version: string, arch: number, home?: string): string {
  return join(backendsDir(home), `cuda-${version}-sm${arch}`);
}

export function cudaLibraryCandidates(options: { version: string; prebuiltFolder?: string; fallbackFile?: string; home?: string }): CudaLibrary[] {
  const candidates: CudaLibrary[] = [];
  const dir = backendsDir(options.home);
  const prefix = `cuda-${options.version}-sm`;
  if (existsSync(dir)) {
    for (const name of readdirSync(dir).filter((n) => n.startsWith(prefix)).sort()) {
      const folder = join(dir, name);
      const cudaFile = join(folder, CUDA_LIBRARY_FILE);
      if (existsSync(cudaFile) && existsSync(join(folder, BUILD_RECORD_FILE))) candidates.push(judge(`lmforge backend build (${folder})`, cudaFile, { folder }));
    }
  }
  if (options.prebuiltFolder) {
    const cudaFile = join(options.prebuiltFolder, CUDA_LIBRARY_FILE);
    if (existsSync(cudaFile)) candidates.push(judge(`the prebuilt ${CUDA_LIBRARY_FILE}`, cudaFile, { folder: options.prebuiltFolder }));
  }
  if (options.prebuiltFolder && options.fallbackFile && existsSync(options.fallbackFile)) {
    candidates.push(judge(`the prebuilt fallback ${CUDA_LIBRARY_FILE} (${options.fallbackFile})`, options.fallbackFile, { composeInto: join(dir, `cuda-${options.version}-fallback`) }));
  }
  return candidates;
}

function judge(label: string, cudaFile: string, where: Pick<CudaLibrary, 'folder' | 'composeInto'>): CudaLibrary {
  let summary: FatBinarySummary = { sass: [], ptx: [] };
  let missingLibraries: string[] = [];
  try {
    summary = summarizeFatBinary(readFatBinary(cudaFile));
    missingLibraries = missingCudaRuntimes(cudaFile);
  } catch (error) {
    missingLibraries = [`a readable library (${(error as Error).message})`];
  }
  return { label, cudaFile, summary, missingLibraries, ...where };
}

/** The CUDA runtime libraries (libcudart, libcublas, …) the file links against that cannot be loaded here. */
function missingCudaRuntimes(file: string): string[] {
  return ElfFile.neededLibrariesOf(file).filter((name) => /^libcu(?!da\.so)/.test(name) && !canLoadLibrary(name));
}

/**
 * The folder to load for a chosen library. For the fallback: links to every file of the
 * prebuilt folder but libggml-cuda.so, which links to the fallback's, made once.
 */
export function loadableFolder(library: CudaLibrary, prebuiltFolder: string): string {
  if (library.folder) return library.folder;
  const target = library.composeInto!;
  if (existsSync(join(target, CUDA_LIBRARY_FILE))) return target;
  const building = `${target}.tmp-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  for (const name of readdirSync(prebuiltFolder)) {
    if (name !== CUDA_LIBRARY_FILE) symlinkSync(join(prebuiltFolder, name), join(building, name));
  }
  symlinkSync(library.cudaFile, join(building, CUDA_LIBRARY_FILE));
  rmSync(target, { recursive: true, force: true });
  renameSync(building, target);
  return target;
}

/** The build record of a local build, for messages and `backend build` itself. */
export function readBuildRecord(folder: string): { arch: number; builtAt: string; nvcc: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(folder, BUILD_RECORD_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

export interface CudaPlan {
  /** The folder to load libllama from; undefined when no installed library can run on the card. */
  folder?: string;
  /** Start-up lines saying which library and why, or why none. */
  lines: string[];
}

/**
 * Judges every CUDA library installed here for card `cardIndex` and picks one. Undefined
 * when the driver cannot be asked (no card, or an old driver): then nothing is known before
 * loading, and loading goes ahead as before.
 */
export function planCudaLibrary(options: { cardIndex: number; version: string; prebuiltFolder?: string; fallbackFile?: string; home?: string }): CudaPlan | undefined {
  const driver = probeCudaDriver();
  const card = driver?.cards[options.cardIndex];
  if (!driver || !card) return undefined;
  const choice = chooseCudaLibrary(card, driver.cudaVersion, cudaLibraryCandidates(options));
  if (!choice.chosen) return { lines: choice.lines };
  return { folder: loadableFolder(choice.chosen, options.prebuiltFolder ?? ''), lines: choice.lines };
}
