import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { sendApiError } from '../../http/api-error.js';
import { PhoneNumber } from '../../../contracts/ussd.js';
import type { UssdGatewayConfig } from '../config.js';
import type { Logger } from '../../logger.js';
import { createFallbackRedisStore } from '../../stores/fallback-rate-limit-store.js';
import { createAddressList } from './address-list.js';

/** What one budget of requests belongs to (USSD_RATE_LIMIT_KEY). */
export type RateLimitKey = UssdGatewayConfig['USSD_RATE_LIMIT_KEY'];

/** Options of {@link createUssdRateLimit}. */
export interface UssdRateLimitOptions {
  /** Requests allowed per key per minute; 0 disables the limiter. */
  perMinute: number;
  /** `ip` (the spec's default), `phone`, or `ip+phone`. Default `ip`. */
  key?: RateLimitKey;
  /** Addresses and CIDRs of gateways exempt from the per-IP limit (USSD_RATE_LIMIT_ALLOWLIST). */
  allowlist?: readonly string[];
  /** When set, counts live in Redis so the limit holds across every instance; otherwise in process memory. */
  redis: Redis | undefined;
  /** Redis key prefix of the counters, e.g. `ussd:rl:`. */
  redisPrefix: string;
  logger: Logger;
  /**
   * Run express-rate-limit's checks of its own configuration on every request (they log a misconfiguration
   * once). Default true; production turns them off: the configuration is the tested one, and they cost
   * every request of the hot path.
   */
  checkConfiguration?: boolean;
}

const rateLimited = (_req: Request, res: Response): void =>
  sendApiError(res, 429, 'rate_limited', 'Too many requests from this address; try again in a minute.');

const passThrough: RequestHandler = (_req, _res, next) => next();

/** The E.164 phone number of a parsed body, when it has a valid one. */
function phoneOf(body: unknown): string | undefined {
  const phone = (body as { phoneNumber?: unknown } | null | undefined)?.phoneNumber;
  return typeof phone === 'string' && PhoneNumber.safeParse(phone).success ? phone : undefined;
}

/**
 * The rate limit of `POST /api/ussd` (spec section 8: 100 per minute per IP, then HTTP 429), on
 * express-rate-limit with the standard `RateLimit`/`RateLimit-Policy` headers (IETF draft 7). It runs
 * after the body parsers, so a budget can belong to the phone number.
 *
 * - `ip`: one budget per client IP (`req.ip`, which honours `X-Forwarded-For` only when the app trusts the
 *   proxy, TRUST_PROXY_ENABLED; an IPv6 client's /56 network). Allowlisted addresses are not limited.
 * - `phone`: one budget per phone number of the body, whatever address sent it; a body without a valid
 *   one is counted per IP.
 * - `ip+phone`: one budget per (IP, phone number); from an allowlisted address, per phone number only.
 */
export function createUssdRateLimit(options: UssdRateLimitOptions): RequestHandler {
  if (options.perMinute === 0) return passThrough;
  const { redis, logger } = options;
  const mode = options.key ?? 'ip';
  const allowlist = createAddressList(options.allowlist ?? []);
  const store =
    redis === undefined ? undefined : createFallbackRedisStore(redis, options.redisPrefix, logger);
  const ipOf = (req: Request): string => ipKeyGenerator(req.ip ?? '');
  const limiter = rateLimit({
    windowMs: 60_000,
    limit: options.perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: rateLimited,
    ...(store ? { store } : {}),
    // Allowlisted gateways skip the per-IP limit; with a phone in the key they are still counted per phone.
    skip: (req) => mode === 'ip' && allowlist.has(req.ip),
    keyGenerator: (req) => {
      const phone = phoneOf(req.body);
      if (mode === 'ip' || phone === undefined) return ipOf(req);
      if (mode === 'phone') return `phone:${phone}`;
      return allowlist.has(req.ip) ? `phone:${phone}` : `${ipOf(req)}|${phone}`;
    },
    // Without a trusted proxy, X-Forwarded-For is deliberately ignored; do not warn about it. The key of an
    // address does go through ipKeyGenerator (ipOf), which the library's source check cannot see.
    validate:
      options.checkConfiguration === false
        ? false
        : { xForwardedForHeader: false, keyGeneratorIpFallback: false },
    logger: {
      error: (err: unknown, message?: string) => logger.error({ err }, message ?? 'rate limiter error'),
      warn: (err: unknown, message?: string) => logger.warn({ err }, message ?? 'rate limiter warning'),
    },
  });
  return (req, res, next) => {
    // Express works `req.ip` out from the socket and the proxy headers on every read; the limiter, its skip
    // and its key read it up to three times. One read, kept on this request for the others.
    Object.defineProperty(req, 'ip', { value: req.ip, configurable: true });
    void limiter(req, res, next);
  };
}
