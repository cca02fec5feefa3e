import type { Request, Response } from 'express';
import type { Part, PartContext } from '../part.js';
import type { UssdGatewayConfig } from './config.js';
import type { UssdEngine, UssdSession } from './engine/types.js';
import { createAggregatorAuth } from './http/aggregator-auth.js';
import { createUssdMetrics } from './http/metrics.js';
import { createOperatorAuth } from '../operator-auth.js';
import { createUssdRateLimit } from './http/rate-limit.js';
import { ussdContract } from '../../contracts/ussd.js';
import { createUssdRouter } from './http/router.js';
import { createSessionFlow, type EndedReply } from './session/session-flow.js';
import { createSessionStore } from './session/create-session-store.js';
import type { ValueSealer } from './crypto/value-sealer.js';

const SESSION_METHOD = ussdContract.session.method;
const SESSION_PATH = ussdContract.session.path;

/** What the gateway is given besides the part context. */
export interface UssdGatewayOptions {
  engine: UssdEngine;
  /** Encrypts sessions kept in Redis (they carry the typed text, PINs included). */
  sealer: ValueSealer;
}

/**
 * Assembles the USSD gateway part around a menu engine: session stores (Redis when the context has a
 * client, else in-process), the aggregator's authentication, rate limit, operator guard, metrics and the
 * router. Its Redis keys are
 * `<ctx.redisPrefix>ussd:session:<id>`, `…ussd:ended:<id>` and `…ussd:rl:<ip>`; instances that share
 * sessions share the prefix.
 */
export function createUssdGateway(ctx: PartContext<UssdGatewayConfig>, options: UssdGatewayOptions): Part {
  const prefix = `${ctx.redisPrefix}ussd:`;
  const sessions = createSessionStore<UssdSession>(ctx.redis, `${prefix}session:`, options.sealer);
  const ended = createSessionStore<EndedReply>(ctx.redis, `${prefix}ended:`, options.sealer);
  const flow = createSessionFlow({
    engine: options.engine,
    sessions,
    ended,
    ttlSeconds: ctx.config.USSD_SESSION_TTL_SECONDS,
    logger: ctx.logger,
  });
  const { router, session } = createUssdRouter({
    flow,
    sessions,
    metrics: createUssdMetrics(ctx.metrics, async () => (await sessions.list()).length, ctx.logger),
    rateLimit: createUssdRateLimit({
      perMinute: ctx.config.USSD_RATE_LIMIT_PER_MINUTE,
      key: ctx.config.USSD_RATE_LIMIT_KEY,
      allowlist: ctx.config.USSD_RATE_LIMIT_ALLOWLIST,
      redis: ctx.redis,
      redisPrefix: `${prefix}rl:`,
      logger: ctx.logger,
      checkConfiguration: ctx.config.NODE_ENV !== 'production',
    }),
    aggregatorAuth: createAggregatorAuth(ctx.config),
    operatorAuth: createOperatorAuth(ctx.config),
  });
  return {
    name: 'ussd',
    router,
    // POST /api/ussd exactly (a query string allowed); other spellings of the path go through the router.
    direct: (req, res, start) => {
      if (req.method !== SESSION_METHOD) return false;
      const url = req.url ?? '';
      const query = url.indexOf('?');
      if ((query === -1 ? url : url.slice(0, query)) !== SESSION_PATH) return false;
      start(req, res, { express: true });
      session(req as Request, res as Response);
      return true;
    },
    async close() {
      await Promise.all([sessions.close(), ended.close()]);
    },
  };
}
