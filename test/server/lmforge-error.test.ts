// The error base: every layer's errors carry status, type, code and param, and the API envelope
// and the CLI read them without casting.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GrammarError } from '../../compiler/index.js';
import { LmforgeError, UserFacingError } from '../../compiler/lmforge-error.js';
import { toApiError } from '../../runtime/api/to-api-error.js';
import { EngineRequestError } from '../../runtime/engine/client/engine.js';
import { ModelError } from '../../runtime/models/model-errors.js';
import { isUserFacing } from '../../cli/cli-error.js';

const test = suite('lmforge-error');

test('a user-facing error answers with its own fields', () => {
  const error = new UserFacingError('the slot is taken', { status: 409, param: 'slot', code: 'slot_taken' });
  assert.equal(toApiError(error).toJSON(), { error: { message: 'the slot is taken', type: 'invalid_request_error', param: 'slot', code: 'slot_taken' } });
  assert.is(toApiError(error).status, 409);
});

test('an error that is not user-facing is a 500 that says internal error', () => {
  const error = toApiError(new LmforgeError('broken invariant', { status: 400, param: 'x' }));
  assert.is(error.status, 500);
  assert.equal(error.toJSON().error, { message: 'internal error: broken invariant', type: 'server_error', param: null, code: 'internal_error' });
});

test("the engine's prompt is named as the endpoint names it", () => {
  const error = new EngineRequestError({ code: 'context_length_exceeded', message: 'too long' });
  assert.is(error.status, 400);
  assert.is(toApiError(error, { prompt: 'messages' }).param, 'messages');
  assert.is(toApiError(new EngineRequestError({ code: 'server_is_overloaded', message: 'busy' })).status, 503);
});

test('defaults: status 500, type from the status, not user-facing', () => {
  const error = new LmforgeError('x');
  assert.equal([error.status, error.type, error.code, error.param, error.userFacing], [500, 'server_error', null, null, false]);
  assert.is(new LmforgeError('x', { status: 404 }).type, 'invalid_request_error');
});

test('the CLI prints user-facing errors of every layer as one line', () => {
  assert.ok(isUserFacing(new GrammarError('bad grammar')));
  assert.ok(isUserFacing(new ModelError('no such model', 'unknown_model')));
  assert.is(new ModelError('no such model', 'unknown_model').code, 'unknown_model');
  assert.not.ok(isUserFacing(new LmforgeError('a bug')));
  assert.not.ok(isUserFacing(Object.assign(new Error('cast'), { userFacing: true })));
});

test.run();
