import type { RequestHandler } from 'express';
import { runMiddleware } from '../../http/run-middleware.js';
import { authenticate, tokensFromHeaders, type AuthContext } from '../auth/authenticate.js';
import type { TokenVerifier } from '../auth/token-verifier.js';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The caller, set by the oracle's auth middleware on every route that needs a token. */
    auth?: AuthContext;
  }
}

/**
 * Middleware that authenticates the caller from the request's capability tokens (contracts/oracle.ts) and
 * sets `res.locals.auth`.
 */
export function requireCaller(verifier: TokenVerifier): RequestHandler {
  return (req, res, next) => {
    authenticate(tokensFromHeaders(req.headers), verifier)
      .then((auth) => {
        res.locals.auth = auth;
        next();
      })
      .catch(next);
  };
}

/**
 * What every authenticated route passes through, the contract's (`auth: 'ucan'`) and those of the plugins'
 * HTTP modules alike: {@link requireCaller}, then the plugins' middleware in order.
 */
export function authenticatedCaller(
  verifier: TokenVerifier,
  pluginMiddleware: readonly RequestHandler[],
): RequestHandler {
  const chain = [requireCaller(verifier), ...pluginMiddleware];
  return (req, res, next) => runMiddleware(chain, req, res, next);
}
