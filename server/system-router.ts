import { initServer, createExpressEndpoints } from '@ts-rest/express';
import { Router } from 'express';
import { systemContract } from '../contracts/system.js';
import type { Logger } from './logger.js';
import type { Part, PartContext } from './part.js';
import type { ServerLifecycle } from './lifecycle.js';
import { withTimeout } from './with-timeout.js';
import { redisOutage } from './stores/outage-notice.js';

const s = initServer();

/** How long `/health` waits for each dependency before it reports it disconnected. */
const HEALTH_CHECK_TIMEOUT_MS = 2000;

/**
 * GET /health (spec A5, with a real check of each configured dependency: the database, and Redis when
 * configured; 503 when one is down, and 503 `draining` while the server stops), GET /health/live and
 * GET /health/ready (for balancers and orchestrators: answered from the process's own state, see
 * contracts/system.ts) and GET / (spec A6).
 */
export function createSystemRouter(
  ctx: Pick<PartContext, 'config' | 'db' | 'logger' | 'redis'>,
  parts: Pick<Part, 'health'>[] = [],
  lifecycle: ServerLifecycle = { draining: false },
): Router {
  const environment = ctx.config.NODE_ENV;
  const checkDb = (logger: Logger): Promise<boolean> =>
    ctx.db.ping(HEALTH_CHECK_TIMEOUT_MS).then(
      () => true,
      (err: unknown) => {
        logger.warn({ err }, 'health: database unreachable');
        return false;
      },
    );
  const checkRedis = async (logger: Logger): Promise<boolean | undefined> => {
    const redis = ctx.redis;
    if (redis === undefined) return undefined;
    try {
      await withTimeout(redis.ping(), HEALTH_CHECK_TIMEOUT_MS, 'redis ping');
      return true;
    } catch (err) {
      redisOutage(redis, logger).failed(err);
      return false;
    }
  };
  const router = s.router(systemContract, {
    health: async ({ res }) => {
      const [extras, dbUp, redisUp] = await Promise.all([
        Promise.all(parts.map((p) => p.health?.() ?? Promise.resolve({ plugins: [] }))),
        checkDb(res.locals.logger),
        checkRedis(res.locals.logger),
      ]);
      const plugins = extras.flatMap((e) => e.plugins ?? []);
      const healthy = dbUp && redisUp !== false;
      const body = {
        status: lifecycle.draining ? ('draining' as const) : healthy ? ('ok' as const) : ('error' as const),
        environment,
        timestamp: new Date().toISOString(),
        uptime: Math.floor(process.uptime()),
        database: dbUp ? ('connected' as const) : ('disconnected' as const),
        ...(redisUp === undefined
          ? {}
          : { redis: redisUp ? ('connected' as const) : ('disconnected' as const) }),
        ...(plugins.length ? { plugins } : {}),
      };
      return body.status === 'ok' ? { status: 200, body } : { status: 503, body };
    },
    live: () =>
      Promise.resolve({
        status: 200,
        body: {
          status: lifecycle.draining ? ('draining' as const) : ('ok' as const),
          timestamp: new Date().toISOString(),
          uptime: Math.floor(process.uptime()),
        },
      }),
    ready: () => {
      const body = {
        status: lifecycle.draining ? ('draining' as const) : ('ready' as const),
        timestamp: new Date().toISOString(),
        parts: ctx.config.ENABLED_PARTS,
      };
      return Promise.resolve(body.status === 'ready' ? { status: 200, body } : { status: 503, body });
    },
    probe: () =>
      Promise.resolve({
        status: 200,
        body: {
          status: 'ok',
          message: 'Gateway server is running',
          environment,
          timestamp: new Date().toISOString(),
        },
      }),
  });
  const expressRouter = Router();
  createExpressEndpoints(systemContract, router, expressRouter, { logInitialization: false });
  return expressRouter;
}
