import type { Request, RequestHandler, Response } from 'express';
import { bearerToken, secretMatcher } from '../../bearer-token.js';
import type { UssdGatewayConfig } from '../config.js';
import { createAddressList } from './address-list.js';

/** The challenge of a 401: the aggregator (or curl) answers it with the callback URL's credentials. */
const AGGREGATOR_CHALLENGE = 'Basic realm="ussd"';

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;

/** The password of an `Authorization: Basic` header (`user:password`, base64), if it is one. */
function basicPassword(header: string | undefined): string | undefined {
  const encoded = BASIC.exec(header ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/**
 * A refusal of `POST /api/ussd` in plain text, not the JSON error of the other routes: the aggregator is a
 * plain-text client (it relays the body of a session reply to the phone), and a refused caller is given
 * nothing to read but the status's own name. Not a `CON`/`END` reply either: no aggregator may take a
 * refusal for a screen of the menus. (The route's JSON 429 comes from the rate limiter, which a refused
 * request never reaches.)
 */
function refuse(res: Response, status: 401 | 403): void {
  res.locals.ussdOutcome = status === 401 ? 'unauthorized' : 'forbidden';
  if (status === 401) res.setHeader('www-authenticate', AGGREGATOR_CHALLENGE);
  res
    .status(status)
    .type('text/plain')
    .send(status === 401 ? 'Unauthorized' : 'Forbidden');
}

const passThrough: RequestHandler = (_req, _res, next) => next();

/**
 * Who may call `POST /api/ussd` (USSD_AGGREGATOR_ALLOWLIST, USSD_AGGREGATOR_SECRET). It runs first on the
 * session route, before the body is read: a refused request touches no session, rate-limit budget or PIN
 * attempt.
 *
 * - With an allowlist, a client address outside it is answered 403. The address is `req.ip`, which
 *   believes `X-Forwarded-For` only from the proxies TRUST_PROXY_ENABLED names.
 * - With a secret, a request must carry it as the password of `Authorization: Basic` (any user name: the
 *   callback URL `https://ussd:<secret>@host/api/ussd`) or as `Authorization: Bearer <secret>`, else 401
 *   with `WWW-Authenticate: Basic realm="ussd"`. Compared in constant time (both sides hashed first).
 * - With both, both: the address first.
 * - With neither (development, tests, or `USSD_AGGREGATOR_AUTH=network`), everyone, as the spec's default.
 */
export function createAggregatorAuth(
  config: Pick<UssdGatewayConfig, 'USSD_AGGREGATOR_ALLOWLIST' | 'USSD_AGGREGATOR_SECRET'>,
): RequestHandler {
  const allowlist =
    config.USSD_AGGREGATOR_ALLOWLIST.length > 0
      ? createAddressList(config.USSD_AGGREGATOR_ALLOWLIST)
      : undefined;
  const matches =
    config.USSD_AGGREGATOR_SECRET === undefined ? undefined : secretMatcher(config.USSD_AGGREGATOR_SECRET);
  if (allowlist === undefined && matches === undefined) return passThrough;
  const refused = (req: Request, res: Response, status: 401 | 403, reason: string): void => {
    // The address only: never the credential that was sent, nor the body (a phone number).
    res.locals.logger.warn({ ip: req.ip, reason }, 'ussd: refused a caller that is not the aggregator');
    refuse(res, status);
  };
  return (req, res, next) => {
    if (allowlist !== undefined && !allowlist.has(req.ip)) {
      refused(req, res, 403, 'address not in USSD_AGGREGATOR_ALLOWLIST');
      return;
    }
    if (matches !== undefined) {
      const header = req.headers.authorization;
      const given = basicPassword(header) ?? bearerToken(header);
      if (given === undefined || !matches(given)) {
        refused(req, res, 401, given === undefined ? 'no credential' : 'wrong credential');
        return;
      }
    }
    next();
  };
}
