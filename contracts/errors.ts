import { z } from 'zod';

/**
 * Closed set of error codes for every JSON endpoint outside the USSD session endpoint (which answers plain
 * text) and the chain gateway (which answers the Cosmos `{code, message, details}` form).
 */
export const API_ERROR_CODES = [
  /** The request failed validation: a path, query or body value is malformed. */
  'bad_request',
  /** Credentials are missing or wrong. */
  'unauthorized',
  /** The route or resource does not exist (also answered for hidden operator routes). */
  'not_found',
  /** The USSD session expired or never started; the user must dial again. */
  'session_not_found',
  /** Too many requests from this client in the current window. */
  'rate_limited',
  /** A dependency (database, store) is unreachable; retry later. */
  'unavailable',
  /** An unexpected server error; details are in the server log under the request id. */
  'internal',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * The one JSON error shape of the project's JSON APIs, declared once.
 *
 * @example
 * { "code": "session_not_found", "message": "Session not found or expired. Dial again.", "requestId": "4f0c…" }
 */
export const ApiError = z
  .object({
    code: z.enum(API_ERROR_CODES),
    message: z.string(),
    requestId: z.string().optional(),
  })
  .strict();

export type ApiError = z.infer<typeof ApiError>;
