/**
 * Which step of talking to an oracle failed: the chain lookup of its addresses, its `/config`, or a route of
 * the service (named by method and path, e.g. `GET /sessions`).
 */
export type OracleStep =
  'chain lookup' | 'config' | 'socket handshake' | `${'GET' | 'POST' | 'DELETE'} /${string}`;

const STEP_NAMES: Record<string, string> = {
  'chain lookup': 'the chain lookup',
  config: 'reading /config',
  'socket handshake': "connecting the chat's socket",
  'GET /sessions': 'the session list',
  'POST /sessions': 'creating a session',
  'GET /models': 'the model list',
  'GET /user-preferences': 'the user preferences',
};

/** A readable name of a step, for messages: "the session list", "sending a message", … */
function stepName(step: OracleStep): string {
  const known = STEP_NAMES[step];
  if (known) return known;
  if (step.startsWith('POST /messages/')) return 'sending a message';
  if (step.startsWith('GET /sessions/') && step.endsWith('/messages')) return 'loading the history';
  if (step.startsWith('GET /runs/')) return 're-joining the answer';
  return step;
}

/** Seconds from a `Retry-After` header: a number of seconds or an HTTP date. */
function retryAfterHeader(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * A failed request to the oracle: the HTTP status and, when the body was the service's JSON error, its
 * `code`, `requestId`, (on 402) `outstandingClaims` and (on 429) `retryAfter`. `step` names what was being
 * done. A request that never got an answer (network down, CORS refused) has `status` 0 and a message that
 * names the step and the URL instead of the browser's bare "Failed to fetch".
 *
 * @example
 * if (e instanceof OracleRequestError && e.status === 429) retryIn(e.retryAfter ?? 1);
 */
export class OracleRequestError extends Error {
  override readonly name = 'OracleRequestError';
  /** The HTTP status; 0 when no answer came (network error). */
  readonly status: number;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  readonly outstandingClaims: string[] | undefined;
  /** Seconds to wait before trying again (429 and 503: the body's `retryAfter`, else the `Retry-After` header). */
  readonly retryAfter: number | undefined;
  readonly step: OracleStep | undefined;

  constructor(
    message: string,
    init: {
      status: number;
      code?: string;
      requestId?: string;
      outstandingClaims?: string[];
      retryAfter?: number;
      step?: OracleStep;
      cause?: unknown;
    },
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.outstandingClaims = init.outstandingClaims;
    this.retryAfter = init.retryAfter;
    this.step = init.step;
  }

  /** Builds the error from a non-2xx response, reading the JSON error body when there is one. */
  static async from(res: Response, step?: OracleStep): Promise<OracleRequestError> {
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
    const retryAfter =
      typeof b['retryAfter'] === 'number' && Number.isFinite(b['retryAfter'])
        ? b['retryAfter']
        : retryAfterHeader(res.headers.get('retry-after'));
    const fallback = `${step ? `${stepName(step)}: ` : ''}request failed with status ${res.status}`;
    return new OracleRequestError(str(b['message']) ?? fallback.charAt(0).toUpperCase() + fallback.slice(1), {
      status: res.status,
      code: str(b['code']),
      requestId: str(b['requestId']) ?? res.headers.get('x-request-id') ?? undefined,
      outstandingClaims: claims,
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      ...(step ? { step } : {}),
    });
  }

  /** The error of a request that got no answer at all (network error, CORS refused, DNS). */
  /** A request whose answer did not begin within `timeoutMs`: status 0, code `timeout`. */
  static timedOut(step: OracleStep, url: string, timeoutMs: number): OracleRequestError {
    const name = stepName(step);
    return new OracleRequestError(
      `${name.charAt(0).toUpperCase()}${name.slice(1)} failed: ${url} did not answer within ${timeoutMs / 1000} s`,
      { status: 0, code: 'timeout', step },
    );
  }

  static unreachable(step: OracleStep, url: string, cause: unknown): OracleRequestError {
    const why = cause instanceof Error ? cause.message : String(cause);
    const name = stepName(step);
    return new OracleRequestError(
      `${name.charAt(0).toUpperCase()}${name.slice(1)} failed: ${url} could not be reached (${why})`,
      { status: 0, step, cause },
    );
  }
}

/** Whether an error is the oracle's payment-required answer (402). */
export function isPaymentRequired(err: unknown): err is OracleRequestError {
  return err instanceof OracleRequestError && err.status === 402;
}

/** Whether an error is the oracle's rate limit (429); `retryAfter` says when to try again. */
export function isRateLimited(err: unknown): err is OracleRequestError & { status: 429 } {
  return err instanceof OracleRequestError && err.status === 429;
}

/** Whether an error is a fetch aborted through its signal. */
export function isAbortError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: string }).name === 'AbortError';
}

/**
 * `fetch` that names the step when no answer comes: a network failure becomes an {@link OracleRequestError}
 * with status 0 whose message names the step and the URL. Aborts stay aborts.
 */
export async function stepFetch(step: OracleStep, url: string, init: RequestInit): Promise<Response> {
  try {
    return await globalThis.fetch(url, init);
  } catch (e) {
    if (isAbortError(e)) throw e;
    throw OracleRequestError.unreachable(step, url, e);
  }
}
