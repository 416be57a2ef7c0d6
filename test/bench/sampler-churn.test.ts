// bench/sampler-churn.ts end to end on the tiny model: it reports both kinds, tokens per second on
// both paths, and the device engine's re-plans per request, which after its warm-up (greedy) are
// none for greedy requests and at most one a request for the first sampled ones.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';

const test = suite('bench-sampler-churn');
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

test('greedy requests coming and going re-plan nothing once warm; the first sampled ones at most once a request', async () => {
  // 4 running ids and 16 the prefix cache keeps (max(16, width)): until the cache is full a
  // finished request's id stays with its cells, and each new request takes an id not used yet,
  // so the bench's warm-up (as many requests) must outnumber the ids to leave a chain on each.
  const width = 4;
  const requests = 24;
  const args = ['--import', 'tsx', 'bench/sampler-churn.ts', '--model', tinyModelPath, '--width', String(width), '--requests', String(requests), '--reps', '1', '--threads', '1', '--json'];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: repoRoot, timeout: 240_000 });
  const rows = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, number | string | null>);
  assert.equal(rows.map((row) => row.kind), ['greedy', 'sampled']);
  for (const row of rows) {
    assert.ok((row.host_tokens_per_s as number) > 0 && (row.device_tokens_per_s as number) > 0, JSON.stringify(row));
    assert.is(row.ratio, (row.device_tokens_per_s as number) / (row.host_tokens_per_s as number));
  }
  assert.is(rows[0]!.replans_per_request, 0);
  // Each sampled request turns at most its own id's greedy chain into a sampled one: never the
  // two re-plans a request (its chain given, then taken) of chains that leave with their requests.
  assert.ok((rows[1]!.replans_per_request as number) <= 1, `sampled: ${rows[1]!.replans_per_request}`);
});

test.run();
