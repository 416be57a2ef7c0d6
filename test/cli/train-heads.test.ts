// `lmforge train-heads` end to end on the tiny model, as users run it: it writes heads in the
// Medusa layout for that model, prints their path last, and an engine drafting with them gives
// the plain engine's greedy output. The trainer's venv (torch 2.13.0 CPU, gguf; about 1 GB)
// is made by the command on first use, as for users: about 40 s here, where pip finds the
// torch wheel on disk.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { Engine } from '../../runtime/engine/client/engine.js';
import { readMedusaWeights } from '../../runtime/engine/worker/speculative/proposers/medusa-format.js';
import { runToEnd } from '../helpers/engine-run.js';
import { startCli } from '../helpers/cli-process.js';

const test = suite('lmforge train-heads');

test('trains heads for the tiny model (--out a folder) that an engine drafts with, outputs unchanged', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmforge-train-heads-'));
  try {
    // --out a folder: the heads go in it under the model's name (it was found a folder only
    // when the trainer, minutes later, failed to write to it).
    const out = join(dir, 'tiny-gpt2.medusa.gguf');
    const run = startCli(['train-heads', tinyModelPath, '--out', dir, '--heads', '2', '--prompts', '12', '--tokens', '16', '--epochs', '1', '--threads', '1', '--concurrency', '4']);
    const code = await run.exit;
    assert.is(code, 0, run.stderr());
    const lines = run.stdout().trim().split('\n');
    assert.is(lines.at(-1), out);
    const summary = JSON.parse(lines.at(-2)!) as { heads: number; positions: number; trainingSeconds: number; accuracy: number[] };
    assert.is(summary.heads, 2);
    assert.ok(summary.positions > 100, `${summary.positions} positions recorded`);
    assert.is(summary.accuracy.length, 2);
    const weights = await readMedusaWeights(out, { path: tinyModelPath, embeddingLength: 64, vocabSize: 50257 });
    assert.is(weights.heads.length, 2);
    assert.ok(weights.tied);

    const base = { modelPath: tinyModelPath, device: 'cpu', mode: 'local' as const, threads: 1 };
    const overrides = { context_window_size: 512, prefix_cache_max_num_recycling_seqs: 0 };
    const plain = await Engine.create({ ...base, overrides });
    const medusa = await Engine.create({ ...base, overrides: { ...overrides, spec_draft_length: 2 }, speculativeMode: 'medusa', draftModelPath: out });
    try {
      for (let seed = 1; seed <= 3; seed++) {
        const request = { prompt: [1000 + seed, 2000, 1000 + seed, 2000, 1000 + seed], maxTokens: 24, sampling: { temperature: 0 } };
        assert.equal((await runToEnd(medusa, request)).choices[0]!.tokens, (await runToEnd(plain, request)).choices[0]!.tokens, `prompt ${seed}`);
      }
      assert.ok((await medusa.stats()).draftTokens > 0, 'the trained heads drafted');
    } finally {
      await plain.dispose();
      await medusa.dispose();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
