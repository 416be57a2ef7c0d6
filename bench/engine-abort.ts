// `npx tsx bench/engine-abort.ts [--tries 3] [--after 20]`
// How long a backend abort keeps the engine's requests waiting: from the last token an engine
// sent to the server knowing its process had died, when the engine calls ggml_abort (through
// the test-only fault switch) after --after tokens. Alternates the default (ggml's backtrace
// off) with LMFORGE_NATIVE_BACKTRACE=1, where ggml first attaches gdb when it is installed.
// On the tiny fixture model, on the CPU.
import { cac } from 'cac';
import { Engine } from '../runtime/engine/client/engine.js';
import { tinyModelPath } from '../fixtures/paths.js';
import { median } from '../cli/serve-bench/percentile.js';

const cli = cac('engine-abort');
cli.option('--tries <n>', 'Aborts of each kind, alternated', { default: 3 });
cli.option('--after <n>', 'Tokens the engine sends before it aborts', { default: 20 });
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);

/** Milliseconds from the engine's last token to the server's 'engine failed' log line. */
async function abortDelay(backtrace: boolean): Promise<number> {
  process.env.LMFORGE_TEST_ENGINE_FAULT = `abort-after:${Number(options.after)}`;
  if (backtrace) process.env.LMFORGE_NATIVE_BACKTRACE = '1';
  let engine: Engine;
  try {
    engine = await Engine.create({ modelPath: tinyModelPath, device: 'cpu', mode: 'local', overrides: { context_window_size: 256 }, threads: 1 });
  } finally {
    delete process.env.LMFORGE_TEST_ENGINE_FAULT;
    delete process.env.LMFORGE_NATIVE_BACKTRACE;
  }
  let lastToken = performance.now();
  const failed = new Promise<number>((resolve) => {
    engine.onLog = (line) => line.startsWith('engine failed') && resolve(performance.now());
  });
  void (async () => {
    try {
      for await (const event of engine.generate({ prompt: [464, 2068], maxTokens: 10 * Number(options.after), ignoreEos: true, sampling: { temperature: 0 } })) {
        if (event.type === 'delta') lastToken = performance.now();
      }
    } catch {
      // engine_failed: what this bench waits for.
    }
  })();
  const at = await failed;
  await engine.dispose();
  return at - lastToken;
}

const delays = { default: [] as number[], backtrace: [] as number[] };
for (let i = 0; i < Number(options.tries); i++) {
  delays.default.push(await abortDelay(false));
  delays.backtrace.push(await abortDelay(true));
}
const show = (values: number[]) => `median ${median(values).toFixed(0)} ms (${values.map((v) => v.toFixed(0)).join(', ')})`;
console.log(`last token -> engine failed, GGML_NO_BACKTRACE (default):  ${show(delays.default)}`);
console.log(`last token -> engine failed, LMFORGE_NATIVE_BACKTRACE=1:   ${show(delays.backtrace)}`);
