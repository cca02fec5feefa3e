import type { Response } from 'express';
import type { ApiError } from '../../contracts/errors.js';
import { clientErrorStatus, errorKindOf, type ErrorKind } from './error-kind.js';

/** Answers the gateway's JSON error (`ApiError`) with the request's id. */
export function sendApiError(res: Response, status: number, code: ApiError['code'], message: string): void {
  const body: ApiError = { code, message, requestId: res.locals.requestId };
  res.status(status).json(body);
}

/** The last-resort answer to an error no part answered: its kind, status, code and message. */
export interface LastResortAnswer {
  kind: ErrorKind;
  status: number;
  code: ApiError['code'];
  message: string;
}

/** The answer by kind (server/http/error-kind.ts); a client error keeps its own 4xx status. */
const ANSWER_OF_KIND: Readonly<
  Record<ErrorKind, (clientStatus: number | undefined) => Omit<LastResortAnswer, 'kind'>>
> = {
  client_error: (status = 400) => ({ status, code: 'bad_request', message: 'Malformed request.' }),
  dependency_down: () => ({
    status: 503,
    code: 'unavailable',
    message: 'A dependency of the service is unreachable; retry later.',
  }),
  internal: () => ({
    status: 500,
    code: 'internal',
    message: 'Internal error; see the server log under this request id.',
  }),
};

/**
 * What the app answers for an error that reached its last-resort handler (app.ts), and the fast path for a
 * direct handler that threw (fast-path.ts): the same answer either way.
 */
export function lastResortAnswer(err: unknown): LastResortAnswer {
  const kind = errorKindOf(err);
  return { kind, ...ANSWER_OF_KIND[kind](clientErrorStatus(err)) };
}
