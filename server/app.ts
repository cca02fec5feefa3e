import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { sendApiError, writeApiError } from './api-error.js';
import { createOperatorAuth } from './operator-auth.js';
import type { Part, PartContext } from './part.js';
import type { ServerLifecycle } from './lifecycle.js';
import { createDocsRouter } from './docs/docs-router.js';
import {
  createRequestStart,
  requestContext,
  type RequestContext,
  type StartRequest,
} from './request-context.js';
import { createSystemRouter } from './system-router.js';

export interface AppOptions {
  ctx: PartContext;
  parts: Part[];
  /** Read by `/health` and the drain (default: never draining). */
  lifecycle?: ServerLifecycle;
}

/**
 * Composes the HTTP app: request ids and logging, each part's router at the root, the shared `/health`,
 * `/` and `/metrics`, then a JSON 404 and the last-resort error handler. There is no global body parser:
 * each part parses what its own routes accept.
 */
export function createApp({ ctx, parts, lifecycle = { draining: false } }: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETags: every answer is fresh (USSD replies, health, chain queries) and hashing each body costs CPU.
  app.set('etag', false);
  // TRUST_PROXY_ENABLED: the proxies' addresses (X-Forwarded-For is believed only from them), or a number of
  // hops (the client address is the one the nearest proxies saw, so prepended entries are not believed).
  // Off: the header is ignored.
  app.set('trust proxy', ctx.config.TRUST_PROXY_ENABLED);
  // The request id and logger; while draining, `Connection: close` on every answer, so a keep-alive
  // connection closes after its answer and the drain is not held by idle clients.
  app.use(requestContext(ctx.logger, lifecycle));

  for (const part of parts) app.use(part.router);
  app.use(createSystemRouter(ctx, parts, lifecycle));
  app.use(createDocsRouter(ctx, parts));

  // An operator surface: OPERATOR_TOKEN, or a direct loopback connection when none is set.
  app.get('/metrics', createOperatorAuth(ctx.config), (_req, res, next) => {
    ctx.metrics
      .metrics()
      .then((text) => res.type(ctx.metrics.contentType).send(text))
      .catch(next);
  });

  for (const part of parts) if (part.notFound) app.use(part.notFound);

  app.use((_req, res) => {
    sendApiError(res, 404, 'not_found', 'No such route.');
  });

  const onError: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    const status = clientErrorStatus(err);
    if (status !== undefined) {
      sendApiError(res, status, 'bad_request', 'Malformed request.');
      return;
    }
    res.locals.logger.error({ err }, 'unhandled error');
    sendApiError(res, 500, 'internal', 'Internal error; see the server log under this request id.');
  };
  app.use(onError);
  return app;
}

/**
 * The HTTP server's request listener: each part's direct handler (part.ts `direct`) is tried first, in
 * ENABLED_PARTS order, and a request none of them takes goes to `app`. A direct handler starts the request
 * the way the app's first middleware does; one that throws is answered like the app's last-resort error
 * handler (`onError` above), so a request gets the same answer, headers and body, either way.
 */
export function createRequestListener(
  app: Express,
  { ctx, parts, lifecycle }: AppOptions,
  /** Where a request no direct handler takes goes (default: `app`; tests count them). */
  toApp: RequestListener = app,
): RequestListener {
  const handlers = parts.flatMap((p) => (p.direct ? [p.direct] : []));
  if (handlers.length === 0) return toApp;
  const startRequest = createRequestStart(ctx.logger, lifecycle);
  // The context of the request a handler is taking: handlers run synchronously, one request at a time.
  let current: RequestContext | undefined;
  const start: StartRequest = (req, res, options) => {
    current = startRequest(req, res);
    if (options?.express) {
      // As Express's `expressInit` does (no X-Powered-By: the app disables it), then the app's request context.
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, app.response);
      const request = req as Request;
      const response = res as Response;
      request.res = response;
      response.req = request;
      response.locals = Object.create(null) as Response['locals'];
      response.locals.requestId = current.requestId;
      response.locals.logger = current.logger;
    }
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
        const status = clientErrorStatus(err);
        if (status !== undefined) {
          writeApiError(req, res, status, {
            code: 'bad_request',
            message: 'Malformed request.',
            requestId: context.requestId,
          });
          return;
        }
        context.logger.error({ err }, 'unhandled error');
        writeApiError(req, res, 500, {
          code: 'internal',
          message: 'Internal error; see the server log under this request id.',
          requestId: context.requestId,
        });
        return;
      }
    }
    toApp(req, res);
  };
}

/** The 4xx status of errors that body parsers and the like raise for bad input (e.g. malformed JSON). */
function clientErrorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const status =
    (err as { status?: unknown; statusCode?: unknown }).status ??
    (err as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}
