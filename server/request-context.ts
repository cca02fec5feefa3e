import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from './logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Locals {
    /** The logger to use for this request (every line written while it is handled carries its id). */
    logger: Logger;
    requestId: string;
  }
}

/** The request being handled, for every log line written while handling it (see logger.ts `mixin`). */
const current = new AsyncLocalStorage<{ requestId: string }>();

/** The id of the request whose handling is running now, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore()?.requestId;
}

/**
 * Gives every request an id (the caller's `x-request-id` when well-formed, else a fresh UUID), echoes it
 * in the response, and makes it the current request id of everything that runs for the request.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    // The logger's mixin adds the id to every line written while this request is handled, by any module:
    // the request's own logger is the shared one.
    res.locals.logger = logger;
    res.setHeader('x-request-id', requestId);
    // enterWith, not run(): the store then sticks to the request's own async resource, so the callbacks its
    // body parser runs later (stream 'data'/'end') still see it.
    current.enterWith({ requestId });
    next();
  };
}
