import type { Redis } from 'ioredis';
import supertest from 'supertest';
import { loadConfig, type Config } from '../../server/config.js';
import { createLogger, type Logger } from '../../server/logger.js';
import type { PartContext } from '../../server/part.js';
import { startServer, type RunningServer, type ServerOverrides } from '../../server/server.js';
import { openTestDb, type TestDb } from './db.js';

export interface TestAppOptions {
  /** Environment for this app; wins over the process environment. `''` unsets a variable (e.g. REDIS_URL). */
  env?: Record<string, string>;
  /** Share a database between apps (e.g. two instances behind one load balancer). */
  db?: TestDb;
  redis?: Redis;
  logger?: Logger;
  /** Replaces the factory of a part (e.g. the oracle with a test plugin). */
  parts?: ServerOverrides['parts'];
}

export interface TestApp extends AsyncDisposable {
  url: string;
  config: Config;
  ctx: PartContext;
  server: RunningServer;
  db: TestDb;
  /** supertest bound to the listening server. */
  request: supertest.Agent;
  close(): Promise<void>;
}

/**
 * Starts the real server on a loopback port with test defaults: NODE_ENV=test, silent logs, its own
 * database (see openTestDb) unless one is passed. DATABASE_URL and REDIS_URL from the environment are
 * honoured, so CI runs the same tests against the real PostgreSQL and Redis.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: process.env['DATABASE_URL'] ?? '',
    REDIS_URL: process.env['REDIS_URL'] ?? '',
    ...options.env,
  };
  const config = loadConfig(env);
  const ownDb = options.db === undefined;
  const db = options.db ?? (await openTestDb());
  const server = await startServer(config, {
    db,
    port: 0,
    logger: options.logger ?? createLogger(config.LOG_LEVEL),
    ...(options.redis ? { redis: options.redis } : {}),
    ...(options.parts ? { parts: options.parts } : {}),
  });
  const close = async (): Promise<void> => {
    await server.close();
    if (ownDb) await db.close();
  };
  return {
    url: server.url,
    config,
    ctx: server.ctx,
    server,
    db,
    request: supertest.agent(server.url),
    close,
    [Symbol.asyncDispose]: close,
  };
}
