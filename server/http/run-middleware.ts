import type { IncomingMessage, ServerResponse } from 'node:http';

/** A connect-style middleware over any request and response type (Express's, or plain Node's). */
export type Middleware<Req = IncomingMessage, Res = ServerResponse> = (
  req: Req,
  res: Res,
  next: (err?: unknown) => void,
) => void;

/**
 * Runs middleware in order, as an Express route does, then calls `done` once: with no argument when the last
 * one passed the request on, or with the first error given to `next` or thrown. A middleware that answers
 * the request without calling `next` ends the chain, and `done` is not called. Synchronous middleware runs
 * synchronously: `done` has been called when this returns.
 */
export function runMiddleware<Req, Res>(
  chain: readonly Middleware<Req, Res>[],
  req: Req,
  res: Res,
  done: (err?: unknown) => void,
): void {
  let i = 0;
  let finished = false;
  const next = (err?: unknown): void => {
    const middleware = chain[i++];
    if ((err !== undefined && err !== null) || middleware === undefined) {
      finished = true;
      done(err ?? undefined);
      return;
    }
    try {
      middleware(req, res, next);
    } catch (thrown) {
      // A throw of `done` (or of code after it) is the caller's, not a middleware error: passed up as it is.
      if (finished) throw thrown;
      finished = true;
      done(thrown);
    }
  };
  next();
}
