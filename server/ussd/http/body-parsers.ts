import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

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
    express.json({ limit: USSD_BODY_LIMIT, strict: true, inflate: false, type: isMediaType(JSON_TYPE) }),
    express.urlencoded({
      limit: USSD_BODY_LIMIT,
      extended: false,
      parameterLimit: 16,
      inflate: false,
      type: isMediaType(FORM_TYPE),
    }),
  ];
}

/**
 * Whether a request's Content-Type is `mediaType` (case-insensitive, parameters such as `charset` aside):
 * the parsers' default test, without re-parsing the header into an object for each of them on every request.
 */
function isMediaType(mediaType: string): (req: IncomingMessage) => boolean {
  return (req) => {
    const header = req.headers['content-type'];
    if (header === undefined) return false;
    const semicolon = header.indexOf(';');
    return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase() === mediaType;
  };
}
