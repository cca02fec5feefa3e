import type { Request, RequestHandler, Response } from 'express';
import {
  ipKeyGenerator,
  MemoryStore,
  rateLimit,
  type IncrementResponse,
  type Options,
  type Store,
} from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { sendApiError } from '../../api-error.js';
import { PhoneNumber } from '../../../contracts/ussd.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../logger.js';
import { withTimeout } from '../../with-timeout.js';
import { createAddressList } from './address-list.js';

/** What one budget of requests belongs to (USSD_RATE_LIMIT_KEY). */
export type RateLimitKey = Config['USSD_RATE_LIMIT_KEY'];

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

/**
 * A RedisStore that recovers when Redis was unreachable while the limiter started: the Lua script's SHA
 * is loaded once at start-up, and upstream keeps a rejected load forever. Retrying a failed load on the
 * next request lets the limiter heal by itself when Redis returns.
 */
export class HealingRedisStore extends RedisStore {
  override increment(key: string): ReturnType<RedisStore['increment']> {
    this.incrementScriptSha = this.incrementScriptSha.catch(() => this.loadIncrementScript());
    return super.increment(key);
  }
}

/**
 * Counts in Redis, and in this process while Redis does not answer. The choice when Redis is down: the
 * limiter neither fails the request (every caller would get the unavailable reply because of a counter)
 * nor lets everything through (the outage is exactly when a flood hurts most); each instance keeps
 * limiting on its own counts, so the limit holds per instance until Redis answers again, then the shared
 * counts take over. One warning per outage, one info line when it ends.
 */
export class FallbackStore implements Store {
  readonly localKeys = false;
  private readonly local = new MemoryStore();
  private down = false;

  constructor(
    private readonly shared: Store,
    private readonly logger: Logger,
    readonly prefix: string,
  ) {}

  async init(options: Options): Promise<void> {
    this.local.init(options);
    await Promise.resolve(this.shared.init?.(options)).catch((err: unknown) => this.failed(err));
  }

  async increment(key: string): Promise<IncrementResponse> {
    try {
      const counted = await this.shared.increment(key);
      if (this.down) {
        this.down = false;
        this.logger.info('rate limit: Redis answers again; counting in Redis');
      }
      return counted;
    } catch (err) {
      this.failed(err);
      return this.local.increment(key);
    }
  }

  async decrement(key: string): Promise<void> {
    await Promise.resolve(this.shared.decrement(key)).catch(() => this.local.decrement(key));
  }

  async resetKey(key: string): Promise<void> {
    await this.local.resetKey(key);
    await Promise.resolve(this.shared.resetKey(key)).catch((err: unknown) => this.failed(err));
  }

  shutdown(): void {
    this.local.shutdown();
  }

  private failed(err: unknown): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn(
      { err },
      'rate limit: Redis does not answer; counting in this process until it does (the limit holds per instance)',
    );
  }
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
    redis === undefined
      ? undefined
      : new FallbackStore(
          new HealingRedisStore({
            prefix: options.redisPrefix,
            sendCommand: (command: string, ...args: string[]) =>
              withTimeout(redis.call(command, ...args) as Promise<RedisReply>, 1000, `redis ${command}`),
          }),
          logger,
          options.redisPrefix,
        );
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
