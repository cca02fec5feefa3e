import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Express } from 'express';
import { Redis } from 'ioredis';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { createApp } from './app.js';
import type { Config, PartName } from './config.js';
import { migrateToLatest, openDb, type Db, type DbTarget } from './db/index.js';
import { dbTargetFromConfig } from './db/target.js';
import { createLogger, type Logger } from './logger.js';
import type { Part, PartContext, PartFactory } from './part.js';
import { createChainPart } from './chain/part.js';
import { startFixtureNode } from './chain/fixture-node/fixture-node.js';
import { createOraclePart } from './oracle/part.js';
import { createUssdPart } from './ussd/part.js';

const PART_FACTORIES: Record<PartName, PartFactory> = {
  ussd: createUssdPart,
  chain: createChainPart,
  oracle: createOraclePart,
};

/** Parts that talk to a chain node (the gateway; the oracle resolves did:ixo users through it). */
const CHAIN_PARTS: readonly PartName[] = ['chain', 'oracle'];

/** What a caller (a test, a tool) may hand in instead of having it opened or built from the configuration. */
export interface ServerOverrides {
  /** A database to use, already migrated (the server migrates only a database it opens itself). */
  db?: Db;
  redis?: Redis;
  logger?: Logger;
  /** Listen on this port instead of config.PORT (tests use 0). */
  port?: number;
  /** Namespace of every Redis key (see {@link PartContext.redisPrefix}); default none. */
  redisPrefix?: string;
  /** Builds an enabled part another way, e.g. the USSD part over a scripted engine. */
  parts?: Partial<Record<PartName, PartFactory>>;
}

/** The state of a running server that its routes read (`/health` answers 503 `draining` while it drains). */
export interface ServerLifecycle {
  draining: boolean;
}

export interface RunningServer {
  url: string;
  port: number;
  http: Server;
  /** The Express app being served (for in-process requests without a socket). */
  app: Express;
  ctx: PartContext;
  /** The enabled parts, in ENABLED_PARTS order. */
  parts: Part[];
  lifecycle: ServerLifecycle;
  /**
   * Graceful stop: stops accepting connections, answers `/health` 503 `draining`, asks each part to end its
   * long-lived streams, lets in-flight requests finish for at most `config.DRAIN_TIMEOUT_MS` (then cuts what
   * is left), and closes what the server opened (parts, Redis, the database).
   */
  close(): Promise<void>;
}

/**
 * Opens Redis with fail-fast settings: while Redis is down a command fails at once (no offline queue) and
 * the client keeps reconnecting in the background, so the service recovers by itself.
 */
export function openRedis(url: string): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    // Reconnect attempts at most 200 ms apart: service returns within a fraction of a second of Redis.
    retryStrategy: (times) => Math.min(times * 50, 200),
    // Commands issued in the same tick (session get, rate-limit increment of concurrent requests) share one write.
    enableAutoPipelining: true,
  });
  // Failures surface through the commands that fail; without a listener ioredis would log every retry.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves true once the client is ready, false after `timeoutMs` (Redis down: start degraded). */
export async function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}

/**
 * Opens connections, runs migrations, builds every enabled part and listens. What this function opened,
 * `close()` closes (in reverse order); what the caller handed in via overrides stays open.
 */
export async function startServer(config: Config, overrides: ServerOverrides = {}): Promise<RunningServer> {
  const logger = overrides.logger ?? createLogger(config.LOG_LEVEL);
  const cleanups: (() => Promise<void>)[] = [];
  const lifecycle: ServerLifecycle = { draining: false };
  const parts: Part[] = [];
  // The listening socket drains first (no new request reaches a closing part), then the rest in reverse order.
  let closeHttp: (() => Promise<void>) | undefined;
  const closeAll = async (): Promise<void> => {
    const first = closeHttp;
    closeHttp = undefined;
    await first?.().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
    for (const fn of cleanups.splice(0).reverse()) {
      await fn().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
    }
  };
  try {
    let db = overrides.db;
    if (db === undefined) {
      const target = dbTargetFromConfig(config);
      const opened = await openDb(target);
      cleanups.push(() => opened.close());
      await migrateMayTakeLong(target, opened);
      db = opened;
    }

    let redis = overrides.redis;
    if (!redis && config.REDIS_URL) {
      const opened = openRedis(config.REDIS_URL);
      cleanups.push(async () => void (await opened.quit().catch(() => opened.disconnect())));
      if (!(await waitForRedis(opened, 3000))) {
        logger.warn('Redis does not answer yet: sessions and rate limits fail until it does (reconnecting)');
      }
      redis = opened;
    }

    // The port is bound before the parts are built, so the embedded chain node advertises the port the server
    // really listens on (port 0 picks one). A request that comes before the app is ready waits for it.
    const ready: { app?: RequestListener } = {};
    const waiting: [IncomingMessage, ServerResponse][] = [];
    const http = createServer((req, res) => {
      if (ready.app) ready.app(req, res);
      else waiting.push([req, res]);
    });
    http.listen(overrides.port ?? config.PORT, '0.0.0.0');
    await once(http, 'listening');
    closeHttp = () => drain(http, parts, lifecycle, config.DRAIN_TIMEOUT_MS, logger);
    const { port } = http.address() as AddressInfo;

    // One chain node for every part that needs one: CHAIN_GRPC_URL, or the embedded fixture node.
    let chainGrpcUrl = config.CHAIN_GRPC_URL;
    if (chainGrpcUrl === undefined && config.ENABLED_PARTS.some((p) => CHAIN_PARTS.includes(p))) {
      const node = await startFixtureNode({
        publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
      });
      cleanups.push(() => node.close());
      chainGrpcUrl = node.address;
      logger.info({ address: node.address }, 'embedded fixture chain node started (CHAIN_GRPC_URL unset)');
    }

    const metrics = new Registry();
    collectDefaultMetrics({ register: metrics });
    const ctx: PartContext = {
      config,
      db,
      logger,
      redis,
      redisPrefix: overrides.redisPrefix ?? '',
      metrics,
      chainGrpcUrl,
    };

    for (const name of config.ENABLED_PARTS) {
      const part = await (overrides.parts?.[name] ?? PART_FACTORIES[name])(ctx);
      cleanups.push(() => part.close());
      parts.push(part);
    }

    const app = createApp({ ctx, parts, lifecycle });
    ready.app = app;
    for (const part of parts) part.attach?.(http);
    // Through the server's listeners, as attached parts (socket.io) wrap them.
    for (const [req, res] of waiting.splice(0)) http.emit('request', req, res);
    logger.info(
      { port, parts: config.ENABLED_PARTS, database: db.kind, redis: Boolean(redis) },
      'server listening',
    );
    let closing: Promise<void> | undefined;
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      http,
      app,
      ctx,
      parts,
      lifecycle,
      close: () => (closing ??= closeAll()),
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/**
 * Runs the migrations. On PostgreSQL they run on a connection of their own without the statement timeout (a
 * migration may rewrite a large table, or wait for another instance's migration lock); PGlite has a single
 * connection, the one given.
 */
async function migrateMayTakeLong(target: DbTarget, db: Db): Promise<void> {
  if (target.kind !== 'postgres') {
    await migrateToLatest(db);
    return;
  }
  const migrationDb = await openDb({
    ...target,
    poolSize: 1,
    bounds: { ...target.bounds, statementTimeoutMs: 0 },
  });
  try {
    await migrateToLatest(migrationDb);
  } finally {
    await migrationDb.close();
  }
}

/**
 * Graceful drain of the HTTP server: no new connections (`close()`), `Connection: close` on every answer
 * still given (app.ts), the parts' long-lived streams ended, then a wait for the requests in flight, at most
 * `timeoutMs`, after which the connections left are cut.
 */
async function drain(
  http: Server,
  parts: Part[],
  lifecycle: ServerLifecycle,
  timeoutMs: number,
  logger: Logger,
): Promise<void> {
  lifecycle.draining = true;
  const started = Date.now();
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  // Keep-alive connections with no request in flight are closed now, and each one whose answer (begun
  // before the drain, so without `Connection: close`) has since been sent, at the next sweep.
  http.closeIdleConnections();
  const sweep = setInterval(() => http.closeIdleConnections(), 50);
  await Promise.all(
    parts.map((p) =>
      (p.drain?.() ?? Promise.resolve()).catch((err: unknown) =>
        logger.warn({ err, part: p.name }, 'drain: a part did not drain cleanly'),
      ),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), Math.max(0, timeoutMs - (Date.now() - started)));
  });
  const timedOut = await Promise.race([closed.then(() => false), expired]);
  clearTimeout(timer);
  clearInterval(sweep);
  if (timedOut) {
    logger.warn({ timeoutMs }, 'drain: requests still in flight at the drain timeout; cutting them');
    http.closeAllConnections();
    await closed;
  } else {
    logger.info({ ms: Date.now() - started }, 'drain: every request finished');
  }
}
