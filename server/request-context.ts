import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from './logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Locals {
    /** Child logger bound to this request's id. */
    logger: Logger;
    requestId: string;
  }
}

/**
 * Gives every request an id (the caller's `x-request-id` when well-formed, else a fresh UUID), echoes it
 * in the response and binds a child logger to it.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    // Created on first use: most requests log nothing, and a pino child per request shows up in benchmarks.
    let child: Logger | undefined;
    Object.defineProperty(res.locals, 'logger', {
      configurable: true,
      enumerable: true,
      get: () => (child ??= logger.child({ requestId })),
    });
    res.setHeader('x-request-id', requestId);
    next();
  };
}
