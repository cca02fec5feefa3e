import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { ApiError } from '../../../contracts/errors.js';
import type { Logger } from '../../logger.js';
import { withTimeout } from '../session/with-timeout.js';

/** Options of {@link createUssdRateLimit}. */
export interface UssdRateLimitOptions {
  /** Requests allowed per client IP per minute; 0 disables the limiter. */
  perMinute: number;
  /** When set, counts live in Redis so the limit holds across every instance; otherwise in process memory. */
  redis: Redis | undefined;
  /** Redis key prefix of the counters, e.g. `ussd:rl:`. */
  redisPrefix: string;
  logger: Logger;
}

/**
 * A RedisStore that recovers when Redis was unreachable while the limiter started: the Lua script's SHA
 * is loaded once at start-up, and upstream keeps a rejected load forever. Retrying a failed load on the
 * next request lets the limiter heal by itself when Redis returns.
 */
class HealingRedisStore extends RedisStore {
  override increment(key: string): ReturnType<RedisStore['increment']> {
    this.incrementScriptSha = this.incrementScriptSha.catch(() => this.loadIncrementScript());
    return super.increment(key);
  }
}

const rateLimited = (_req: Request, res: Response): void => {
  const body: ApiError = {
    code: 'rate_limited',
    message: 'Too many requests from this address; try again in a minute.',
    requestId: res.locals.requestId,
  };
  res.status(429).json(body);
};

const passThrough: RequestHandler = (_req, _res, next) => next();

/**
 * Per-IP rate limit of the USSD routes (spec section 8: 100 per minute, then HTTP 429), on
 * express-rate-limit with the standard `RateLimit`/`RateLimit-Policy` headers (IETF draft 7). The client IP
 * is `req.ip`, which honours `X-Forwarded-For` only when the app trusts the proxy (TRUST_PROXY_ENABLED).
 * A store failure is passed on as an error, which the USSD routes answer as "service unavailable".
 */
export function createUssdRateLimit(options: UssdRateLimitOptions): RequestHandler {
  if (options.perMinute === 0) return passThrough;
  const { redis, logger } = options;
  const store =
    redis === undefined
      ? undefined
      : new HealingRedisStore({
          prefix: options.redisPrefix,
          sendCommand: (command: string, ...args: string[]) =>
            withTimeout(redis.call(command, ...args) as Promise<RedisReply>, 1000, `redis ${command}`),
        });
  return rateLimit({
    windowMs: 60_000,
    limit: options.perMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: rateLimited,
    ...(store ? { store } : {}),
    // The default key, computed once: the client IP, an IPv6 client's /56 network (one user cannot rotate
    // through addresses). The library's own generator reads `req.ip`, which Express recomputes from the
    // socket and headers on every read, twice per request.
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? ''),
    // Without a trusted proxy, X-Forwarded-For is deliberately ignored; do not warn about it.
    validate: { xForwardedForHeader: false },
    logger: {
      error: (err: unknown, message?: string) => logger.error({ err }, message ?? 'rate limiter error'),
      warn: (err: unknown, message?: string) => logger.warn({ err }, message ?? 'rate limiter warning'),
    },
  });
}
