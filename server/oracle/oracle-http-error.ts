import type { OracleError } from '../../contracts/errors.js';

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
