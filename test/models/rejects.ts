// Test helper: uvu/assert has no async `rejects`; this returns the error for further checks.
import * as assert from 'uvu/assert';

export async function rejects(run: () => Promise<unknown>, pattern?: RegExp): Promise<Error> {
  try {
    await run();
  } catch (error) {
    assert.instance(error, Error);
    if (pattern) assert.match((error as Error).message, pattern);
    return error as Error;
  }
  assert.unreachable('expected a rejection');
  throw new Error('unreachable');
}
