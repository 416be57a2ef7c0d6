// Test helper: asserts that `run` throws an instance of `type` whose message matches `pattern`.
import * as assert from 'uvu/assert';

export function throwsError(run: () => unknown, type: abstract new (...args: never[]) => Error, pattern: RegExp): void {
  try {
    run();
  } catch (error) {
    assert.instance(error, type);
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected a ${type.name} matching ${pattern}`);
}
