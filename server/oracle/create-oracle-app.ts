import type { Server as HttpServer } from 'node:http';
import cors from 'cors';
import express, { Router, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { oracleContract } from '../../contracts/oracle.js';
import { oracleConfigSections } from './config-sections.js';
import type { Db } from '../db/index.js';
import type { TxQueryClient } from '../chain-node/tx-query-client.js';
import type { Logger } from '../logger.js';
import type { TokenVerifier } from './auth/token-verifier.js';
import { authenticatedCaller } from './http/authenticated.js';
import { mountOracleRoutes, type OracleServices } from './http/router.js';
import { refuseUnsafeInput } from './http/safe-input.js';
import { oracleErrorHandler } from './http/oracle-error.js';
import type { OracleIdentity } from './identity.js';
import type { ModelRegistry } from './models/registry.js';
import { createTurnLimits } from './limits/turn-limits.js';
import { Admission, sampleLoopDelay } from './limits/admission.js';
import { createLocalControlBus, createRedisControlBus } from './runs/control-bus.js';
import { createMemoryRunEventLog } from './runs/memory-event-log.js';
import { createRedisRunEventLog } from './runs/redis-event-log.js';
import { RunManager } from './runs/run-manager.js';
import { createOracleSockets } from './socket/socket-server.js';
import { DelegationStore } from './store/delegations.js';
import { MessageStore } from './store/messages.js';
import { RoomStore } from './store/rooms.js';
import { RunStore } from './store/runs.js';
import { SessionStore } from './store/sessions.js';
import type { Features, PluginDecision } from './runtime/features.js';
import { createFrontendBridge } from './socket/frontend-bridge.js';
import type { OraclePlugin } from './runtime/plugin.js';
import { bootPlugins, type PluginStatus } from './runtime/plugin-host.js';
import { createTurnExecutor } from './runtime/turn-executor.js';
import { createApprovalGate, createTurnApprovals } from './runtime/approval-gate.js';
import { ApprovalStore } from './store/approvals.js';
import type { OracleServiceConfig } from './config.js';

export type { PluginStatus } from './runtime/plugin-host.js';

/** Longest a run's events are kept while it is in flight (a run whose instance vanished is dropped after it). */
const MAX_RUN_AGE_SECONDS = 6 * 3600;
/** Headers browsers may send to the oracle routes. */
const CORS_HEADERS = [
  'Accept',
  'Content-Type',
  'Authorization',
  'X-Auth-Type',
  'x-ucan-delegation',
  'Last-Event-ID',
  'x-request-id',
  'x-timezone',
];

/** Everything the agent runtime is made of. */
export interface OracleAppOptions {
  identity: OracleIdentity;
  /** Plugin switches: `true` forces a plugin on, `false` never loads it, absent takes its manifest default. */
  features: Features;
  plugins: OraclePlugin[];
  /** The models the oracle answers with. */
  model: ModelRegistry;
  verifier: TokenVerifier;
  config: OracleServiceConfig;
  db: Db;
  redis: Redis | undefined;
  /** Namespace of every Redis key and channel (PartContext.redisPrefix; empty in production). */
  redisPrefix: string;
  logger: Logger;
  /** The chain node's tx service, for plugins (the credits plugin verifies payments with it). */
  chainTx?: TxQueryClient | undefined;
}

/** The agent runtime, ready to mount into the service. */
export interface OracleApp {
  router: Router;
  /** Attaches socket.io to the HTTP server once it listens. */
  attach(http: HttpServer): void;
  plugins: PluginDecision[];
  health(): Promise<PluginStatus[]>;
  close(): Promise<void>;
}

/** First path segments of routes: CORS and the JSON body parser apply to these only. */
function routePrefixes(paths: string[]): string[] {
  return [...new Set(paths.map((p) => `/${p.split('/')[1] ?? ''}`))];
}

/**
 * Builds the agent runtime: boots the plugins (checked, dependency-ordered, switched by `features`), then the
 * service they extend: capability auth, sessions, history, turns executed in durable runs (each turn: load the
 * thread, let plugins fill the runtime state, compile the prompt from their sections, run the model with
 * their tools, sub-agents and the request's browser tools and actions), the socket channel and the routes of
 * the plugins' HTTP modules.
 */
export async function createOracleApp(options: OracleAppOptions): Promise<OracleApp> {
  const { identity, config, logger, redis } = options;
  const models = options.model;
  const db = options.db.kysely;

  const plugins = await bootPlugins({
    plugins: options.plugins,
    features: options.features,
    config,
    composedSections: oracleConfigSections,
    db: options.db,
    logger,
    identity,
    chainTx: options.chainTx,
  });
  const { decisions, enabled, pluginContext, serverToolsFor } = plugins;
  const authenticated = authenticatedCaller(options.verifier, plugins.middleware);

  // Embedded PGlite: this process is the database's only user, so what it wrote can be remembered.
  const exclusive = options.db.kind === 'pglite';
  const sessions = new SessionStore(options.db, identity.did, {
    exclusive,
    maxPerUser: config.ORACLE_MAX_SESSIONS_PER_USER,
  });
  const messages = new MessageStore(db, { exclusive });
  const runs = new RunStore(options.db, messages);
  const delegations = new DelegationStore(db, identity.did);
  const rooms = new RoomStore(db, identity.did, {
    owned: config.ORACLE_MAX_ROOMS_OWNED,
    joined: config.ORACLE_MAX_ROOMS_JOINED,
    members: config.ORACLE_MAX_ROOM_MEMBERS,
  });
  const prefix = `${options.redisPrefix}oracle:`;
  const limits = await createTurnLimits({ config, redis, redisPrefix: `${prefix}limits:`, logger });
  const log = redis
    ? createRedisRunEventLog({ redis, prefix, maxAgeSeconds: MAX_RUN_AGE_SECONDS, logger })
    : createMemoryRunEventLog({ maxAgeSeconds: MAX_RUN_AGE_SECONDS });
  const bus = redis ? createRedisControlBus(redis, prefix) : createLocalControlBus();
  const sockets = createOracleSockets({
    verifier: options.verifier,
    sessions,
    rooms,
    bridge: () => bridge,
    corsOrigins: config.ORACLE_CORS_ORIGINS,
    redis,
    redisKey: `${options.redisPrefix}socket.io`,
    logger,
  });
  const bridge = createFrontendBridge(bus, (call) => sockets.sendFrontendCall(call));
  const approvalStore = new ApprovalStore(db);
  const approvals = createTurnApprovals({
    gate: createApprovalGate({
      store: approvalStore,
      bus,
      logger,
      timeoutMs: config.ORACLE_APPROVAL_TIMEOUT_S * 1000,
    }),
    required: config.ORACLE_TOOLS_NEED_APPROVAL,
    known: models.list().flatMap((m) => {
      const model = models.get(m.id);
      return model ? serverToolsFor(model).map((t) => t.name) : [];
    }),
  });

  const manager = new RunManager({
    approvalsOf: (runId) => approvalStore.ofRun(runId),
    runs,
    messages,
    sessions,
    log,
    bus,
    logger,
    leaseMs: config.ORACLE_RUN_LEASE_SECONDS * 1000,
    retentionSeconds: config.ORACLE_RUN_RETENTION_SECONDS,
    exclusiveDatabase: options.db.kind === 'pglite',
    onRunEnded: (row) =>
      void limits.freeRun(row.user_did, { sessionId: row.session_id, requestId: row.request_id }),
    onRunResumed: (row) =>
      void limits.holdRun(row.user_did, { sessionId: row.session_id, requestId: row.request_id }),
    execute: createTurnExecutor({
      sessions,
      messages,
      models,
      identity,
      plugins: enabled,
      pluginContext,
      serverToolsFor,
      bridge,
      sockets,
      toolTimeoutMs: config.ORACLE_TOOL_TIMEOUT_MS,
      approvals,
      logger,
    }),
  });

  const loopDelay = sampleLoopDelay();
  const admission = new Admission(
    { pool: () => options.db.load(), unstoredEvents: () => log.unstored(), loopDelayMs: loopDelay.delayMs },
    {
      maxDbWaiting: config.ORACLE_ADMIT_MAX_DB_WAITING,
      maxDbWaitMs: config.ORACLE_ADMIT_MAX_DB_WAIT_MS,
      maxUnstoredEvents: config.ORACLE_ADMIT_MAX_UNSTORED_EVENTS,
      maxLoopDelayMs: config.ORACLE_ADMIT_MAX_LOOP_DELAY_MS,
      retryAfterSeconds: config.ORACLE_RETRY_AFTER_S,
    },
  );

  const services: OracleServices = {
    config,
    identity,
    verifier: options.verifier,
    models,
    sessions,
    messages,
    runs,
    delegations,
    rooms,
    sockets,
    limits,
    admission,
    manager,
    turnGuards: plugins.turnGuards,
    price: () => plugins.price(),
    authenticated,
    approvals: approvals.gate,
  };

  const corsOptions = cors({
    origin: config.ORACLE_CORS_ORIGINS.includes('*') ? '*' : config.ORACLE_CORS_ORIGINS,
    allowedHeaders: CORS_HEADERS,
    exposedHeaders: ['X-Request-Id', 'X-Run-Id'],
    maxAge: 600,
  });
  const json = express.json({ limit: config.ORACLE_BODY_MAX_BYTES });
  const router = Router();
  const prefixes = routePrefixes(Object.values(oracleContract).map((r) => r.path));
  const retryAfter: RequestHandler = (_req, res, next) => {
    res.locals.retryAfterSeconds = config.ORACLE_RETRY_AFTER_S;
    next();
  };
  router.use(prefixes, retryAfter, corsOptions, json, refuseUnsafeInput);
  mountOracleRoutes(router, services);
  router.use(prefixes, oracleErrorHandler);

  for (const { plugin } of enabled) {
    for (const module of plugin.httpModules ?? []) {
      const sub = Router();
      module.register(sub, { requireCaller: authenticated, ctx: pluginContext });
      router.use(module.paths, retryAfter, corsOptions, json, refuseUnsafeInput);
      router.use(sub);
      router.use(module.paths, oracleErrorHandler);
    }
  }

  await manager.start();
  return {
    router,
    attach: (http) => sockets.attach(http),
    plugins: decisions,
    health: () => plugins.health(),
    async close() {
      await manager.close();
      bridge.close();
      approvals.gate.close();
      await sockets.close();
      await log.close();
      await bus.close();
      limits.close();
      loopDelay.close();
      await plugins.teardown();
    },
  };
}
