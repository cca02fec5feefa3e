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
  /**
   * The session does not exist: a USSD session expired or never started (the user must dial again), or a chat
   * session is unknown, deleted or another user's.
   */
  'session_not_found',
  /** Too many requests from this client in the current window. */
  'rate_limited',
  /** A dependency (database, store) is unreachable; retry later. */
  'unavailable',
  /** An unexpected server error; details are in the server log under the request id. */
  'internal',
] as const;

/**
 * Error codes of the agent (oracle) service, beyond {@link API_ERROR_CODES}. Each capability-token failure
 * has its own code, so a client can tell what to fix without reading the message.
 */
export const ORACLE_ERROR_CODES = [
  /** No `Authorization: Bearer` invocation and no `x-ucan-delegation` header. */
  'auth_missing',
  /** A token is not a base64 UCAN archive, or `X-Auth-Type` is not `ucan`. */
  'auth_malformed',
  /** A token's signature does not verify against its issuer's key. */
  'auth_bad_signature',
  /** The issuer's DID cannot be resolved to a key (unknown did:ixo, or no Ed25519 key in its document). */
  'auth_unknown_issuer',
  /** A token is addressed to another audience than this oracle. */
  'auth_wrong_audience',
  /** A token has expired. */
  'auth_expired',
  /** A token is not valid yet (`nbf` in the future). */
  'auth_not_yet_valid',
  /** A token never expires, or expires later than this oracle's maximum lifetime for its kind allows (mint a shorter one). */
  'auth_lifetime_too_long',
  /** A token grants another capability than the one this route needs. */
  'auth_wrong_capability',
  /** The invocation and the delegation have different issuers. */
  'auth_issuer_mismatch',
  /** A turn needs a stored delegation of this user to this oracle and there is none: post one to `/delegation`. */
  'delegation_missing',
  /** The stored delegation has expired: mint a new one and post it to `/delegation`. */
  'delegation_expired',
  /** The user's balance does not cover this turn; `outstandingClaims` lists the unpaid claims. */
  'payment_required',
  /** The request names a model this oracle does not serve (see `GET /models`). */
  'unknown_model',
  /** The run does not exist, or it is another user's (the same answer either way). */
  'run_not_found',
  /** The room does not exist, or the caller is not one of its members (the same answer either way). */
  'room_not_found',
  /** The caller is a member of the room, but only its owner may do this. */
  'room_owner_only',
  /** The request body or the message is larger than this oracle accepts (ORACLE_BODY_MAX_BYTES, ORACLE_MESSAGE_MAX_CHARS). */
  'payload_too_large',
  /** The user has as many turns in flight as ORACLE_MAX_CONCURRENT_RUNS allows; `retryAfter` says when to try again. */
  'too_many_runs',
  /** The user sent more turns this minute than ORACLE_TURNS_PER_MINUTE allows; `retryAfter` says when the window ends. */
  'too_many_turns',
  /** The chain node does not know the transaction (yet): it may still be pending, so retry shortly. */
  'payment_not_found',
  /** The transaction failed on chain (its result code is not 0): it paid nothing. */
  'payment_failed',
  /** The transaction does not pay what was reported: `mismatch` names what differs. */
  'payment_mismatch',
  /** The transaction was already reported by another user: it credits nothing more. */
  'payment_conflict',
  /** The caller (or, when adding a member, the user added) is at a per-user quota: `quota` names it and its limit. */
  'quota_exceeded',
  /** The tool call is not (or no longer) waiting for approval, or it is another user's (the same answer either way). */
  'approval_not_found',
  /** The tool call's approval was decided already (by a first decision, a timeout, or the turn's end). */
  'approval_already_decided',
] as const;

export type OracleErrorCode = (typeof ORACLE_ERROR_CODES)[number];

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

/**
 * The JSON error of the agent (oracle) service routes: the project's shape plus `statusCode` (the HTTP status,
 * which clients of the reference SDK read from the body) and, on 402, `outstandingClaims`.
 *
 * @example
 * { "code": "auth_expired", "message": "The invocation has expired.", "statusCode": 401, "requestId": "4f0c…" }
 */
export const OracleError = z
  .object({
    code: z.enum([...API_ERROR_CODES, ...ORACLE_ERROR_CODES]),
    message: z.string(),
    statusCode: z.number().int().min(400).max(599),
    requestId: z.string().optional(),
    /** Ids of the unpaid usage claims (402 only). */
    outstandingClaims: z.array(z.string()).optional(),
    /**
     * The caller's payment reference (402 only): put it in the memo of the transaction that pays, so that only
     * the caller can report it (see `GET /credits`).
     */
    paymentMemo: z.string().optional(),
    /** Seconds until a refused request may succeed (429 only; the `Retry-After` header says the same). */
    retryAfter: z.number().int().min(0).optional(),
    /** The quota that refused the request and its limit (403 `quota_exceeded` only). */
    quota: z
      .object({
        name: z.enum(['sessions', 'rooms_owned', 'rooms_joined', 'room_members', 'memories']),
        limit: z.number().int().min(0),
      })
      .optional(),
    /** What a reported payment got wrong (422 `payment_mismatch` only). */
    mismatch: z.array(z.enum(['recipient', 'denom', 'amount', 'sender', 'memo'])).optional(),
  })
  .strict();

export type OracleError = z.infer<typeof OracleError>;
