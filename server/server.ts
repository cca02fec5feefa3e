import { once } from 'node:events';
import { hostname } from 'node:os';
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
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { createApp } from './app.js';
import { createRequestListener } from './http/fast-path.js';
import { readBuildInfo, type BuildInfo } from './build-info.js';
import { CHAIN_PARTS } from './chain/config.js';
import { productionWarnings, type Config, type PartName } from './config.js';
import { migrateToLatest, openDb, pendingMigrations, type Db, type DbTarget } from './db/index.js';
import { dbTargetFromConfig, describeDbTarget } from './db/target.js';
import { drainHttp, trackConnections } from './http-drain.js';
import { shapeForExpress } from './http/request-shape.js';
import type { ServerLifecycle } from './lifecycle.js';
import { redisOutage } from './stores/outage-notice.js';
import { createLogger, type Logger } from './logger.js';
import { redactUrl } from './redact-url.js';
import type { Part, PartContext, PartFactory } from './part.js';
import { createChainPart } from './chain/part.js';
import { createOraclePart } from './oracle/part.js';
import { describeTrustProxy } from './trust-proxy.js';
import { createUssdPart } from './ussd/part.js';

const PART_FACTORIES: Record<PartName, PartFactory<Config>> = {
  ussd: createUssdPart,
  chain: createChainPart,
  oracle: createOraclePart,
};

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
  parts?: Partial<Record<PartName, PartFactory<Config>>>;
}

export interface RunningServer {
  url: string;
  port: number;
  /** This process's name in logs and metrics: INSTANCE_ID, or `<host name>:<port>`. */
  instanceId: string;
  build: BuildInfo;
  http: Server;
  /** The Express app being served (for in-process requests without a socket). */
  app: Express;
  ctx: PartContext<Config>;
  /** The enabled parts, in ENABLED_PARTS order. */
  parts: Part[];
  lifecycle: ServerLifecycle;
  /**
   * Graceful stop: answers `/health` 503 `draining` at once and serves everything else for
   * `config.PRESTOP_DELAY_MS`; then stops accepting connections, asks each part to end its long-lived streams,
   * lets in-flight requests finish for at most `config.DRAIN_TIMEOUT_MS` (then cuts what is left), and closes
   * what the server opened (parts, Redis, the database).
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
      await migrateOrCheck(config, target, opened, logger);
      db = opened;
    }

    let redis = overrides.redis;
    if (!redis && config.REDIS_URL) {
      const opened = openRedis(config.REDIS_URL);
      cleanups.push(async () => void (await opened.quit().catch(() => opened.disconnect())));
      // Its outages are logged once each, when they start and when they end (not per failed command).
      const outage = redisOutage(opened, logger);
      opened.on('error', (err: unknown) => outage.failed(err));
      opened.on('ready', () => outage.recovered());
      if (!(await waitForRedis(opened, 3000))) outage.failed(new Error('no answer within 3 s of start'));
      redis = opened;
    }

    // The port is bound before the parts are built, so the embedded chain node advertises the port the server
    // really listens on (port 0 picks one). A request that comes before the app is ready waits for it.
    const ready: { app?: RequestListener } = {};
    const waiting: [IncomingMessage, ServerResponse][] = [];
    const http = createServer((req, res) => {
      shapeForExpress(req, res);
      if (ready.app) ready.app(req, res);
      else waiting.push([req, res]);
    });
    const connections = trackConnections(http);
    http.listen(overrides.port ?? config.PORT, config.HOST);
    await once(http, 'listening');
    closeHttp = () =>
      drainHttp(
        http,
        connections,
        parts,
        lifecycle,
        { delayMs: config.PRESTOP_DELAY_MS, timeoutMs: config.DRAIN_TIMEOUT_MS },
        logger,
      );
    const { port } = http.address() as AddressInfo;
    const instanceId = config.INSTANCE_ID ?? `${hostname()}:${port}`;
    const build = readBuildInfo(config.BUILD_COMMIT);

    // One chain node for every part that needs one: CHAIN_GRPC_URL, or the embedded fixture node.
    let chainGrpcUrl = config.CHAIN_GRPC_URL;
    if (chainGrpcUrl === undefined && config.ENABLED_PARTS.some((p) => CHAIN_PARTS.includes(p))) {
      // Loaded only here: a deployment on a real chain node never holds the fixture data and its handlers.
      const { startFixtureNode } = await import('./chain/fixture-node/fixture-node.js');
      const node = await startFixtureNode({
        publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
      });
      cleanups.push(() => node.close());
      chainGrpcUrl = node.address;
      logger.info(
        { address: node.address },
        'embedded fixture chain node started (CHAIN_GRPC_URL unset or fixture): fixture data',
      );
    }

    const metrics = new Registry();
    // Every series says which instance it comes from (`instance_id`: Prometheus sets `instance` to the target).
    metrics.setDefaultLabels({ instance_id: instanceId });
    collectDefaultMetrics({ register: metrics });
    new Gauge({
      name: 'gateway_build_info',
      help: 'The running build: always 1, its labels say the version, commit and Node.js version',
      labelNames: ['version', 'commit', 'node_version'],
      registers: [metrics],
    }).set({ version: build.version, commit: build.commit, node_version: process.version }, 1);
    const ctx: PartContext<Config> = {
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
    ready.app = createRequestListener(app, {
      logger,
      handlers: parts.flatMap((p) => (p.direct ? [p.direct] : [])),
      lifecycle,
    });
    for (const part of parts) part.attach?.(http);
    // Through the server's listeners, as attached parts (socket.io) wrap them; each in a callback of its own,
    // so the request context it enters (request-context.ts) does not stick to the rest of this start-up.
    for (const [req, res] of waiting.splice(0)) setImmediate(() => http.emit('request', req, res));
    const listen = `${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
    logger.info(
      {
        version: build.version,
        commit: build.commit,
        instance: instanceId,
        pid: process.pid,
        host: hostname(),
        listen,
        env: config.NODE_ENV,
        node: process.version,
        parts: config.ENABLED_PARTS,
        database:
          overrides.db === undefined ? describeDbTarget(dbTargetFromConfig(config)) : `${db.kind} (given)`,
        redis:
          redis === undefined ? 'in-process' : config.REDIS_URL ? redactUrl(config.REDIS_URL) : '(given)',
        ...partModes(config, chainGrpcUrl),
        trustProxy: describeTrustProxy(config.TRUST_PROXY_ENABLED),
        operatorToken: config.OPERATOR_TOKEN ? 'set' : 'unset (operator routes: loopback only)',
        migrateOnStart: config.MIGRATE_ON_START,
        prestopDelayMs: config.PRESTOP_DELAY_MS,
        drainTimeoutMs: config.DRAIN_TIMEOUT_MS,
      },
      `started ${build.name} ${build.version} (${build.commit}) as ${instanceId}, pid ${process.pid}, on ${listen} (${config.NODE_ENV})`,
    );
    const warnings = productionWarnings(config);
    if (warnings.length) {
      logger.warn({ warnings }, `production runs with development settings: ${warnings.join('; ')}`);
    }
    let closing: Promise<void> | undefined;
    const host = ['0.0.0.0', '::'].includes(config.HOST)
      ? '127.0.0.1'
      : config.HOST.includes(':')
        ? `[${config.HOST}]`
        : config.HOST;
    return {
      url: `http://${host}:${port}`,
      port,
      instanceId,
      build,
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

/** The parts' modes for the start-up line: the chain node, the model, the USSD rate limit. */
function partModes(config: Config, chainGrpcUrl: string | undefined): Record<string, string> {
  const modes: Record<string, string> = {};
  if (config.ENABLED_PARTS.some((p) => CHAIN_PARTS.includes(p))) {
    modes['chain'] =
      config.CHAIN_GRPC_URL === undefined
        ? `embedded fixture node (${chainGrpcUrl ?? '?'})`
        : `${config.CHAIN_GRPC_URL}${config.CHAIN_GRPC_TLS ? ' (TLS)' : ''}`;
  }
  if (config.ENABLED_PARTS.includes('oracle')) {
    modes['model'] = config.OPENAI_MODEL
      ? `${config.OPENAI_MODEL} at ${redactUrl(config.OPENAI_BASE_URL ?? '')}`
      : 'scripted';
    modes['cors'] = config.ORACLE_CORS_ORIGINS.join(',');
  }
  if (config.ENABLED_PARTS.includes('ussd')) {
    modes['rateLimit'] =
      config.USSD_RATE_LIMIT_PER_MINUTE === 0
        ? 'off'
        : `${config.USSD_RATE_LIMIT_PER_MINUTE}/min per ${config.USSD_RATE_LIMIT_KEY}${config.USSD_RATE_LIMIT_ALLOWLIST.length ? ` (${config.USSD_RATE_LIMIT_ALLOWLIST.length} allowlisted)` : ''}`;
  }
  return modes;
}

/**
 * Runs the pending migrations (MIGRATE_ON_START) and logs what it applied, or, with MIGRATE_ON_START off,
 * refuses to start while any is pending. On PostgreSQL the migrations run on a connection of their own
 * without the statement timeout (a migration may rewrite a large table, or wait for another instance's
 * migration lock); PGlite has a single connection, the one given.
 */
async function migrateOrCheck(config: Config, target: DbTarget, db: Db, logger: Logger): Promise<void> {
  const where = describeDbTarget(target);
  if (!config.MIGRATE_ON_START) {
    const pending = await pendingMigrations(db);
    if (pending.length > 0) {
      throw new Error(
        `${pending.length} migration(s) pending on ${where} (${pending.join(', ')}) and MIGRATE_ON_START is off: run \`npm run db:migrate\` first`,
      );
    }
    logger.info({ database: where }, 'migrations: none pending (MIGRATE_ON_START off)');
    return;
  }
  const started = Date.now();
  let migrationDb = db;
  if (target.kind === 'postgres') {
    migrationDb = await openDb({
      ...target,
      poolSize: 1,
      bounds: { ...target.bounds, statementTimeoutMs: 0 },
    });
  }
  try {
    const { results = [] } = await migrateToLatest(migrationDb);
    const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
    logger.info(
      { database: where, applied, ms: Date.now() - started },
      applied.length
        ? `migrations: applied ${applied.length} (${applied.join(', ')})`
        : 'migrations: none pending',
    );
  } finally {
    if (migrationDb !== db) await migrationDb.close();
  }
}
