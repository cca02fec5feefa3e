import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';

const JSON_TYPE = 'application/json';
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Largest accepted body. A valid request is well under 1 KB (text ≤ 182, sessionId ≤ 100 characters). */
const USSD_BODY_LIMIT = '4kb';

declare module 'express-serve-static-core' {
  interface Locals {
    /** A body parser's error, held until the rate limit has counted the request (see {@link raiseBodyError}). */
    ussdBodyError?: unknown;
  }
}

/** Runs a parser; an error it raises is kept in `res.locals` instead of skipping the rate limit. */
function deferErrors(parser: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (res.locals.ussdBodyError !== undefined) {
      next();
      return;
    }
    parser(req, res, (err?: unknown) => {
      if (err !== undefined) res.locals.ussdBodyError = err;
      next();
    });
  };
}

/** Passes on the error a deferred body parser kept, after the rate limit (malformed bodies count too). */
export const raiseBodyError: RequestHandler = (_req, res, next) => {
  next(res.locals.ussdBodyError);
};

/**
 * The two body formats of `POST /api/ussd`: JSON (the spec) and application/x-www-form-urlencoded (what
 * Africa's Talking posts). Flat form fields only (`extended: false`), no compressed bodies. Anything else
 * leaves the body unparsed, and validation then answers the invalid-input reply; parser errors (bad
 * JSON, too large, bad charset, a body cut short) are held until the rate limit ran ({@link raiseBodyError})
 * and then reach the USSD error handler, which answers the same reply.
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
  ].map(deferErrors);
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
