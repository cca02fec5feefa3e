import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import { API_SECURITY_HEADERS, setHeaders } from '../security-headers.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Locals {
    /**
     * This request's logger: every line written through it carries the request's id. Code that runs for a
     * request logs through this one (handed down explicitly, e.g. into the USSD flow), not the shared logger.
     */
    logger: Logger;
    requestId: string;
  }
}

/** pino's level methods: the ones a lazy logger answers without making its child while they are off. */
const LEVEL_METHODS: ReadonlySet<string> = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const silent = (): void => undefined;

/**
 * A child of `base` bound to `bindings`, made on first use: most requests log nothing, and a pino child per
 * request costs more than the request's own routing. A call at a level that is off (`debug` in production)
 * makes no child either.
 */
function lazyChildLogger(base: Logger, bindings: Record<string, string>): Logger {
  let child: Logger | undefined;
  return new Proxy(base, {
    get(target, prop) {
      if (typeof prop === 'string' && LEVEL_METHODS.has(prop) && !target.isLevelEnabled(prop)) return silent;
      child ??= target.child(bindings);
      const value: unknown = Reflect.get(child, prop, child);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(child) : value;
    },
  });
}

/** What the start of a request gives the code that answers it: its id and its logger. */
export class RequestContext {
  #logger: Logger | undefined;

  constructor(
    private readonly base: Logger,
    readonly requestId: string,
  ) {}

  /** A logger whose every line carries the request id ({@link lazyChildLogger}), made on first use. */
  get logger(): Logger {
    return (this.#logger ??= lazyChildLogger(this.base, { requestId: this.requestId }));
  }
}

/** Whether the server is draining (server.ts `ServerLifecycle`). */
export interface DrainState {
  readonly draining: boolean;
}

/**
 * Starts a request, the same way for the Express app and for a part's direct handler (fast-path.ts): the
 * security headers of every answer (security-headers.ts), the id (the caller's `x-request-id` when well-formed,
 * else a fresh UUID), echoed in the response, then, while the server drains, `Connection: close`, so a
 * keep-alive connection closes after its answer and does not hold the drain.
 */
export type StartRequest = (req: IncomingMessage, res: ServerResponse) => RequestContext;

export function createRequestStart(
  logger: Logger,
  lifecycle: DrainState = { draining: false },
): StartRequest {
  return (req, res) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', requestId);
    setHeaders(res, API_SECURITY_HEADERS);
    if (lifecycle.draining) res.setHeader('connection', 'close');
    return new RequestContext(logger, requestId);
  };
}

/**
 * Gives every request an id (the caller's `x-request-id` when well-formed, else a fresh UUID), echoes it in
 * the response, and gives it a logger whose every line carries that id (`res.locals.logger`); while
 * `lifecycle` drains, answers carry `Connection: close` ({@link createRequestStart}).
 *
 * The id travels explicitly, not through AsyncLocalStorage: on Node 20 an AsyncLocalStorage in use turns on
 * a hook for every promise and async callback of the process, which cost the USSD gateway about 12 % more
 * instructions per request (callgrind, 2,297k vs 2,009k per request in production).
 */
export function requestContext(logger: Logger, lifecycle?: DrainState): RequestHandler {
  const start = createRequestStart(logger, lifecycle);
  return (req, res, next) => {
    const context = start(req, res);
    res.locals.requestId = context.requestId;
    res.locals.logger = context.logger;
    next();
  };
}
