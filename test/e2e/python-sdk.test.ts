// The default model through the official OpenAI Python SDK, as its users write structured
// output: client.chat.completions.parse with pydantic models, for 50 seeds. An output either
// parses into its model or ran out of tokens inside its own content (this 135M model can list
// names or steps for 1,000 tokens): it never runs on as whitespace after (or instead of) the
// value, and never holds a value pydantic refuses. And vLLM's request fields, as the same SDK's
// users send them to vLLM.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pythonSdkDir } from '../../fixtures/python-sdk.js';
import { startDefaultModelServer, type TinyServer } from '../helpers/tiny-server.js';

const test = suite<{ s: TinyServer }>('python sdk');

test.before(async (context) => {
  context.s = await startDefaultModelServer();
});
test.after(async (context) => {
  await context.s.close();
});

const script = fileURLToPath(new URL('../python/parse_pydantic.py', import.meta.url));
const vllmFieldsScript = fileURLToPath(new URL('../python/vllm_fields.py', import.meta.url));

function runPython(args: string[], path = script): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [path, ...args], { env: { ...process.env, PYTHONPATH: pythonSdkDir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('client.chat.completions.parse with pydantic models: 50 seeds end in JSON that parses, never in whitespace', async ({ s }) => {
  const { stdout, stderr } = await runPython([`${s.url}/v1`, 'smollm2', '50']);
  const results = stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  assert.is(results.length, 50, stderr);
  for (const result of results) {
    if (result.ok) {
      assert.is(result.finish_reason, 'stop');
      continue;
    }
    // Nothing but running out of tokens: never a value pydantic refuses (Infinity, 1e204 for an int).
    assert.is(result.error, 'LengthFinishReasonError', JSON.stringify(result));
    // And what ran out is content, not whitespace: every run between tokens of the JSON is at
    // most a line break and 20 spaces or tabs (inside strings, spaces are the model's content),
    // and the output is still inside its value (it was whitespace until max_tokens before,
    // with the object long finished).
    const content: string = result.content;
    const structure = withoutStrings(content);
    assert.not.ok(/[ \t\r\n]{23,}/.test(structure) || /\n[ \t]*\n/.test(structure), `a whitespace run: ${JSON.stringify(structure.slice(-200))}`);
    assert.not.ok(/[}\]]\s*$/.test(content) && content.trim().startsWith('{') && isWholeJson(content), `a finished object: ${JSON.stringify(content.slice(-200))}`);
  }
  const parsed = results.filter((result) => result.ok).length;
  console.log(`  ${parsed}/50 parsed; the rest ran out of tokens inside their strings or lists`);
});

test("vLLM's fields as its users send them (extra_body) and read them (model_extra): guided_json, choice, min_tokens, prompt_logprobs, return_tokens_as_token_ids, continue_final_message", async ({ s }) => {
  const { code, stdout, stderr } = await runPython([`${s.url}/v1`, 'smollm2'], vllmFieldsScript);
  const checks = stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
  assert.equal(checks.map((check) => check.check), ['guided_json', 'choice', 'min_tokens', 'prompt_logprobs', 'return_tokens_as_token_ids', 'continue_final_message'], stderr);
  for (const check of checks) assert.ok(check.ok, JSON.stringify(check));
  assert.is(code, 0, stderr);
});

/** JSON text with every string literal (finished or not) replaced by "": what the grammar's whitespace bound covers. */
function withoutStrings(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*("|$)/gs, '""');
}

function isWholeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

test.run();
