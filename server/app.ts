import express, { type ErrorRequestHandler, type Express } from 'express';
import { lastResortAnswer, sendApiError } from './http/api-error.js';
import { requestContext } from './http/request-context.js';
import { createOperatorAuth } from './operator-auth.js';
import type { Config } from './config.js';
import type { Part, PartContext } from './part.js';
import type { ServerLifecycle } from './lifecycle.js';
import { createDocsRouter } from './docs/docs-router.js';
import { createSystemRouter } from './system-router.js';

export interface AppOptions {
  ctx: PartContext<Config>;
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
    const { kind, status, code, message } = lastResortAnswer(err);
    if (kind === 'internal') res.locals.logger.error({ err }, 'unhandled error');
    if (kind === 'dependency_down') res.locals.logger.warn({ err }, 'a dependency is unreachable');
    sendApiError(res, status, code, message);
  };
  app.use(onError);
  return app;
}
