// The tool launch options as users run them: `lmforge serve` logs the detected (or chosen)
// tool-call format at start-up, --tool-format overrides it, --tool-call-arguments string gives
// OpenAI's JSON-string arguments, and bad values fail before anything loads.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModelPath } from '../../fixtures/paths.js';
import { freePort, startCli, waitForLine } from '../helpers/cli-process.js';

const test = suite('tool launch options');

const start = (args: string[]) => startCli(['serve', tinyModelPath, ...args]);

test('bad values fail with one line naming the option and the choices', async () => {
  for (const [args, pattern] of [
    [['--tool-format', 'klingon'], /--tool-format 'klingon' is not valid: use one of hermes, llama, qwen3_coder/],
    [['--tool-call-arguments', 'yaml'], /--tool-call-arguments 'yaml' is not valid: use object or string/],
    [['--reasoning', 'maybe'], /--reasoning 'maybe' is not valid: use one of on, off, auto/],
  ] as const) {
    const run = start([...args]);
    assert.is(await run.exit, 1);
    assert.match(run.stderr().trim(), pattern);
    assert.is(run.stderr().trim().split('\n').length, 1, run.stderr());
  }
});

test('the format is logged at start-up; the options change the format and the arguments form', async () => {
  const port = await freePort();
  const run = start(['--port', String(port), '--threads', '1', '--overrides', 'context_window_size=256', '--tool-format', 'llama', '--tool-call-arguments', 'string']);
  try {
    await waitForLine(run, /serving: /);
    assert.match(run.stdout(), /tools: +llama \(--tool-format\); function\.arguments as JSON strings, as OpenAI sends them/);
    assert.match(run.stdout(), /reasoning: off \(the chat template has no <\/think>\)/);
    const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: tinyModelPath,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'ping', parameters: { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 9 } }, required: ['n'] } } }],
        tool_choice: { type: 'function', function: { name: 'ping' } },
        max_tokens: 60,
        seed: 1,
      }),
    });
    const body = (await response.json()) as { choices: { finish_reason: string; message: { tool_calls: { function: { name: string; arguments: unknown } }[] } }[] };
    const choice = body.choices[0]!;
    assert.is(choice.finish_reason, 'tool_calls', JSON.stringify(body));
    assert.type(choice.message.tool_calls[0]!.function.arguments, 'string');
    assert.type(JSON.parse(choice.message.tool_calls[0]!.function.arguments as string).n, 'number');
  } finally {
    run.child.kill('SIGKILL');
  }
});

test.run();
