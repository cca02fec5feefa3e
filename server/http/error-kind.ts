import { StoreTimeoutError } from '../with-timeout.js';

/**
 * What a failure is, as far as its answer goes. Every part keeps its own closed codes and exhaustive tables
 * (USSD replies, Cosmos errors, OracleError, ApiError) but takes the kind of an error it did not raise itself
 * from {@link errorKindOf}, so a body parser's 4xx or a database outage is read the same way everywhere.
 */
export const ERROR_KINDS = [
  /** The request is at fault: malformed or oversized body, bad charset (a 4xx `status` from body-parser and the like). */
  'client_error',
  /** A dependency (database, Redis, a store) did not answer in time, refused or broke the connection: retry later. */
  'dependency_down',
  /** Anything else: a bug, logged with its cause under the request id. */
  'internal',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Node's codes for a connection that could not be made or broke (`ECONNREFUSED`, `ECONNRESET`, …). */
const CONNECTION_CODE = /^(ECONN|ETIMEDOUT$|EPIPE$|EHOSTUNREACH$|ENETUNREACH$|ENOTFOUND$|EAI_AGAIN$)/;
/** PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (the server is shutting down or restarting). */
const POSTGRES_DOWN = /^(08|57P)/;
/** What pg and ioredis say, without a code, when their server went away or never answered. */
const DOWN_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Stream isn't writeable|Connection is closed|database ping timed out/i;

/** True for a status in 400–499. */
export function isClientErrorStatus(status: number): boolean {
  return status >= 400 && status < 500;
}

/**
 * The 4xx status an error carries (`status`, or `statusCode` as http-errors also sets): what body-parser and
 * raw-body raise for a malformed, oversized or cut-short body. Undefined for anything else.
 */
export function clientErrorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, statusCode } = err as { status?: unknown; statusCode?: unknown };
  const value = status ?? statusCode;
  return typeof value === 'number' && isClientErrorStatus(value) ? value : undefined;
}

/** True when `err` says a dependency is down: a store timeout, a refused or broken connection, a restarting database. */
function isDependencyDown(err: unknown): boolean {
  if (err instanceof StoreTimeoutError) return true;
  const code = (err as { code?: unknown } | null | undefined)?.code;
  if (typeof code === 'string' && (CONNECTION_CODE.test(code) || POSTGRES_DOWN.test(code))) return true;
  return err instanceof Error && DOWN_MESSAGE.test(err.message);
}

/** The kind of any thrown value (see {@link ERROR_KINDS}); a client error wins over the rest. */
export function errorKindOf(err: unknown): ErrorKind {
  if (clientErrorStatus(err) !== undefined) return 'client_error';
  return isDependencyDown(err) ? 'dependency_down' : 'internal';
}
