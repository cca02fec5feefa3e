import { USSD_INVALID_INPUT_REPLY, USSD_UNAVAILABLE_REPLY, type UssdReply } from '../../contracts/ussd.js';
import { StoreTimeoutError } from '../with-timeout.js';

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

/** Node's codes for a connection that failed or broke (a database or Redis that went away). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

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
    if (clientStatus(err)) return new UssdError('invalid_input', message, { cause: err });
    if (err instanceof StoreTimeoutError || CONNECTION_CODES.has(errorCode(err) ?? '')) {
      return new UssdError('unavailable', message, { cause: err });
    }
    return new UssdError('internal', message, { cause: err });
  }
}

/** True for errors that carry a 4xx status: what body-parser raises for malformed or oversized bodies. */
function clientStatus(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
