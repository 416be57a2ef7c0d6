// The command line that bench:engine and bench:constrained share: the model, how many
// repetitions, tokens per sequence, and the widths (concurrent sequences) to measure.
import { availableParallelism } from 'node:os';
import { cac } from 'cac';
import { pullModel } from '../../runtime/models/pull-model.js';

export interface DecodeBenchOptions {
  modelPath: string;
  widths: number[];
  reps: number;
  maxTokens: number;
  json: boolean;
  /** Decode threads; default os.availableParallelism(). */
  threads: number;
}

/** Parses argv (exits after --help, or with one line on a bad value); pulls the default model when no --model is given. */
export async function decodeBenchOptions(name: string, defaults: { reps: number; widths: string }): Promise<DecodeBenchOptions> {
  const cli = cac(name);
  cli.option('--model <path>', 'GGUF file (default: the default model, pulled if needed)');
  cli.option('--reps <n>', 'Repetitions of each measurement', { default: defaults.reps });
  cli.option('--tokens <n>', 'Tokens generated per sequence (the first comes from the prefill)', { default: 128 });
  cli.option('--widths <list>', 'Concurrent sequences, comma-separated', { default: defaults.widths });
  cli.option('--threads <n>', 'Decode threads (default: every CPU; fewer on a busy machine)', { default: availableParallelism() });
  cli.option('--json', 'One JSON object per width instead of the table');
  cli.help();
  const { options } = cli.parse();
  if (options.help) process.exit(0);
  const widths = String(options.widths).split(',').map(Number);
  const reps = Number(options.reps);
  const maxTokens = Number(options.tokens);
  const threads = Number(options.threads);
  if (!widths.every((w) => Number.isInteger(w) && w >= 1) || !(reps >= 1) || !(maxTokens >= 2) || !(Number.isInteger(threads) && threads >= 1)) {
    console.error(`${name}: --widths must be whole numbers ≥ 1, --reps ≥ 1, --tokens ≥ 2, --threads ≥ 1`);
    process.exit(1);
  }
  const modelPath = typeof options.model === 'string' ? options.model : await pullModel();
  return { modelPath, widths, reps, maxTokens, json: options.json === true, threads };
}
