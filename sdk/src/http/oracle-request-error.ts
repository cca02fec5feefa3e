/**
 * A failed request to the oracle: the HTTP status and, when the body was the service's JSON error, its
 * `code`, `requestId` and (on 402) `outstandingClaims`.
 *
 * @example
 * try { await createSession(); } catch (e) { if (e instanceof OracleRequestError && e.status === 401) … }
 */
export class OracleRequestError extends Error {
  override readonly name = 'OracleRequestError';
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly outstandingClaims: string[] | undefined;

  constructor(
    message: string,
    init: {
      status: number;
      code?: string;
      requestId?: string;
      outstandingClaims?: string[];
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.outstandingClaims = init.outstandingClaims;
  }

  /** Builds the error from a non-2xx response, reading the JSON error body when there is one. */
  static async from(res: Response): Promise<OracleRequestError> {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    const claims = Array.isArray(b['outstandingClaims'])
      ? b['outstandingClaims'].filter((c): c is string => typeof c === 'string')
      : undefined;
    return new OracleRequestError(str(b['message']) ?? `Request failed with status ${res.status}`, {
      status: res.status,
      code: str(b['code']),
      requestId: str(b['requestId']) ?? res.headers.get('x-request-id') ?? undefined,
      outstandingClaims: claims,
    });
  }
}

/** Whether an error is the oracle's payment-required answer (402). */
export function isPaymentRequired(err: unknown): err is OracleRequestError {
  return err instanceof OracleRequestError && err.status === 402;
}
