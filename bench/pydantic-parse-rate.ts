// How many of the Python SDK test's pydantic requests (test/python/parse_pydantic.py) parse on
// the default model, with extra sampling fields or without: the figure behind DRY's README line.
// Usage: npx tsx bench/pydantic-parse-rate.ts [SEEDS=50] ['{"dry_multiplier": 0.8}' [FIRST_SEED=0]]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pythonSdkDir } from '../fixtures/python-sdk.js';
import { startDefaultModelServer } from '../test/helpers/tiny-server.js';

const script = fileURLToPath(new URL('../test/python/parse_pydantic.py', import.meta.url));
const server = await startDefaultModelServer();
let lines = '';
const child = spawn('python3', [script, `${server.url}/v1`, 'smollm2', process.argv[2] ?? '50', ...process.argv.slice(3)], {
  env: { ...process.env, PYTHONPATH: pythonSdkDir },
  stdio: ['ignore', 'pipe', 'inherit'],
});
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  lines += chunk;
});
await new Promise((resolve) => child.on('close', resolve));
await server.close();
const results = lines.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { seed: number; ok: boolean });
console.log(`${results.filter((result) => result.ok).length}/${results.length} parsed; not parsed: seeds ${results.filter((result) => !result.ok).map((result) => result.seed).join(', ')}`);
