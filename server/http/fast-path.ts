import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import parseurl from 'parseurl';
import qs from 'qs';
import type { ApiError } from '../../contracts/errors.js';
import type { Logger } from '../logger.js';
import { lastResortAnswer } from './api-error.js';
import { createRequestStart, type DrainState, type RequestContext } from './request-context.js';

// The HTTP fast path: a part may answer its hottest route before Express routes the request (USSD's
// `POST /api/ussd`, the chain's queries; docs/performance-fast-path.md has the A/B that keeps it). Everything
// it needs to answer as the app would lives here, named: the listener that tries the parts first,
// `expressInit` (what Express and the app's first middleware do to a request), `expressUrl` (the path and
// query as Express reads them) and `writeApiError` (`res.status(s).json(body)` without Express).
// test/platform/http/fast-path.test.ts holds each piece to Express; each route's own test holds its answers to
// the Express route's, byte for byte.

/**
 * Answers some of a part's requests without Express's routing, on its hottest path: the HTTP server tries it
 * before handing the request to the app ({@link createRequestListener}). It returns false, having touched
 * nothing, for a request it leaves to the app (which then answers it through the part's router as usual);
 * when it takes one, it calls `start` first and answers byte for byte as the router would. Only for paths the
 * part owns alone. A throw is answered like the app's last-resort error handler.
 */
export type DirectHandler = (req: IncomingMessage, res: ServerResponse, start: StartDirect) => boolean;

/**
 * Starts a request a direct handler takes, as the app's first middleware does (request-context.ts); with
 * `express: true` also {@link expressInit}, for a handler that runs Express middleware (the USSD session
 * route's body parsers, rate limiter and metrics) without Express's routing.
 */
export type StartDirect = (
  req: IncomingMessage,
  res: ServerResponse,
  options?: { express?: boolean },
) => RequestContext;

export interface FastPathOptions {
  logger: Logger;
  /** The parts' direct handlers, tried in this order (ENABLED_PARTS order). */
  handlers: readonly DirectHandler[];
  /** Read for the drain's `Connection: close` (default: never draining). */
  lifecycle?: DrainState;
}

/**
 * The HTTP server's request listener: each direct handler is tried first, and a request none of them takes
 * goes to `app`. A direct handler that throws is answered as the app's last-resort error handler answers
 * (api-error.ts `lastResortAnswer`), so a request gets the same answer, headers and body, either way.
 */
export function createRequestListener(
  app: Express,
  { logger, handlers, lifecycle }: FastPathOptions,
  /** Where a request no direct handler takes goes (default: `app`; tests count them). */
  toApp: RequestListener = app,
): RequestListener {
  if (handlers.length === 0) return toApp;
  const startRequest = createRequestStart(logger, lifecycle);
  // The context of the request a handler is taking: handlers run synchronously, one request at a time.
  let current: RequestContext | undefined;
  const start: StartDirect = (req, res, options) => {
    current = startRequest(req, res);
    if (options?.express) expressInit(app, req, res, current);
    return current;
  };
  return (req, res) => {
    for (const direct of handlers) {
      current = undefined;
      try {
        if (direct(req, res, start)) return;
      } catch (err) {
        const context = current ?? startRequest(req, res);
        if (res.headersSent) return;
        const { kind, status, code, message } = lastResortAnswer(err);
        if (kind === 'internal') context.logger.error({ err }, 'unhandled error');
        if (kind === 'dependency_down') context.logger.warn({ err }, 'a dependency is unreachable');
        writeApiError(req, res, status, { code, message, requestId: context.requestId });
        return;
      }
    }
    toApp(req, res);
  };
}

/**
 * What Express's `expressInit` does to a request of `app` (no X-Powered-By: the app disables it), then the
 * app's request context (`res.locals.requestId`, `res.locals.logger`): the request and response get
 * Express's methods, as on the app's own routes.
 */
function expressInit(app: Express, req: IncomingMessage, res: ServerResponse, context: RequestContext): void {
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  const request = req as Request;
  const response = res as Response;
  request.res = response;
  response.req = request;
  response.locals = Object.create(null) as Response['locals'];
  response.locals.requestId = context.requestId;
  response.locals.logger = context.logger;
}

/** A request's path and query, as the app's routes see them ({@link expressUrl}). */
export interface ExpressUrl {
  pathname: string;
  query: Record<string, unknown>;
}

/**
 * The path and query of a request as Express reads them: its own URL reader (parseurl, whose result stays
 * cached on the request) and its default ("extended") query parser, qs with prototypes allowed and arrays up
 * to 1000 items. Undefined for a URL without a path (never sent by an HTTP client).
 */
export function expressUrl(req: IncomingMessage): ExpressUrl | undefined {
  const url = parseurl(req);
  if (url?.pathname == null) return undefined;
  const query = typeof url.query === 'string' ? url.query : '';
  return { pathname: url.pathname, query: qs.parse(query, { allowPrototypes: true, arrayLimit: 1000 }) };
}

/**
 * The answer of api-error.ts `sendApiError`, header for header, on a response outside Express: what
 * `res.status(status).json(body)` writes with the app's settings (no ETag).
 */
function writeApiError(req: IncomingMessage, res: ServerResponse, status: number, body: ApiError): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  if (req.method === 'HEAD') res.end();
  else res.end(text, 'utf8');
}
