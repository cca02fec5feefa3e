import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { ApiError } from './errors.js';

const c = initContract();

/** USSD protocol limit on the accumulated `text` (spec A1, section 8). */
export const USSD_TEXT_MAX = 182;
/** Limit on `sessionId` (spec A1, section 8). */
export const USSD_SESSION_ID_MAX = 100;

/** Reply sent for every request that fails validation (spec section 7 A), exactly. */
export const USSD_INVALID_INPUT_REPLY = 'END Invalid input. Please try again.';
/** Reply sent when the server or database fails while handling a request (spec section 7 A), exactly. */
export const USSD_UNAVAILABLE_REPLY = 'END Service temporarily unavailable. Please try again later.';

/**
 * Reply to a request with non-empty `text` for a session this gateway does not know (expired, ended, or
 * lost): nothing in the text is applied, the session is closed, and the user's next dial starts afresh.
 */
export const USSD_SESSION_EXPIRED_REPLY = 'END Your session has expired. Please dial again.';

/** A USSD service code: starts with `*`, digits separated by `*`, ends with `#` (e.g. `*384*123#`). */
export const ServiceCode = z.string().regex(/^\*\d+(?:\*\d+)*#$/, 'serviceCode must look like *384*123#');

/** E.164: a leading `+`, a country code that does not start with 0, at most 15 digits in all. */
export const PhoneNumber = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, 'phoneNumber must be E.164, e.g. +254712345678');

/**
 * Body of `POST /api/ussd` (spec A1). Sent as JSON, or form-encoded as Africa's Talking does (which adds
 * `networkCode`); both are validated by this schema.
 *
 * @example
 * { "sessionId": "ATUid_1", "serviceCode": "*384*123#", "phoneNumber": "+254712345678", "text": "2*1" }
 */
export const UssdRequest = z.object({
  sessionId: z.string().min(1).max(USSD_SESSION_ID_MAX),
  serviceCode: ServiceCode,
  phoneNumber: PhoneNumber,
  text: z.string().max(USSD_TEXT_MAX),
  /** Mobile network code added by Africa's Talking; accepted and ignored. */
  networkCode: z.string().max(16).optional(),
});
export type UssdRequest = z.infer<typeof UssdRequest>;

/** A reply: `CON <text>` keeps the session open, `END <text>` closes it (spec A2). */
export const UssdReply = z.string().regex(/^(CON|END) /);
export type UssdReply = `CON ${string}` | `END ${string}`;

/** The context of a session as shown to operators (spec A3). */
export const SessionContext = z.strictObject({
  sessionId: z.string(),
  phoneNumber: z.string(),
  /** The last text shown to the user. */
  message: z.string(),
  isAuthenticated: z.boolean(),
});

/** Debug session record (spec A3). */
export const DebugRecord = z.strictObject({
  sessionId: z.string(),
  debugInfo: z.strictObject({
    /** Name of the current menu state; the top menu is `preMenu`. */
    state: z.string(),
    context: SessionContext,
    status: z.literal('active'),
  }),
  activeSessions: z.array(z.string()),
});
export type DebugRecord = z.infer<typeof DebugRecord>;

/** Active session list (spec A4). */
export const SessionList = z.strictObject({
  activeSessions: z.array(z.string()),
  count: z.number().int().nonnegative(),
});
export type SessionList = z.infer<typeof SessionList>;

const operatorHeaders = z.object({
  /** `Bearer <OPERATOR_TOKEN>`; required when OPERATOR_TOKEN is set (else only direct loopback callers are answered). */
  authorization: z.string().optional(),
});

/** USSD session gateway (spec part A). */
export const ussdContract = c.router(
  {
    session: {
      method: 'POST',
      path: '/api/ussd',
      summary: 'One user input of a USSD session; answers CON (continue) or END (close) as plain text',
      description:
        'Called by the telecom gateway once per user input. Accepts JSON or application/x-www-form-urlencoded. ' +
        `Every validation failure answers 200 "${USSD_INVALID_INPUT_REPLY}"; a server or database failure answers 200 ` +
        `"${USSD_UNAVAILABLE_REPLY}". Non-empty text for an unknown or expired session answers ` +
        `"${USSD_SESSION_EXPIRED_REPLY}" and applies nothing; empty text is always a new dial (top menu, logged out). ` +
        'Every END reply closes the session. More than USSD_RATE_LIMIT_PER_MINUTE requests a minute from one ' +
        'client (100 by default) answer 429.',
      body: UssdRequest,
      metadata: { formEncoded: true } as const,
      responses: {
        200: c.otherResponse({ contentType: 'text/plain', body: UssdReply }),
        429: ApiError,
      },
    },
    debug: {
      method: 'GET',
      path: '/api/ussd/debug/:sessionId',
      summary: 'Debug record of an active session (operators only)',
      pathParams: z.object({ sessionId: z.string().min(1).max(USSD_SESSION_ID_MAX) }),
      headers: operatorHeaders,
      responses: { 200: DebugRecord, 400: ApiError, 401: ApiError, 404: ApiError, 503: ApiError },
    },
    sessions: {
      method: 'GET',
      path: '/api/ussd/sessions',
      summary: 'Ids of all active sessions (operators only)',
      headers: operatorHeaders,
      responses: { 200: SessionList, 401: ApiError, 404: ApiError, 503: ApiError },
    },
  },
  // Only the declared statuses type-check in handlers and clients (a drifted status is a compile error).
  { strictStatusCodes: true },
);
