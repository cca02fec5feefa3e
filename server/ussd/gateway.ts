import type { Part, PartContext } from '../part.js';
import type { UssdEngine, UssdSession } from './engine-types.js';
import { createUssdMetrics } from './metrics.js';
import { createOperatorAuth } from './operator-auth.js';
import { createUssdRateLimit } from './rate-limit.js';
import { createUssdRouter } from './router.js';
import { createSessionFlow, type EndedReply } from './session-flow.js';
import { createSessionStore } from './stores/create-session-store.js';
import type { ValueSealer } from './value-sealer.js';

/** What the gateway is given besides the part context. */
export interface UssdGatewayOptions {
  engine: UssdEngine;
  /** Encrypts sessions kept in Redis (they carry the typed text, PINs included). */
  sealer: ValueSealer;
  /**
   * Namespace of this gateway's Redis keys: `<prefix>session:<id>`, `<prefix>ended:<id>`, `<prefix>rl:<ip>`.
   * Instances that share sessions share the prefix. Default `ussd:`.
   */
  redisPrefix?: string;
}

/**
 * Assembles the USSD gateway part around a menu engine: session stores (Redis when the context has a
 * client, else in-process), rate limit, operator guard, metrics and the router.
 */
export function createUssdGateway(ctx: PartContext, options: UssdGatewayOptions): Part {
  const prefix = options.redisPrefix ?? 'ussd:';
  const sessions = createSessionStore<UssdSession>(ctx.redis, `${prefix}session:`, options.sealer);
  const ended = createSessionStore<EndedReply>(ctx.redis, `${prefix}ended:`, options.sealer);
  const flow = createSessionFlow({
    engine: options.engine,
    sessions,
    ended,
    ttlSeconds: ctx.config.USSD_SESSION_TTL_SECONDS,
  });
  const router = createUssdRouter({
    flow,
    sessions,
    metrics: createUssdMetrics(ctx.metrics, async () => (await sessions.list()).length, ctx.logger),
    rateLimit: createUssdRateLimit({
      perMinute: ctx.config.USSD_RATE_LIMIT_PER_MINUTE,
      redis: ctx.redis,
      redisPrefix: `${prefix}rl:`,
      logger: ctx.logger,
    }),
    operatorAuth: createOperatorAuth(ctx.config),
  });
  return {
    name: 'ussd',
    router,
    async close() {
      await Promise.all([sessions.close(), ended.close()]);
    },
  };
}
