import type { AppRoute } from '@ts-rest/core';
import { AUTH_HEADERS } from './routes.js';
import type { ReauthorizationReason, TokenCache } from '../auth/token-cache.js';
import { isPublic, routePath, type CallArgs, type CallResult } from './contract-route.js';
import { OracleRequestError, stepFetch, type OracleStep } from './oracle-request-error.js';

/** Who is calling, and where their tokens come from. */
export interface OracleAuth {
  userDid: string;
  tokens: TokenCache;
  /** `createInvocation` was given: send `Authorization: Bearer` + `X-Auth-Type: ucan` too. */
  withInvocation: boolean;
  /** How long a request may wait for its answer to begin, ms ({@link DEFAULT_REQUEST_TIMEOUT_MS} when unset). */
  timeoutMs?: number | undefined;
}

/** How long a request waits for its answer to begin by default: 120 s, as the reference SDK. */
const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export interface OracleRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** Public routes (`/config`, `/models`) are called without tokens. */
  public?: boolean;
}

const stepOf = (req: OracleRequest): OracleStep => `${req.method} ${req.path}` as OracleStep;

/** 401 codes after which a fresh delegation is posted to `/delegation` and the request retried once. */
const DELEGATION_CODES = new Set(['delegation_missing', 'delegation_expired']);
/** 401 codes after which the invocation (the delegation, when there is no invocation) is re-minted and the request retried once. */
const STALE_TOKEN_CODES = new Set(['auth_expired']);

/**
 * HTTP client of one oracle: adds the capability-token headers of spec §5 C to every request, turns non-2xx
 * answers into {@link OracleRequestError}, and recovers once from a missing or expired delegation by minting
 * a new one and posting it to `/delegation`.
 */
export class OracleHttp {
  readonly #auth: OracleAuth;

  constructor(
    readonly baseUrl: string,
    readonly oracleDid: string,
    auth: OracleAuth,
  ) {
    this.#auth = auth;
  }

  /** The auth headers of spec §5 C for this user and oracle. */
  async authHeaders(): Promise<Record<string, string>> {
    const { tokens, userDid } = this.#auth;
    const [delegation, invocation] = await Promise.all([
      tokens.get('delegation', userDid, this.oracleDid),
      this.#auth.withInvocation ? tokens.get('invocation', userDid, this.oracleDid) : undefined,
    ]);
    const headers: Record<string, string> = { [AUTH_HEADERS.delegation]: delegation.serialized };
    if (invocation) {
      headers[AUTH_HEADERS.invocation] = `Bearer ${invocation.serialized}`;
      headers[AUTH_HEADERS.authType] = 'ucan';
    }
    return headers;
  }

  /**
   * Calls a route of the contracts and parses its JSON answer: path, method, arguments and result are all
   * typed from the route, so a call that drifts from `contracts/` does not compile.
   *
   * @example
   * const page = await http.call(oracleContract.transcript, { params: { sessionId }, query: { limit: 20 } });
   */
  call<R extends AppRoute>(route: R, args: CallArgs<R>): Promise<CallResult<R>> {
    return this.json<CallResult<R>>(this.#request(route, args));
  }

  /** Calls a streaming route of the contracts and returns the raw 2xx response; non-2xx throws. */
  open<R extends AppRoute>(route: R, args: CallArgs<R>): Promise<Response> {
    return this.send(this.#request(route, args));
  }

  #request<R extends AppRoute>(route: R, args: CallArgs<R>): OracleRequest {
    const a = args as {
      params?: Record<string, unknown>;
      query?: Record<string, string | number | undefined>;
      body?: unknown;
      signal?: AbortSignal;
      headers?: Record<string, string>;
    };
    const req: OracleRequest = {
      method: route.method as OracleRequest['method'],
      path: routePath(route, a.params),
    };
    if (a.query) req.query = a.query;
    if (a.body !== undefined) req.body = a.body;
    if (a.signal) req.signal = a.signal;
    if (a.headers) req.headers = a.headers;
    if (isPublic(route)) req.public = true;
    return req;
  }

  /** Sends a request and parses its JSON answer. */
  async json<T>(req: OracleRequest): Promise<T> {
    const res = await this.send(req);
    const text = await res.text();
    return (text === '' ? null : JSON.parse(text)) as T;
  }

  /** Sends a request and returns the raw 2xx response (for streams); non-2xx throws. */
  async send(req: OracleRequest): Promise<Response> {
    let res = await this.#fetch(req);
    if (res.status === 401 && !req.public) {
      const err = await OracleRequestError.from(res, stepOf(req));
      if (err.code && DELEGATION_CODES.has(err.code)) {
        await this.renewDelegation(req.signal, err.code as ReauthorizationReason);
        res = await this.#fetch(req);
      } else if (err.code && STALE_TOKEN_CODES.has(err.code)) {
        await this.renewInvocation(req.signal);
        res = await this.#fetch(req);
      } else {
        throw err;
      }
    }
    if (!res.ok) throw await OracleRequestError.from(res, stepOf(req));
    return res;
  }

  /** Mints a new delegation with `createDelegation` and stores it on the oracle (`POST /delegation`). */
  async renewDelegation(
    signal?: AbortSignal,
    reason: ReauthorizationReason = 'delegation_missing',
  ): Promise<void> {
    const delegation = await this.#auth.tokens.renew(
      'delegation',
      this.#auth.userDid,
      this.oracleDid,
      reason,
    );
    const res = await this.#fetch({
      method: 'POST',
      path: '/delegation',
      body: { serialized: delegation.serialized, expiresAt: delegation.expiresAt },
      signal,
    });
    if (!res.ok) throw await OracleRequestError.from(res, 'POST /delegation');
  }

  /** The absolute URL of a path of this oracle. */
  url(path: string, query?: OracleRequest['query']): string {
    const url = new URL(this.baseUrl.replace(/\/+$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  /**
   * Mints a new invocation (`auth_expired`: the short-lived token ran out). Without `createInvocation` the
   * delegation is the only token: it is minted again and posted to `/delegation` (which may ask the wallet).
   */
  async renewInvocation(signal?: AbortSignal): Promise<void> {
    const { tokens, userDid, withInvocation } = this.#auth;
    if (withInvocation) await tokens.renew('invocation', userDid, this.oracleDid, 'auth_expired');
    else await this.renewDelegation(signal, 'auth_expired');
  }

  async #fetch(req: OracleRequest): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (!req.public) Object.assign(headers, await this.authHeaders());
    // A route that never answers fails after the timeout, naming the step (a hung route left the hooks
    // loading for ever); the caller's own abort still aborts. The timer stops once the answer begins.
    const step = stepOf(req);
    const url = this.url(req.path, req.query);
    const timeoutMs = this.#auth.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    // The caller's signal aborts it too, for the whole answer (a stream's body included): linked by hand, as
    // AbortSignal.any is missing in older browsers.
    const abort = (): void => controller.abort(req.signal?.reason);
    if (req.signal?.aborted) abort();
    else req.signal?.addEventListener('abort', abort, { once: true });
    try {
      return await stepFetch(step, url, {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: controller.signal,
      });
    } catch (e) {
      if (timedOut && !req.signal?.aborted) throw OracleRequestError.timedOut(step, url, timeoutMs);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }
}
