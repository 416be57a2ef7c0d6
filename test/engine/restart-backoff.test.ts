// The engine's restart back-off: 1 s, doubling to 30 s while failures follow each other, and
// back to 1 s after a minute of serving.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RestartBackoff } from '../../runtime/engine/client/restart-backoff.js';

const test = suite('restart back-off');

test('doubles from 1 s up to 30 s while each restart fails', () => {
  const backoff = new RestartBackoff(undefined, () => 0);
  assert.equal(Array.from({ length: 7 }, () => backoff.failed()), [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
});

test('a short serving period keeps the count; a minute of serving resets it', () => {
  let now = 0;
  const backoff = new RestartBackoff(undefined, () => now);
  backoff.serving();
  assert.is(backoff.failed(), 1000);
  backoff.serving();
  now += 59_000;
  assert.is(backoff.failed(), 2000, 'served 59 s: the failures still count');
  backoff.serving();
  now += 60_000;
  assert.is(backoff.failed(), 1000, 'served a minute: back to 1 s');
});

test.run();
