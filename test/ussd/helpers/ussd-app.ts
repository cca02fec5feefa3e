import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import supertest from 'supertest';
import { createApp } from '../../../server/app.js';
import { loadConfig } from '../../../server/config.js';
import type { Db } from '../../../server/db/index.js';
import { createLogger, type Logger } from '../../../server/logger.js';
import type { Part, PartContext } from '../../../server/part.js';
import type { AccountService } from '../../../server/ussd/accounts.js';
import type { UssdEngine } from '../../../server/ussd/engine-types.js';
import { buildUssdPart } from '../../../server/ussd/part.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';

/** The Redis every Redis-backed USSD test uses: REDIS_URL in CI, the machine's local server otherwise. */
export const TEST_REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

/** A Redis client for tests, ready (connected) before it is returned. */
export async function openTestRedis(): Promise<Redis> {
  const redis = new Redis(TEST_REDIS_URL, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableAutoPipelining: true, // as openRedis in server/server.ts
    lazyConnect: true,
  });
  await redis.connect();
  return redis;
}

/** Deletes every key under a prefix (a test file's own namespace). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
}

export interface UssdTestAppOptions {
  /** Environment of this app; NODE_ENV=test and LOG_LEVEL=silent unless given. */
  env?: Record<string, string>;
  /** The engine: the real menu engine unless a test double is given (see scripted-test-engine.ts). */
  engine?: UssdEngine | ((accounts: AccountService) => UssdEngine);
  /** Sessions and rate limits in this Redis (under `redisPrefix`); in-process when absent. */
  redis?: Redis;
  redisPrefix?: string;
  /**
   * Share one database between apps; otherwise the app opens (and closes) its own. `'none'` for tests of
   * the gateway alone with the engine double, which never reach a database (saves a PGlite start-up).
   */
  db?: TestDb | 'none';
  logger?: Logger;
}

export interface UssdTestApp extends AsyncDisposable {
  app: Express;
  url: string;
  request: supertest.Agent;
  ctx: PartContext;
  part: Part;
  accounts: AccountService;
  engine: UssdEngine;
  close(): Promise<void>;
}

/**
 * The real app (server/app.ts) with the USSD part built by server/ussd/part.ts, with the test's Redis key
 * prefix (and optionally a test engine), so test files sharing one Redis do not
 * share sessions or rate-limit counters. Listens on a loopback port. (test/helpers/app.ts starts the whole
 * server the way main.ts does; use it where no prefix or test engine is needed.)
 */
export async function startUssdTestApp(options: UssdTestAppOptions): Promise<UssdTestApp> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...options.env });
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const ownDb = options.db === undefined;
  const db = options.db === 'none' ? noDatabase() : (options.db ?? (await openTestDb()));
  const ctx: PartContext = { config, db, logger, redis: options.redis, metrics: new Registry() };
  const given = options.engine;
  const part = buildUssdPart(ctx, {
    ...(given === undefined ? {} : { engine: typeof given === 'function' ? given : () => given }),
    ...(options.redisPrefix === undefined ? {} : { redisPrefix: options.redisPrefix }),
  });
  const { accounts, engine } = part;
  const app = createApp({ ctx, parts: [part] });
  const http: Server = app.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const close = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
    await part.close();
    if (ownDb) await db.close();
  };
  return {
    app,
    url,
    request: supertest.agent(url),
    ctx,
    part,
    accounts,
    engine,
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
    ping: () => Promise.reject(new Error('this test app has no database (db: "none")')),
    close: () => Promise.resolve(),
  };
}

/** A valid A1 body with a fresh session id; override any field. */
export function ussdBody(
  overrides: Partial<Record<'sessionId' | 'serviceCode' | 'phoneNumber' | 'text', string>> = {},
) {
  return {
    sessionId: `test-${Math.random().toString(36).slice(2, 12)}`,
    serviceCode: '*384*123#',
    phoneNumber: '+254712345678',
    text: '',
    ...overrides,
  };
}
