import { status as Status } from '@grpc/grpc-js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken, secretMatcher } from '../bearer-token.js';
import { ChainError } from './chain-error.js';
import { sendJson } from './send-json.js';

/** Body message of the 401 answered without `Authorization: Bearer …`. */
const MISSING_TOKEN_MESSAGE = 'missing bearer token';
/** Body message of the 403 answered for a wrong token. */
const WRONG_TOKEN_MESSAGE = 'invalid bearer token';

/**
 * Gates REST with a shared bearer token (CHAIN_REST_TOKEN): no token → 401 code 16 (Unauthenticated),
 * a wrong one → 403 code 7 (PermissionDenied), both in the Cosmos error form. Tokens are compared as
 * SHA-256 digests with a constant-time compare, so neither content nor length leaks through timing.
 * CORS preflights (OPTIONS) carry no credentials and pass.
 */
/** A middleware of plain Node request and response, for Express and for the direct path alike. */
export type ChainMiddleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export function bearerGate(token: string): ChainMiddleware {
  const matches = secretMatcher(token);
  return (req, res, next) => {
    if (req.method === 'OPTIONS') return next();
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) {
      const err = new ChainError(Status.UNAUTHENTICATED, MISSING_TOKEN_MESSAGE);
      res.setHeader('WWW-Authenticate', 'Bearer');
      sendJson(res, err.httpStatus, err.toBody());
      return;
    }
    if (!matches(presented)) {
      const err = new ChainError(Status.PERMISSION_DENIED, WRONG_TOKEN_MESSAGE);
      sendJson(res, err.httpStatus, err.toBody());
      return;
    }
    next();
  };
}
