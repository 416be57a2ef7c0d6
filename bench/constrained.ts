// `npm run bench:constrained [-- --json] [--model PATH] [--reps 3] [--tokens 128] [--widths 1,16]`
// Output-token throughput of the engine with a JSON schema against the same requests without
// one, on the default model, measured alternately in one process. The schema forces outputs
// longer than --tokens, so both sides generate exactly --tokens per request; the constrained
// side pays for its masks (prepared while the decode runs) and the masked sampling.
// The goal is a ratio (constrained / unconstrained) ≥ 0.95.
import { performance } from 'node:perf_hooks';
import { Engine } from '../runtime/engine/client/engine.js';
import type { GenerateRequest } from '../runtime/engine/protocol.js';
import { decodeBenchOptions } from './engine/decode-options.js';
import { median } from '../cli/serve-bench/percentile.js';

const { modelPath, widths, reps, maxTokens, json } = await decodeBenchOptions('bench:constrained', { reps: 3, widths: '1,16' });
const engine = await Engine.create({ modelPath, device: 'cpu', mode: 'local', overrides: { max_num_sequence: Math.max(...widths) } });

const schema = {
  type: 'array',
  minItems: 40,
  items: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 2, maxLength: 16 }, age: { type: 'integer', minimum: 0, maximum: 120 }, city: { type: 'string', maxLength: 24 } },
    required: ['name', 'age', 'city'],
    additionalProperties: false,
  },
};
const grammar = await engine.compileGrammar({ kind: 'json_schema', schema });
const prompt = '<|im_start|>user\nList forty people with their name, age and city as JSON.<|im_end|>\n<|im_start|>assistant\n';

/** Output tokens per second of `width` identical requests started together, first token to last. */
async function throughput(width: number, constrained: boolean): Promise<number> {
  const request: GenerateRequest = { prompt, maxTokens, ignoreEos: true, sampling: { temperature: 0 }, ...(constrained ? { grammar } : {}) };
  const started = performance.now();
  let tokens = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for await (const event of engine.generate(request)) if (event.type === 'delta') tokens += event.tokens.length;
    }),
  );
  if (tokens !== width * maxTokens) throw new Error(`generated ${tokens} tokens, expected ${width * maxTokens}`);
  return tokens / ((performance.now() - started) / 1000);
}

await throughput(1, true); // warm-up: the grammar's first masks, caches
await throughput(1, false);
const rows = [];
for (const width of widths) {
  const constrained: number[] = [];
  const free: number[] = [];
  const ratios: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    // Alternate the order, so drifting load on a shared machine favours neither side.
    const first = rep % 2 === 0;
    const a = first ? await throughput(width, true) : 0;
    const b = await throughput(width, false);
    const c = first ? a : await throughput(width, true);
    constrained.push(c);
    free.push(b);
    ratios.push(c / b);
  }
  rows.push({ width, constrained_tokens_per_s: median(constrained), unconstrained_tokens_per_s: median(free), ratio: median(ratios) });
}
await engine.dispose();

if (json) {
  for (const row of rows) console.log(JSON.stringify(row));
} else {
  console.log(`output tokens/s, ${modelPath.split('/').at(-1)}, JSON schema vs none, ${maxTokens} tokens per request, median of ${reps}`);
  console.log('width  constrained  unconstrained  ratio');
  for (const row of rows) {
    console.log(`${String(row.width).padEnd(6)} ${row.constrained_tokens_per_s.toFixed(1).padStart(11)}  ${row.unconstrained_tokens_per_s.toFixed(1).padStart(13)}  ${row.ratio.toFixed(3)}`);
  }
}
