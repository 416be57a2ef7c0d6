// Whether a CUDA library can run on a card, decided before loading it (pure: no native code).
// A native CUDA library that has no code for the card aborts the whole process at its first
// kernel launch, so the choice is made from the card's compute capability, the driver's CUDA
// version and the library's fat binary (fat-binary.ts), by CUDA's compatibility rules:
// - SASS (machine code) for sm_XY runs on cards of the same major version XZ with Z ≥ Y;
// - otherwise the driver can JIT-compile PTX for compute_XY on any card with XY ≤ its own,
//   provided it knows the PTX's ISA version (each CUDA release adds one: a CUDA 13.0 driver
//   takes ISA ≤ 9.0, so PTX from a 13.1 toolkit cannot load there);
// - otherwise the library cannot run on the card.
import { compareVersions, type FatBinarySummary } from './fat-binary.js';

export interface CudaCard {
  /** Compute capability, major × 10 + minor: 90 for an H100. */
  computeCapability: number;
  name: string;
}

export type CudaFit =
  | { kind: 'sass'; arch: number; reason: string }
  | { kind: 'ptx-jit'; arch: number; isa: string; reason: string }
  | { kind: 'none'; reason: string };

/** The newest PTX ISA a driver of this CUDA version (e.g. 13000 for 13.0) compiles. */
export function maxPtxIsa(driverCudaVersion: number): string {
  const major = Math.floor(driverCudaVersion / 1000);
  const minor = Math.floor((driverCudaVersion % 1000) / 10);
  if (major >= 13) return `${9 + (major - 13)}.${minor}`;
  if (major === 12) return minor >= 8 ? `8.${minor - 1}` : `8.${Math.min(minor, 5)}`;
  if (major === 11) return `7.${minor}`;
  return '6.4'; // CUDA 10.2 and older: nothing lmforge's libraries are built with
}

/** "13.0" from 13000. */
export function cudaVersionText(driverCudaVersion: number): string {
  return `${Math.floor(driverCudaVersion / 1000)}.${Math.floor((driverCudaVersion % 1000) / 10)}`;
}

export const smName = (arch: number): string => `sm_${arch}`;

/** What the summary holds, for messages: "SASS sm_86/89/120/121, PTX 9.1 for compute_75/80/90". */
export function describeFatBinary(summary: FatBinarySummary): string {
  const sass = summary.sass.length ? `SASS sm_${summary.sass.join('/')}` : 'no SASS';
  const byIsa = new Map<string, number[]>();
  for (const { arch, isa } of summary.ptx) byIsa.set(isa, [...(byIsa.get(isa) ?? []), arch]);
  const ptx = [...byIsa].map(([isa, archs]) => `PTX ${isa} for compute_${archs.join('/')}`).join(', ') || 'no PTX';
  return `${sass}, ${ptx}`;
}

export function cudaFit(card: CudaCard, driverCudaVersion: number, summary: FatBinarySummary): CudaFit {
  const cc = card.computeCapability;
  const major = Math.floor(cc / 10);
  const sass = summary.sass.filter((arch) => Math.floor(arch / 10) === major && arch <= cc).at(-1);
  if (sass !== undefined) {
    return { kind: 'sass', arch: sass, reason: sass === cc ? `machine code for ${smName(cc)}` : `machine code for ${smName(sass)}, which runs on ${smName(cc)}` };
  }
  const driverIsa = maxPtxIsa(driverCudaVersion);
  const usable = summary.ptx.filter((p) => p.arch <= cc);
  const jit = usable.filter((p) => compareVersions(p.isa, driverIsa) <= 0).at(-1);
  if (jit) {
    return {
      kind: 'ptx-jit',
      arch: jit.arch,
      isa: jit.isa,
      reason: `no machine code for ${smName(cc)}; the driver compiles its PTX for compute_${jit.arch} (ISA ${jit.isa}) at load time`,
    };
  }
  const has = `it has ${describeFatBinary(summary)}`;
  if (usable.length === 0) return { kind: 'none', reason: `no machine code for ${smName(cc)} and no PTX for compute_${cc} or older (${has})` };
  return {
    kind: 'none',
    reason:
      `no machine code for ${smName(cc)}, and its PTX is ISA ${usable.at(-1)!.isa}, newer than this driver ` +
      `(CUDA ${cudaVersionText(driverCudaVersion)}) compiles (ISA ≤ ${driverIsa}) (${has})`,
  };
}

/** A CUDA library lmforge could load, and what it is called in messages. */
export interface CudaLibraryCandidate {
  /** "@node-llama-cpp/linux-x64-cuda", "lmforge backend build (sm_90)", … */
  label: string;
  summary: FatBinarySummary;
  /** CUDA runtime libraries it links against that this machine cannot load (libcudart.so.12, …). */
  missingLibraries?: readonly string[];
}

export interface CudaChoice<C extends CudaLibraryCandidate> {
  /** The library to load, or undefined when none can run on the card. */
  chosen?: C;
  fit?: CudaFit;
  /** Start-up lines: which library, and why the others were passed over. */
  lines: string[];
}

function fitOf(candidate: CudaLibraryCandidate, card: CudaCard, driverCudaVersion: number): CudaFit {
  const missing = candidate.missingLibraries ?? [];
  if (missing.length) return { kind: 'none', reason: `it needs ${missing.join(', ')}, which cannot be loaded here` };
  return cudaFit(card, driverCudaVersion, candidate.summary);
}

/**
 * Picks the first candidate with machine code for the card, else the first the driver can
 * JIT (slow first start, no code tuned for the card), else none. Candidates come in order of
 * preference: a local build for the card, the prebuilt package, its fallback build.
 */
export function chooseCudaLibrary<C extends CudaLibraryCandidate>(card: CudaCard, driverCudaVersion: number, candidates: readonly C[]): CudaChoice<C> {
  const fits = candidates.map((candidate) => ({ candidate, fit: fitOf(candidate, card, driverCudaVersion) }));
  const where = `${card.name} (${smName(card.computeCapability)}, driver CUDA ${cudaVersionText(driverCudaVersion)})`;
  const pick = fits.find((f) => f.fit.kind === 'sass') ?? fits.find((f) => f.fit.kind === 'ptx-jit');
  const passedOver = fits.filter((f) => f !== pick && (!pick || fits.indexOf(f) < fits.indexOf(pick))).map((f) => `${f.candidate.label}: ${f.fit.reason}`);
  if (!pick) {
    return {
      lines: [
        `no CUDA library here can run on ${where}: ${passedOver.join('; ') || 'none is installed'}. ` +
          `Run \`lmforge backend build cuda\` to build ggml's CUDA backend for this card (needs nvcc and cmake), or use --device cpu`,
      ],
    };
  }
  const lines = [`cuda: ${pick.candidate.label} on ${where}: ${pick.fit.reason}`];
  if (passedOver.length) lines.push(`cuda: passed over ${passedOver.join('; ')}`);
  if (pick.fit.kind === 'ptx-jit') {
    lines.push(
      `cuda: the first start JIT-compiles the kernels (minutes; the driver caches them in ~/.nv/ComputeCache); ` +
        `\`lmforge backend build cuda\` builds machine code for ${smName(card.computeCapability)} instead`,
    );
  }
  return { chosen: pick.candidate, fit: pick.fit, lines };
}
