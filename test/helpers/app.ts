import type { Express } from 'express';
import type { Redis } from 'ioredis';
import supertest from 'supertest';
import { loadConfig, type Config, type PartName } from '../../server/config.js';
import type { Db } from '../../server/db/index.js';
import { createLogger, type Logger } from '../../server/logger.js';
import type { Part, PartContext } from '../../server/part.js';
import { startServer, type RunningServer, type ServerOverrides } from '../../server/server.js';
import { openTestDb, TEST_DATABASE_URL } from './db.js';
import { TEST_ENV } from './env.js';
import { deleteKeys, TEST_REDIS_URL, testRedisPrefix } from './redis.js';

/** Options of {@link startTestApp}; every one may be left out. */
export interface TestAppOptions {
  /**
   * Environment of this app. It wins over {@link TEST_ENV} and over DATABASE_URL / REDIS_URL of the
   * process (the production column sets them); `''` unsets a variable (`REDIS_URL: ''` for in-process
   * sessions). Set ENABLED_PARTS to start only the parts a test needs.
   */
  env?: Record<string, string>;
  /**
   * The database: one shared with other apps or with the test itself (left open), or `'none'` for an app
   * that must never query one (any query fails loudly). Default: a database of its own, in a fresh schema
   * (see openTestDb), dropped on close.
   */
  db?: Db | 'none';
  /** A Redis client shared with the test or other apps (left open). Default: the server opens its own when REDIS_URL is set. */
  redis?: Redis;
  /**
   * Namespace of the app's Redis keys (see PartContext.redisPrefix). Apps that share sessions pass the
   * same one. Default: a fresh one per app, whose keys are deleted on close.
   */
  redisPrefix?: string;
  /** Builds a part another way, e.g. `{ ussd: (ctx) => createUssdPart(ctx, { engine: () => scripted }) }`. */
  parts?: ServerOverrides['parts'];
  /** Default: a logger at the configured LOG_LEVEL (silent). */
  logger?: Logger;
}

/** A running app and what tests reach it with. Close it (or `await using` it) at the end. */
export interface TestApp extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** supertest bound to the listening server. */
  request: supertest.Agent;
  /** The Express app, for in-process requests without a socket (test/helpers/inject.ts). */
  app: Express;
  config: Config;
  ctx: PartContext;
  db: Db;
  server: RunningServer;
  /** The running part of that name, as its factory built it (e.g. `part<UssdPart>('ussd').accounts`). */
  part<P extends Part = Part>(name: PartName): P;
  close(): Promise<void>;
}

/**
 * The one app harness: starts the real server (server/server.ts `startServer`, as main.ts does) on a
 * loopback port, with {@link TEST_ENV}. On embedded defaults it needs nothing running: PGlite, in-process
 * stores, the fixture chain node. With DATABASE_URL and REDIS_URL set (CI), the same tests run against the
 * real PostgreSQL (a schema per app) and Redis (a key prefix per app).
 *
 * @example
 * await using t = await startTestApp({ env: { ENABLED_PARTS: 'ussd', USSD_RATE_LIMIT_PER_MINUTE: '0' } });
 * await t.request.post('/api/ussd').send(body).expect(200);
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    ...TEST_ENV,
    DATABASE_URL: TEST_DATABASE_URL ?? '',
    REDIS_URL: TEST_REDIS_URL ?? '',
    ...options.env,
  });
  const ownDb = options.db === undefined;
  const db = options.db === 'none' ? noDatabase() : (options.db ?? (await openTestDb()));
  const ownPrefix = options.redisPrefix === undefined;
  const redisPrefix = options.redisPrefix ?? testRedisPrefix();
  let server: RunningServer;
  try {
    server = await startServer(config, {
      db,
      port: 0,
      redisPrefix,
      logger: options.logger ?? createLogger(config.LOG_LEVEL),
      ...(options.redis ? { redis: options.redis } : {}),
      ...(options.parts ? { parts: options.parts } : {}),
    });
  } catch (err) {
    if (ownDb) await db.close();
    throw err;
  }
  const running = server;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      const redis = running.ctx.redis;
      if (ownPrefix && redis?.status === 'ready') await deleteKeys(redis, redisPrefix).catch(() => undefined);
      await running.close();
      if (ownDb) await db.close();
    })());
  return {
    url: server.url,
    request: supertest.agent(server.url),
    app: server.app,
    config,
    ctx: server.ctx,
    db,
    server,
    part<P extends Part = Part>(name: PartName): P {
      const found = running.parts.find((p) => p.name === name);
      if (found === undefined) throw new Error(`part ${name} is not enabled in this app`);
      return found as P;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A Db for apps that must never use one: any query through it fails loudly. */
function noDatabase(): Db {
  const fail = (): never => {
    throw new Error('this test app has no database (db: "none")');
  };
  return {
    kind: 'pglite',
    schema: undefined,
    kysely: new Proxy({} as Db['kysely'], { get: fail }),
    prepared: fail,
    load: () => undefined,
    ping: () => Promise.reject(new Error('this test app has no database (db: "none")')),
    close: () => Promise.resolve(),
  };
}
