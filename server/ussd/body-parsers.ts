import express, { type RequestHandler } from 'express';

/** Largest accepted body. A valid request is well under 1 KB (text ≤ 182, sessionId ≤ 100 characters). */
export const USSD_BODY_LIMIT = '4kb';

/**
 * The two body formats of `POST /api/ussd`: JSON (the spec) and application/x-www-form-urlencoded (what
 * Africa's Talking posts). Flat form fields only (`extended: false`), no compressed bodies. Anything else
 * leaves the body unparsed, and validation then answers the invalid-input reply; parser errors (bad
 * JSON, too large, bad charset) reach the USSD error handler, which answers the same reply.
 */
export function ussdBodyParsers(): RequestHandler[] {
  return [
    express.json({ limit: USSD_BODY_LIMIT, strict: true, inflate: false }),
    express.urlencoded({ limit: USSD_BODY_LIMIT, extended: false, parameterLimit: 16, inflate: false }),
  ];
}
