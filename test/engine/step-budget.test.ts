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

test('a lone request prefills whole chunks; before any cost is known, streams get the first guess', () => {
  const budget = new StepBudget({ chunk: 2048, firstGuess: 64 });
  assert.is(budget.catchUpTokens(0), 2048);
  assert.is(budget.catchUpTokens(3), 64);
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
