import type { RequestHandler } from 'express';
import type { ApiError } from '../../../contracts/errors.js';
import { bearerToken, secretMatcher } from '../../bearer-token.js';
import type { Config } from '../../config.js';

/**
 * Guards the operator endpoints (debug record, session list), which the spec says must not be public.
 * Outside production they are open for local work. In production they answer only to
 * `Authorization: Bearer $OPERATOR_TOKEN` (401 `unauthorized` otherwise), and do not exist at all (404
 * `not_found`) when no OPERATOR_TOKEN is configured.
 */
export function createOperatorAuth(config: Pick<Config, 'NODE_ENV' | 'OPERATOR_TOKEN'>): RequestHandler {
  if (config.NODE_ENV !== 'production') return (_req, _res, next) => next();
  const matches = config.OPERATOR_TOKEN === undefined ? undefined : secretMatcher(config.OPERATOR_TOKEN);
  return (req, res, next) => {
    if (matches === undefined) {
      const body: ApiError = {
        code: 'not_found',
        message: 'No such route.',
        requestId: res.locals.requestId,
      };
      res.status(404).json(body);
      return;
    }
    const given = bearerToken(req.headers.authorization);
    if (given !== undefined && matches(given)) {
      next();
      return;
    }
    const body: ApiError = {
      code: 'unauthorized',
      message: 'Operator endpoints need Authorization: Bearer <OPERATOR_TOKEN>.',
      requestId: res.locals.requestId,
    };
    res.status(401).setHeader('www-authenticate', 'Bearer').json(body);
  };
}
