import type { RequestHandler } from 'express';
import { findUnsafeText, pathSegment, unsafeTextReason } from '../../../contracts/unsafe-text.js';
import { OracleHttpError } from '../oracle-http-error.js';

/** Why a percent-encoded URL part is not text: bytes that are not UTF-8, or what unsafeTextReason says. */
function urlPartReason(part: string): { text: string; reason: string | undefined } {
  try {
    const text = decodeURIComponent(part);
    return { text, reason: unsafeTextReason(text) };
  } catch {
    return {
      text: '',
      reason: 'not valid UTF-8 (a lone surrogate or a stray byte); send well-formed UTF-8.',
    };
  }
}

/**
 * The first problem in a request's path, query string or JSON body (see lib/unsafe-text.ts), as
 * `<where>: <reason>` (`query.q: a NUL character (U+0000) is not accepted in any text.`), or undefined.
 */
function findUnsafeInput(req: { originalUrl: string; body?: unknown }): string | undefined {
  const q = req.originalUrl.indexOf('?');
  const path = q === -1 ? req.originalUrl : req.originalUrl.slice(0, q);
  for (const part of path.split('/')) {
    const { reason } = urlPartReason(part);
    if (reason) return `path: ${reason}`;
  }
  const query = q === -1 ? '' : req.originalUrl.slice(q + 1);
  for (const pair of query === '' ? [] : query.split('&')) {
    const eq = pair.indexOf('=');
    const key = urlPartReason((eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    if (key.reason) return `query: ${key.reason}`;
    const value = urlPartReason(eq === -1 ? '' : pair.slice(eq + 1).replace(/\+/g, ' '));
    if (value.reason) return `query${pathSegment(key.text)}: ${value.reason}`;
  }
  return req.body === undefined ? undefined : findUnsafeText(req.body, 'body');
}

/**
 * Refuses, with 400 `bad_request` naming where and why, a request with a NUL character or a lone surrogate in
 * any string of its path, query or JSON body (object keys included), or a body nested deeper than
 * JSON_MAX_DEPTH: before any route reads it, so nothing is written (issue 36). Mounted after the JSON parser on
 * every route of the agent service and its plugins.
 */
export const refuseUnsafeInput: RequestHandler = (req, _res, next) => {
  const problem = findUnsafeInput(req);
  next(problem ? new OracleHttpError(400, 'bad_request', problem) : undefined);
};
