// How often the same request gives a different answer on the same server: a prompt computed
// whole (no prefix cache) against the same prompt served from the prefix cache (its first
// tokens from an earlier request, the rest computed alone), and one thread count against
// another. Greedy and seeded requests, on the default model, one request at a time.
//
//   npx tsx bench/determinism.ts                     # SmolLM2, threads 1 and 2, 16 prompts × 2 modes
//   npx tsx bench/determinism.ts --prompts 4 --max-tokens 16 --threads 1,2
//   npx tsx bench/determinism.ts --json
//
// Each thread count gets two fresh servers: one without a prefix cache
// (prefix_cache_max_num_recycling_seqs=0), whose answers are the reference, and one with the
// default cache, which gets every request three times in a row: the first time its prompt
// shares only the chat template's first tokens with earlier requests, the second time all but
// its last token is a hit, the third time with `cache_prompt: false` (computed whole again). A row counts the answers that differ from the reference, and for those
// the mean index of the first character that differs.
import { cac } from 'cac';
import { defaultModelFile } from '../runtime/models/pull-model.js';
import { startServer, type RunningServer } from './prefix/servers.js';

const cli = cac('determinism');
cli.option('--model <path>', 'GGUF to serve (default: the default model in $LMFORGE_HOME/models)');
cli.option('--threads <list>', 'thread counts, comma-separated', { default: '1,2' });
cli.option('--prompts <n>', 'prompts per mode (at most 16)', { default: 16 });
cli.option('--max-tokens <n>', 'tokens per answer', { default: 48 });
cli.option('--json', 'one JSON object per row');
cli.help();
const { options } = cli.parse();
if (options.help) process.exit(0);

const QUESTIONS = [
  'What is the capital of France?',
  'Name three rivers in Africa.',
  'Write a haiku about autumn.',
  'Explain what a prime number is.',
  'Give me a recipe for pancakes.',
  'Why is the sky blue?',
  'List the planets of the solar system.',
  'What does a compiler do?',
  'Tell me a short story about a cat.',
  'How do I sort a list in Python?',
  'What is the boiling point of water?',
  'Describe the color green to someone who cannot see.',
  'Suggest a name for a bakery.',
  'What is 17 times 23?',
  'Translate "good morning" into Spanish.',
  'Summarise the plot of Romeo and Juliet.',
];

interface Mode {
  name: string;
  body: (index: number) => Record<string, unknown>;
}
const MODES: Mode[] = [
  { name: 'greedy', body: () => ({ temperature: 0 }) },
  { name: 'seeded (temperature 1)', body: (index) => ({ temperature: 1, seed: index + 1 }) },
];

const model = options.model ?? defaultModelFile();
const promptCount = Math.min(QUESTIONS.length, Number(options.prompts));
const maxTokens = Number(options.maxTokens);
const threadCounts = String(options.threads).split(',').map(Number);

async function answer(server: RunningServer, question: string, extra: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: question }], max_tokens: maxTokens, ...extra }),
  });
  const body = (await response.json()) as { choices?: { message: { content: string } }[]; error?: { message: string } };
  if (!response.ok || !body.choices) throw new Error(`request failed: ${response.status} ${body.error?.message}`);
  return body.choices[0]!.message.content;
}

async function withServer<T>(threads: number, promptCache: boolean, run: (server: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer('lmforge', {
    model, slots: 4, kvCells: 8192, contextWindow: 2048, prefillChunk: 2048, threads, promptCache,
  });
  try {
    return await run(server);
  } finally {
    await server.stop();
  }
}

interface Row {
  threads: string;
  mode: string;
  comparison: string;
  differ: number;
  total: number;
  meanFirstDifference: number | null;
}

function compare(threads: string, mode: string, comparison: string, reference: string[], other: string[]): Row {
  const firsts: number[] = [];
  reference.forEach((text, i) => {
    const o = other[i]!;
    if (text === o) return;
    let k = 0;
    while (k < text.length && text[k] === o[k]) k++;
    firsts.push(k);
  });
  return {
    threads, mode, comparison, differ: firsts.length, total: reference.length,
    meanFirstDifference: firsts.length ? Math.round(firsts.reduce((a, b) => a + b, 0) / firsts.length) : null,
  };
}

const modelName = async (server: RunningServer) => {
  const list = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: { id: string }[] };
  return list.data[0]!.id;
};

const rows: Row[] = [];
const references = new Map<number, Map<string, string[]>>();
for (const threads of threadCounts) {
  const byMode = new Map<string, string[]>();
  await withServer(threads, false, async (server) => {
    const name = await modelName(server);
    for (const mode of MODES) {
      const texts: string[] = [];
      for (let i = 0; i < promptCount; i++) texts.push(await answer(server, QUESTIONS[i]!, { model: name, ...mode.body(i) }));
      byMode.set(mode.name, texts);
    }
  });
  references.set(threads, byMode);
  await withServer(threads, true, async (server) => {
    const name = await modelName(server);
    for (const mode of MODES) {
      const first: string[] = [];
      const second: string[] = [];
      const uncached: string[] = [];
      for (let i = 0; i < promptCount; i++) {
        first.push(await answer(server, QUESTIONS[i]!, { model: name, ...mode.body(i) }));
        second.push(await answer(server, QUESTIONS[i]!, { model: name, ...mode.body(i) }));
        uncached.push(await answer(server, QUESTIONS[i]!, { model: name, ...mode.body(i), cache_prompt: false }));
      }
      const reference = byMode.get(mode.name)!;
      rows.push(compare(String(threads), mode.name, 'template prefix from cache', reference, first));
      rows.push(compare(String(threads), mode.name, 'whole prompt from cache', reference, second));
      rows.push(compare(String(threads), mode.name, 'whole prompt cached, cache_prompt: false', reference, uncached));
    }
  });
}
for (let a = 0; a < threadCounts.length; a++) {
  for (let b = a + 1; b < threadCounts.length; b++) {
    for (const mode of MODES) {
      const left = references.get(threadCounts[a]!)!.get(mode.name)!;
      const right = references.get(threadCounts[b]!)!.get(mode.name)!;
      rows.push(compare(`${threadCounts[a]} vs ${threadCounts[b]}`, mode.name, 'no cache, other thread count', left, right));
    }
  }
}

if (options.json) {
  for (const row of rows) console.log(JSON.stringify({ model, maxTokens, ...row }));
} else {
  console.log(`model ${model}, ${promptCount} prompts per mode, ${maxTokens} tokens each; reference: the same server's answer without a prefix cache`);
  console.log('| threads | mode | compared with | answers that differ | mean first differing character |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.threads} | ${r.mode} | ${r.comparison} | ${r.differ} / ${r.total} | ${r.meanFirstDifference ?? '–'} |`);
}
