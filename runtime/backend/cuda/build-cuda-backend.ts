// `lmforge backend build cuda`: builds ggml's CUDA backend (libggml-cuda.so) from the pinned
// llama.cpp source for one card's architecture with the local nvcc, checks it fits the
// prebuilt libraries it will be loaded beside, and installs it where `serve` looks first
// (cuda-libraries.ts). Only the CUDA backend is built: libllama, libggml-base and the CPU
// backends stay the prebuilt ones, so the C API lmforge binds does not change.
//
//   await buildCudaBackend({ log: console.error });            // for the first card's architecture
//   await buildCudaBackend({ arch: 90, jobs: 16, log });        // without a card (a build machine)
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { lmforgeHome } from '../../lmforge-home.js';
import { PINNED_BINARIES_VERSION } from '../library.js';
import { pinnedLlamaSource } from '../llama-source.js';
import { probeCudaDriver } from './cuda-driver.js';
import { smName } from './cuda-fit.js';
import { BUILD_RECORD_FILE, CUDA_LIBRARY_FILE, backendsDir, localBuildFolder } from './cuda-libraries.js';
import { ElfFile } from './elf-file.js';
import { readFatBinary, summarizeFatBinary } from './fat-binary.js';
import { UserFacingError } from '../../../compiler/lmforge-error.js';

export class BackendBuildError extends UserFacingError {
  override name = 'BackendBuildError';
}

export interface CudaBuildOptions {
  /** Compute capability to build for (90 for an H100); default: the first card's. */
  arch?: number;
  /** Parallel compile jobs; default: every CPU. */
  jobs?: number;
  /** FlashAttention kernels (on by default, as in llama.cpp; off builds in a fraction of the time). */
  flashAttention?: boolean;
  home?: string;
  /** Where the libraries it is built against live (the prebuilt CUDA package's bins folder). */
  prebuiltFolder: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface CudaBuildPlan {
  arch: number;
  sourceDir: string;
  buildDir: string;
  installDir: string;
  configure: string[];
  build: string[];
}

/** The tools a build needs, each with what to install when it is missing. */
const TOOLS: { name: string; install: string }[] = [
  { name: 'nvcc', install: "the CUDA toolkit's compiler (NVIDIA's cuda-toolkit package; $CUDA_HOME/bin, by default /usr/local/cuda/bin, is searched too)" },
  { name: 'cmake', install: 'cmake ≥ 3.18 (apt-get install cmake)' },
  { name: 'c++', install: 'a C++17 compiler (apt-get install g++)' },
  { name: 'git', install: 'git (apt-get install git)' },
];
/** git only clones the source: a tree already in place (unpacked from a tarball, say) builds without it. */
const CLONE_ONLY_TOOLS = new Set(['git']);

/** Parts of a CUDA toolkit that ggml links, by CMake's name for them. */
const TOOLKIT_PARTS: Record<string, string> = {
  cublas: 'cuBLAS (libcublas and its headers)',
  cublasLt: 'cuBLASLt (libcublasLt)',
  cudart: 'the CUDA runtime (libcudart)',
  cuda_driver: "the driver's link stub (lib64/stubs/libcuda.so)",
};

/** Finds an executable on PATH, then (for nvcc) in the usual CUDA folders. */
export function findTool(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  if (name === 'nvcc') dirs.push(join(env.CUDA_HOME ?? env.CUDA_PATH ?? '/usr/local/cuda', 'bin'));
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      if (statSync(path).isFile()) return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** One line naming every missing tool and what installs it, or undefined when all are there. */
export function missingToolsMessage(env: NodeJS.ProcessEnv = process.env, options: { sourceInPlace?: boolean } = {}): string | undefined {
  const needed = options.sourceInPlace ? TOOLS.filter((tool) => !CLONE_ONLY_TOOLS.has(tool.name)) : TOOLS;
  const missing = needed.filter((tool) => !findTool(tool.name, env));
  if (missing.length === 0) return undefined;
  return `lmforge backend build cuda needs ${missing.map((t) => `${t.name}: ${t.install}`).join('; ')}`;
}

/** Where the pinned llama.cpp tree is checked out (or unpacked) for builds. */
export function llamaSourceDir(home: string): string {
  return join(backendsDir(home), 'src', `llama.cpp-${PINNED_BINARIES_VERSION}`);
}

export function planCudaBuild(options: { arch: number; jobs: number; flashAttention: boolean; home: string; nvcc: string }): CudaBuildPlan {
  const root = join(backendsDir(options.home), 'src');
  const sourceDir = llamaSourceDir(options.home);
  const buildDir = join(root, `build-cuda-${PINNED_BINARIES_VERSION}-sm${options.arch}`);
  return {
    arch: options.arch,
    sourceDir,
    buildDir,
    installDir: localBuildFolder(PINNED_BINARIES_VERSION, options.arch, options.home),
    // ggml alone (its own CMake project), as a loadable backend module, for one architecture.
    configure: [
      '-S', join(sourceDir, 'ggml'), '-B', buildDir,
      '-DCMAKE_BUILD_TYPE=Release', '-DBUILD_SHARED_LIBS=ON', '-DGGML_BACKEND_DL=ON', '-DGGML_NATIVE=OFF',
      '-DGGML_CUDA=ON', `-DCMAKE_CUDA_ARCHITECTURES=${options.arch}`, `-DCMAKE_CUDA_COMPILER=${options.nvcc}`,
      `-DGGML_CUDA_FA=${options.flashAttention ? 'ON' : 'OFF'}`,
      '-DGGML_BUILD_TESTS=OFF', '-DGGML_BUILD_EXAMPLES=OFF',
      // Linked as the prebuilt libraries are: needing `libggml-base.so` (no versioned soname), found
      // beside itself ($ORIGIN), so the process's one prebuilt libggml-base.so serves it. With
      // CMake's defaults it needed libggml-base.so.0, found only in the build tree by an absolute
      // rpath: a second copy of ggml's base loaded beside the prebuilt one (seen on an H200), and
      // a backend that broke once the build tree was removed.
      '-DCMAKE_PLATFORM_NO_VERSIONED_SONAME=ON', '-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON', '-DCMAKE_INSTALL_RPATH=$ORIGIN',
    ],
    build: ['--build', buildDir, '--target', 'ggml-cuda', '--parallel', String(options.jobs)],
  };
}

export async function buildCudaBackend(options: CudaBuildOptions): Promise<string> {
  const env = options.env ?? process.env;
  const home = options.home ?? lmforgeHome(env);
  const missing = missingToolsMessage(env, { sourceInPlace: existsSync(join(llamaSourceDir(home), 'CMakeLists.txt')) });
  if (missing) throw new BackendBuildError(missing);
  const arch = options.arch ?? probeCudaDriver()?.cards[0]?.computeCapability;
  if (arch === undefined) throw new BackendBuildError('lmforge backend build cuda: no NVIDIA card found to build for; give its compute capability with --arch (for example 90 for an H100, 80 for an A100)');
  const plan = planCudaBuild({ arch, jobs: options.jobs ?? availableParallelism(), flashAttention: options.flashAttention ?? true, home, nvcc: findTool('nvcc', env)! });
  const started = Date.now();
  options.log(`source: llama.cpp of the pinned release ${PINNED_BINARIES_VERSION} in ${plan.sourceDir} (fetched once with npm pack when absent)`);
  const commit = await pinnedLlamaSource(join(backendsDir(home), 'src'), plan.sourceDir);
  // ggml's CMake project configures its pkg-config file from the parent tree's template.
  const pcTemplate = join(plan.sourceDir, 'ggml', 'ggml.pc.in');
  if (!existsSync(pcTemplate)) writeFileSync(pcTemplate, '');
  options.log(`configure: ggml's CUDA backend for ${smName(arch)} (cmake ${plan.configure.slice(4).join(' ')})`);
  // A build folder configured with another compiler or toolkit cannot be reconfigured in place.
  if (existsSync(join(plan.buildDir, 'CMakeCache.txt')) && !readFileSync(join(plan.buildDir, 'CMakeCache.txt'), 'utf8').includes(`CMAKE_CUDA_COMPILER:FILEPATH=${findTool('nvcc', env)}`)) {
    rmSync(plan.buildDir, { recursive: true, force: true });
  }
  await runStep('cmake', plan.configure, env, options.log, false).catch((error: Error) => {
    // The toolkit's compiler is there but not a library ggml links: say which, in one line.
    const absent = /links to:\s*CUDA::(\w+)/.exec(error.message)?.[1];
    if (absent) throw new BackendBuildError(`the CUDA toolkit beside ${findTool('nvcc', env)} lacks ${TOOLKIT_PARTS[absent] ?? `CUDA::${absent}`}, which ggml's CUDA backend links: install the full toolkit (or that part of it) for your CUDA version`);
    throw error;
  });
  options.log(`build: ${plan.build.at(-1)} jobs; minutes, more with FlashAttention's kernels (--no-flash-attention builds faster)`);
  await runStep('cmake', plan.build, env, options.log, true);
  const built = findBuilt(plan.buildDir);
  checkBuild(built, arch, options.prebuiltFolder);
  install(plan, built, options.prebuiltFolder, { arch, commit, nvcc: nvccVersion(env), flashAttention: options.flashAttention ?? true });
  options.log(`built ${CUDA_LIBRARY_FILE} for ${smName(arch)} in ${Math.round((Date.now() - started) / 1000)} s: ${plan.installDir}`);
  return plan.installDir;
}

/** Runs a step, passing progress lines ("[12/155] …") through; on failure, its last lines name the cause. */
function runStep(command: string, args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void, progress: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const take = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        if (progress && /^\[\s*\d+(\/\d+|%)\]/.test(line)) log(line.length > 160 ? `${line.slice(0, 157)}...` : line);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => reject(new BackendBuildError(`${command} could not start: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new BackendBuildError(`${command} ${args.slice(0, 2).join(' ')} … failed (exit ${code}); its last lines:\n${tail.join('\n')}`));
    });
  });
}

function findBuilt(buildDir: string): string {
  for (const dir of [join(buildDir, 'bin'), join(buildDir, 'src'), join(buildDir, 'src', 'ggml-cuda'), buildDir]) {
    if (existsSync(join(dir, CUDA_LIBRARY_FILE))) return join(dir, CUDA_LIBRARY_FILE);
  }
  throw new BackendBuildError(`the build finished but left no ${CUDA_LIBRARY_FILE} under ${buildDir}`);
}

/**
 * The build must carry machine code for the card and need nothing from ggml that the prebuilt
 * libggml-base.so does not export (it is loaded beside that file, not the one built with it).
 */
function checkBuild(built: string, arch: number, prebuiltFolder: string): void {
  const summary = summarizeFatBinary(readFatBinary(built));
  if (!summary.sass.includes(arch)) throw new BackendBuildError(`${built} holds no machine code for ${smName(arch)} (it has SASS for ${summary.sass.join(', ') || 'nothing'})`);
  const baseProblem = ggmlBaseLinkProblem(ElfFile.neededLibrariesOf(built));
  if (baseProblem) throw new BackendBuildError(`${built} ${baseProblem}`);
  const wanted = dynamicSymbols(built, true).filter((name) => name.startsWith('ggml_') || name.startsWith('gguf_'));
  const offered = new Set(dynamicSymbols(join(prebuiltFolder, 'libggml-base.so'), false));
  const absent = wanted.filter((name) => !offered.has(name));
  if (absent.length) {
    throw new BackendBuildError(`${built} needs ${absent.length} symbol(s) the prebuilt libggml-base.so lacks (${absent.slice(0, 5).join(', ')}): the source and the prebuilt libraries differ`);
  }
}

/**
 * Why a backend that needs `needed` would not run on the prebuilt `libggml-base.so` the process
 * has loaded (the dynamic linker reuses a loaded library only under the very soname asked for),
 * or undefined when it would.
 */
export function ggmlBaseLinkProblem(needed: readonly string[]): string | undefined {
  const base = needed.filter((name) => name.startsWith('libggml-base'));
  if (base.length === 1 && base[0] === 'libggml-base.so') return undefined;
  return `needs ${base.join(', ') || 'no libggml-base'}, not the prebuilt libggml-base.so: it would load a copy of ggml's base of its own (configure with -DCMAKE_PLATFORM_NO_VERSIONED_SONAME=ON)`;
}

function dynamicSymbols(file: string, undefinedOnes: boolean): string[] {
  const out = execFileSync('nm', ['-D', undefinedOnes ? '--undefined-only' : '--defined-only', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return out.split('\n').map((line) => line.trim().split(/\s+/).at(-1)!).filter(Boolean).map((name) => name.replace(/@.*$/, ''));
}

function nvccVersion(env: NodeJS.ProcessEnv): string {
  const out = execFileSync(findTool('nvcc', env)!, ['--version'], { encoding: 'utf8', env });
  return /release ([\d.]+)/.exec(out)?.[1] ?? 'unknown';
}

/** A folder like the prebuilt one, with the new libggml-cuda.so: copies, so a reinstall of node_modules cannot break it. */
function install(plan: CudaBuildPlan, built: string, prebuiltFolder: string, record: Record<string, unknown>): void {
  const staging = `${plan.installDir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const name of readdirSync(prebuiltFolder)) {
    if (name !== CUDA_LIBRARY_FILE && statSync(join(prebuiltFolder, name)).isFile()) copyFileSync(join(prebuiltFolder, name), join(staging, name));
  }
  copyFileSync(built, join(staging, CUDA_LIBRARY_FILE));
  writeFileSync(join(staging, BUILD_RECORD_FILE), `${JSON.stringify({ ...record, version: PINNED_BINARIES_VERSION, builtAt: new Date().toISOString() }, null, 2)}\n`);
  rmSync(plan.installDir, { recursive: true, force: true });
  renameSync(staging, plan.installDir);
}
