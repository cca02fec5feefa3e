import type { IncomingHttpHeaders } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { sendApiError } from './http/api-error.js';
import { bearerToken, secretMatcher } from './bearer-token.js';
import type { PlatformConfig } from './platform-config.js';

/** Headers a proxy adds: a request that carries one did not come straight from this machine's user. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms: the peer of the socket is this machine. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Whether a request is a direct loopback connection that no proxy forwarded. */
function isDirectLoopback(
  req: Pick<Request, 'headers'> & { socket: { remoteAddress?: string | undefined } },
): boolean {
  const headers: IncomingHttpHeaders = req.headers;
  return (
    isLoopbackAddress(req.socket.remoteAddress) && FORWARDING_HEADERS.every((h) => headers[h] === undefined)
  );
}

/**
 * Guards the operator surfaces (the USSD debug record and session list, `/metrics`), which spec section 4
 * A says must not be exposed publicly. Closed by default, in every NODE_ENV:
 *
 * - with `OPERATOR_TOKEN` set, they answer only `Authorization: Bearer $OPERATOR_TOKEN` (401
 *   `unauthorized` otherwise, from anywhere, loopback included);
 * - without it, they answer only a direct loopback connection that carries no forwarding header
 *   (`X-Forwarded-For`, `Forwarded`, `X-Real-IP`): an operator on the machine itself. Everyone else, a
 *   reverse proxy on the same machine included, gets 404 `not_found`, as if the route did not exist.
 *
 * The socket's peer address is used, never `req.ip`: trusting a proxy's header must not open these routes.
 */
export function createOperatorAuth(config: Pick<PlatformConfig, 'OPERATOR_TOKEN'>): RequestHandler {
  const matches = config.OPERATOR_TOKEN === undefined ? undefined : secretMatcher(config.OPERATOR_TOKEN);
  return (req, res, next) => {
    if (matches === undefined) {
      if (isDirectLoopback(req)) {
        next();
        return;
      }
      sendApiError(res, 404, 'not_found', 'No such route.');
      return;
    }
    const given = bearerToken(req.headers.authorization);
    if (given !== undefined && matches(given)) {
      next();
      return;
    }
    res.setHeader('www-authenticate', 'Bearer');
    sendApiError(res, 401, 'unauthorized', 'Operator endpoints need Authorization: Bearer <OPERATOR_TOKEN>.');
  };
}
