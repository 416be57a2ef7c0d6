// The base of every error lmforge throws on purpose. It carries what each reader needs, so no
// reader casts: the HTTP status, OpenAI's error `type`, `code` and `param` (the API's error
// envelope is built from them), and `userFacing` (the message is meant for the person who
// reads it: the CLI prints it as one line, the API answers with these fields). An error that
// is not user-facing is a bug: the CLI keeps its stack and the API answers 500.
// It lives at the bottom of the compiler, the one layer every other may import.

export type ErrorType = 'invalid_request_error' | 'not_found_error' | 'server_error' | 'rate_limit_error';

export interface ErrorFields {
  /** HTTP status; default 500. */
  status?: number;
  /** Default: `invalid_request_error` below 500, `server_error` from 500. */
  type?: ErrorType;
  code?: string | null;
  param?: string | null;
  /** Default false: a bug, not a message for the user. */
  userFacing?: boolean;
}

export class LmforgeError extends Error {
  override name = 'LmforgeError';
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | null;
  readonly param: string | null;
  readonly userFacing: boolean;

  constructor(message: string, fields: ErrorFields = {}) {
    super(message);
    this.status = fields.status ?? 500;
    this.type = fields.type ?? (this.status >= 500 ? 'server_error' : 'invalid_request_error');
    this.code = fields.code ?? null;
    this.param = fields.param ?? null;
    this.userFacing = fields.userFacing ?? false;
  }
}

/** An error whose message is meant for the user (a bad flag, a missing model, a broken file). */
export class UserFacingError extends LmforgeError {
  override name = 'UserFacingError';
  constructor(message: string, fields: Omit<ErrorFields, 'userFacing'> = {}) {
    super(message, { ...fields, userFacing: true });
  }
}
