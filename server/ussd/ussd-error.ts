import { USSD_INVALID_INPUT_REPLY, USSD_UNAVAILABLE_REPLY, type UssdReply } from '../../contracts/ussd.js';
import { errorKindOf, type ErrorKind } from '../http/error-kind.js';

/** Every way a USSD request can fail, closed: each has its reply in {@link USSD_ERROR_REPLIES}. */
export const USSD_ERROR_CODES = [
  /** The request failed validation, or its body could not be parsed (bad JSON, too large, bad charset). */
  'invalid_input',
  /** A dependency (session store, Redis, the database) did not answer, or refused the connection. */
  'unavailable',
  /** Anything else: a bug, logged with its cause under the request id. */
  'internal',
] as const;
export type UssdErrorCode = (typeof USSD_ERROR_CODES)[number];

/** How a failure is answered (spec section 7 A, always HTTP 200 text) and counted (`ussd_requests_total`). */
export interface UssdErrorReply {
  reply: UssdReply;
  outcome: 'invalid' | 'error';
}

/** The reply to each code. Exhaustive: a new code does not compile until it has a reply. */
export const USSD_ERROR_REPLIES: Readonly<Record<UssdErrorCode, UssdErrorReply>> = {
  invalid_input: { reply: USSD_INVALID_INPUT_REPLY, outcome: 'invalid' },
  unavailable: { reply: USSD_UNAVAILABLE_REPLY, outcome: 'error' },
  internal: { reply: USSD_UNAVAILABLE_REPLY, outcome: 'error' },
};

/** The code of an error the gateway did not raise itself, by its kind (server/http/error-kind.ts). */
const CODE_OF_KIND: Readonly<Record<ErrorKind, UssdErrorCode>> = {
  client_error: 'invalid_input',
  dependency_down: 'unavailable',
  internal: 'internal',
};

/** The one error type of the USSD gateway, the way `ChainError` is the chain gateway's. */
export class UssdError extends Error {
  override name = 'UssdError';

  constructor(
    readonly code: UssdErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The reply and metrics outcome of this error. */
  get answer(): UssdErrorReply {
    return USSD_ERROR_REPLIES[this.code];
  }

  /**
   * Normalises anything thrown while serving a request, keeping it as `cause`: a body parser's 4xx error
   * is the client's invalid input; a store timeout or a refused or broken connection is `unavailable`;
   * anything else is `internal`.
   */
  static from(err: unknown): UssdError {
    if (err instanceof UssdError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new UssdError(CODE_OF_KIND[errorKindOf(err)], message, { cause: err });
  }
}
