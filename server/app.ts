import type { RequestListener } from 'node:http';
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { sendApiError } from './api-error.js';
import { createOperatorAuth } from './operator-auth.js';
import type { DirectHandler, Part, PartContext } from './part.js';
import type { ServerLifecycle } from './server.js';
import { createDocsRouter } from './docs/docs-router.js';
import { beginRequest, requestContext } from './request-context.js';
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
  app.use(requestContext(ctx.logger));
  // While draining, a keep-alive connection closes after its answer, so the drain is not held by idle clients.
  app.use((_req, res, next) => {
    if (lifecycle.draining) res.setHeader('connection', 'close');
    next();
  });

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
 * The HTTP server's request listener: a part's direct route (Part.direct, `METHOD /path`) is answered without
 * Express's routing; every other request goes to `app`. A direct request gets what the app's own middleware
 * gives every request first (Express's request and response methods as `expressInit` gives them, the request
 * id and logger, `Connection: close` while draining), so its handler works as it would behind the app.
 */
export function createRequestListener(
  app: Express,
  { ctx, parts, lifecycle = { draining: false } }: AppOptions,
): RequestListener {
  const direct = new Map<string, DirectHandler>();
  for (const part of parts)
    for (const [route, handler] of Object.entries(part.direct ?? {})) direct.set(route, handler);
  if (direct.size === 0) return app;
  const { logger } = ctx;
  return (req, res) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const handler = direct.get(`${req.method ?? ''} ${query === -1 ? url : url.slice(0, query)}`);
    if (handler === undefined) {
      app(req, res);
      return;
    }
    // As Express's `expressInit` does (no X-Powered-By: the app disables it).
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    const request = req as Request;
    const response = res as Response;
    request.res = response;
    response.req = request;
    response.locals = Object.create(null) as Response['locals'];
    beginRequest(req.headers['x-request-id'], response, logger);
    if (lifecycle.draining) res.setHeader('connection', 'close');
    handler(request, response);
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
