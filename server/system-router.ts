import { initServer, createExpressEndpoints } from '@ts-rest/express';
import { Router } from 'express';
import { systemContract } from '../contracts/system.js';
import type { Part, PartContext } from './part.js';

const s = initServer();

/** GET /health (spec A5, with a real database check) and GET / (spec A6). */
export function createSystemRouter(
  ctx: Pick<PartContext, 'config' | 'db' | 'logger'>,
  parts: Pick<Part, 'health'>[] = [],
): Router {
  const environment = ctx.config.NODE_ENV;
  const router = s.router(systemContract, {
    health: async () => {
      const extras = await Promise.all(parts.map((p) => p.health?.() ?? Promise.resolve({ plugins: [] })));
      const plugins = extras.flatMap((e) => e.plugins ?? []);
      const base = {
        environment,
        timestamp: new Date().toISOString(),
        uptime: process.uptime(),
        ...(plugins.length ? { plugins } : {}),
      };
      try {
        await ctx.db.ping();
        return { status: 200, body: { ...base, status: 'ok', database: 'connected' } };
      } catch (err) {
        ctx.logger.warn({ err }, 'health: database unreachable');
        return { status: 503, body: { ...base, status: 'error', database: 'disconnected' } };
      }
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
