// The step budget's arithmetic: full chunks alone, a learnt allowance beside streams, and the
// bound under which a prompt is computed whole.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { StepBudget, WHOLE_PROMPT_TOKENS } from '../../runtime/engine/worker/step-budget.js';

const test = suite('step budget');

function learnt(): StepBudget {
  const budget = new StepBudget({ chunk: 2048, slowdown: 2.5, minTokens: 8, firstGuess: 64 });
  budget.observe(4, 0, 20_000); // a decode step of 4 streams: 20 ms
  budget.observe(0, 500, 1_000_000); // a lone prefill: 2 ms a prompt token
  return budget;
}

test('before any cost is known, a lone request prefills one micro-batch and streams get the first guess', () => {
  const budget = new StepBudget({ chunk: 2048, firstGuess: 64 });
  assert.is(budget.catchUpTokens(0), 512);
  assert.is(budget.catchUpTokens(3), 64);
  assert.is(new StepBudget({ chunk: 100 }).catchUpTokens(0), 100, 'never above the chunk');
});

test('a lone request prefills about a second a step, in whole micro-batches, up to the chunk (a cancel waited out a whole long prefill)', () => {
  const budget = new StepBudget({ chunk: 8192 });
  budget.observe(0, 512, 102_400); // 0.2 ms a prompt token: 5,000 a second
  assert.is(budget.catchUpTokens(0), 4608, 'nine micro-batches, the most within a second');
  const slow = new StepBudget({ chunk: 8192 });
  slow.observe(0, 512, 5_000_000); // 10 ms a token
  assert.is(slow.catchUpTokens(0), 512, 'at least one micro-batch');
  const fast = new StepBudget({ chunk: 8192 });
  fast.observe(0, 8192, 50_000); // a GPU
  assert.is(fast.catchUpTokens(0), 8192, 'the chunk bounds it');
  assert.is(learnt().catchUpTokens(0), 512);
});

test('beside streams, prompt tokens keep the step near `slowdown` decode steps', () => {
  // (2.5 - 1) × 20 ms of room at 2 ms a token.
  assert.is(learnt().catchUpTokens(4), 15);
});

test('more waiting prompts per stream buy a larger allowance; never below the floor or above the chunk', () => {
  const budget = learnt();
  assert.is(budget.catchUpTokens(1, 3), 45, 'three prompts behind one fresh stream');
  assert.is(budget.catchUpTokens(4, 2), 15, 'fewer prompts than streams: the plain allowance');
  budget.observe(4, 10, 500_000); // prompt tokens turn expensive (48 ms each, averaged in)
  assert.is(budget.catchUpTokens(4), 8);
  assert.is(budget.catchUpTokens(1, 1000), 2048);
});

test('the whole-prompt bound defaults to a chat turn and never exceeds the chunk', () => {
  assert.is(new StepBudget({ chunk: 2048 }).wholePrompt, WHOLE_PROMPT_TOKENS);
  assert.is(new StepBudget({ chunk: 100 }).wholePrompt, 100);
  assert.is(new StepBudget({ chunk: 2048, wholePrompt: 0 }).wholePrompt, 0);
});

test.run();
