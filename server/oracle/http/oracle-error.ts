import type { ErrorRequestHandler, Response } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import type { OracleError } from '../../../contracts/errors.js';
import { AuthError } from '../auth/auth-error.js';
import { BadCursorError } from '../store/messages.js';
import { QuotaExceededError } from '../store/quota.js';

/** A refusal of the agent service with its status and code (contracts/errors.ts OracleError). */
export class OracleHttpError extends Error {
  override name = 'OracleHttpError';
  constructor(
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 413 | 422 | 429 | 503,
    readonly code: OracleError['code'],
    message: string,
    readonly extra: Pick<
      OracleError,
      'outstandingClaims' | 'paymentMemo' | 'retryAfter' | 'mismatch' | 'quota'
    > = {},
  ) {
    super(message);
  }
}

/** The session is absent or someone else's: the same answer either way. */
export function notFound(): OracleHttpError {
  return new OracleHttpError(404, 'session_not_found', 'Chat session not found.');
}

/** The run is absent, no longer kept, or someone else's: the same answer either way. */
export function runNotFound(): OracleHttpError {
  return new OracleHttpError(404, 'run_not_found', 'Run not found.');
}

/** The room is absent or the caller is not a member: the same answer either way (no existence leak). */
export function roomNotFound(): OracleHttpError {
  return new OracleHttpError(404, 'room_not_found', 'Room not found.');
}

/** Builds the JSON error body; `statusCode` repeats the HTTP status for clients that read it from the body. */
export function errorBody(
  res: Response,
  status: number,
  code: OracleError['code'],
  message: string,
  extra = {},
): OracleError {
  return { code, message, statusCode: status, requestId: res.locals.requestId, ...extra };
}

/** Errors a database or Redis outage raises: the answer is 503, and the client may retry. */
function isUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : '';
  return (
    (typeof code === 'string' &&
      (/^(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN)/.test(code) || /^(57P|08)/.test(code))) ||
    /Connection terminated|timeout exceeded when trying to connect|Stream isn't writeable|Connection is closed|database ping timed out/i.test(
      message,
    )
  );
}

/**
 * The one place where the agent service's errors become responses: capability-token failures (401 with their
 * code), declared refusals, validation errors (400, naming the fields, never echoing values), unreachable
 * dependencies (503) and anything else (500, logged with the request id; no stack reaches the client).
 */
export const oracleErrorHandler: ErrorRequestHandler = (err: unknown, _req, res, next) => {
  if (res.headersSent) {
    next(err);
    return;
  }
  const send = (status: number, code: OracleError['code'], message: string, extra = {}): void => {
    res.status(status).json(errorBody(res, status, code, message, extra));
  };
  if (err instanceof AuthError) return send(401, err.code, err.message);
  if (err instanceof OracleHttpError) {
    // A refusal for a limit says when to come back, in the header too (RFC 9110 §10.2.3).
    if (err.extra.retryAfter !== undefined) res.setHeader('Retry-After', String(err.extra.retryAfter));
    return send(err.status, err.code, err.message, err.extra);
  }
  // A quota does not lift with time (no Retry-After): the caller deletes something, or the operator raises it.
  if (err instanceof QuotaExceededError)
    return send(403, 'quota_exceeded', err.message, { quota: { name: err.quota, limit: err.limit } });
  if (err instanceof BadCursorError)
    return send(400, 'bad_request', 'The cursor is not one this service gave out.');
  if (err instanceof RequestValidationError) return send(400, 'bad_request', validationMessage(err));
  const status = (err as { status?: unknown } | null)?.status;
  if (status === 413) {
    return send(413, 'payload_too_large', 'The request body is too large for this oracle.');
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return send(status, 'bad_request', 'Malformed request body.');
  }
  if (isUnavailable(err)) {
    res.locals.logger.warn({ err }, 'oracle: a dependency is unreachable');
    return send(503, 'unavailable', 'A dependency of the service is unreachable; try again shortly.');
  }
  res.locals.logger.error({ err }, 'oracle: unhandled error');
  send(500, 'internal', 'Internal error; see the server log under this request id.');
};

function validationMessage(err: RequestValidationError): string {
  const parts: string[] = [];
  const add = (
    where: string,
    error: { issues: { path: (string | number)[]; message: string }[] } | null,
  ): void => {
    for (const issue of error?.issues.slice(0, 5) ?? []) {
      parts.push(`${where}${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`);
    }
  };
  add('body', err.body);
  add('query', err.query);
  add('path', err.pathParams);
  add('headers', err.headers);
  return parts.length ? `Invalid request: ${parts.join('; ')}` : 'Invalid request.';
}
