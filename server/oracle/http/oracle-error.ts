import type { ErrorRequestHandler, Response } from 'express';
import { RequestValidationError } from '@ts-rest/express';
import type { OracleError } from '../../../contracts/errors.js';
import { clientErrorStatus, errorKindOf, type ErrorKind } from '../../http/error-kind.js';
import { zodIssueLines } from '../../http/zod-issues.js';
import { AuthError } from '../auth/auth-error.js';
import { OracleHttpError } from '../oracle-http-error.js';
import { BadCursorError } from '../store/messages.js';
import { QuotaExceededError } from '../store/quota.js';

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

type Answer = [status: number, code: OracleError['code'], message: string];

declare module 'express-serve-static-core' {
  interface Locals {
    /** What `Retry-After` says on this request's 503 (ORACLE_RETRY_AFTER_S; the oracle's routes set it). */
    retryAfterSeconds?: number;
  }
}

/** `Retry-After` of a 503 on a route that did not set {@link Locals.retryAfterSeconds}. */
const DEFAULT_RETRY_AFTER_SECONDS = 2;

/**
 * The answer to an error of no type of the service's own, by its kind (server/http/error-kind.ts); a client
 * error keeps its own 4xx status.
 */
const ANSWER_OF_KIND: Readonly<Record<ErrorKind, (clientStatus: number | undefined) => Answer>> = {
  client_error: (status = 400) =>
    status === 413
      ? [413, 'payload_too_large', 'The request body is too large for this oracle.']
      : [status, 'bad_request', 'Malformed request body.'],
  dependency_down: () => [
    503,
    'unavailable',
    'A dependency of the service is unreachable; try again shortly.',
  ],
  internal: () => [500, 'internal', 'Internal error; see the server log under this request id.'],
};

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
    // Every 503 says when to come back (a dependency down, admission refused, a model that failed).
    if (status === 503 && !res.hasHeader('Retry-After')) {
      const retryAfter = res.locals.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
      res.setHeader('Retry-After', String(retryAfter));
      extra = { retryAfter, ...extra };
    }
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
  const kind = errorKindOf(err);
  if (kind === 'dependency_down') res.locals.logger.warn({ err }, 'oracle: a dependency is unreachable');
  if (kind === 'internal') res.locals.logger.error({ err }, 'oracle: unhandled error');
  send(...ANSWER_OF_KIND[kind](clientErrorStatus(err)));
};

function validationMessage(err: RequestValidationError): string {
  const parts = [
    ...zodIssueLines(err.body?.issues ?? [], { root: 'body', limit: 5 }),
    ...zodIssueLines(err.query?.issues ?? [], { root: 'query', limit: 5 }),
    ...zodIssueLines(err.pathParams?.issues ?? [], { root: 'path', limit: 5 }),
    ...zodIssueLines(err.headers?.issues ?? [], { root: 'headers', limit: 5 }),
  ];
  return parts.length ? `Invalid request: ${parts.join('; ')}` : 'Invalid request.';
}
