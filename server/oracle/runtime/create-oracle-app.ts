import type { Server as HttpServer } from 'node:http';
import cors from 'cors';
import express, { Router, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { oracleContract } from '../../../contracts/oracle.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { TxQueryClient } from '../../chain/tx-query-client.js';
import type { Logger } from '../../logger.js';
import type { TokenVerifier } from '../auth/token-verifier.js';
import { mountOracleRoutes, requireCaller, type OracleServices } from '../http/router.js';
import { oracleErrorHandler } from '../http/oracle-error.js';
import type { OracleIdentity } from '../identity.js';
import type { ChatModel } from '../models/model.js';
import type { ModelRegistry } from '../models/registry.js';
import { createTurnLimits } from '../limits/turn-limits.js';
import { createLocalControlBus, createRedisControlBus } from '../runs/control-bus.js';
import { createMemoryRunEventLog } from '../runs/memory-event-log.js';
import { createRedisRunEventLog } from '../runs/redis-event-log.js';
import { RunManager } from '../runs/run-manager.js';
import { createOracleSockets } from '../socket/socket-server.js';
import { DelegationStore } from '../store/delegations.js';
import { MessageStore } from '../store/messages.js';
import { RoomStore } from '../store/rooms.js';
import { RunStore } from '../store/runs.js';
import { SessionStore } from '../store/sessions.js';
import { resolvePlugins, type Features, type PluginDecision } from './features.js';
import { createFrontendBridge } from './frontend-bridge.js';
import type { OraclePlugin, PluginContext } from './plugin.js';
import { subAgentTool } from './sub-agents.js';
import { defineTool, type ServerTool } from './tools.js';
import { createTurnExecutor } from './turn-executor.js';

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

/** The state of one plugin, as `/health` reports it. */
export interface PluginStatus {
  name: string;
  state: 'ready' | 'degraded' | 'disabled';
  reason?: string;
}

/** Everything the agent runtime is made of. */
export interface OracleAppOptions {
  identity: OracleIdentity;
  /** Plugin switches: `true` forces a plugin on, `false` never loads it, absent takes its manifest default. */
  features: Features;
  plugins: OraclePlugin[];
  /** The models the oracle answers with. */
  model: ModelRegistry;
  verifier: TokenVerifier;
  config: Config;
  db: Db;
  redis: Redis | undefined;
  /** Namespace of every Redis key and channel (PartContext.redisPrefix; empty in production). */
  redisPrefix: string;
  logger: Logger;
  /** The environment plugins read their variables from (and `requiredEnv` is checked against). */
  env: Readonly<Record<string, string | undefined>>;
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
export function routePrefixes(paths: string[]): string[] {
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

  const decisions = resolvePlugins(options.plugins, options.features, options.env, logger);
  const enabled = decisions.filter((d) => d.enabled);
  const shared = new Map<string, unknown>();
  const pluginContext: PluginContext = {
    config,
    db: options.db,
    logger,
    identity,
    env: options.env,
    shared: <T>(name: string) => shared.get(name) as T | undefined,
    chainTx: options.chainTx,
  };
  const tornDown: OraclePlugin[] = [];
  const teardown = async (): Promise<void> => {
    for (const plugin of tornDown.splice(0).reverse()) {
      await plugin
        .teardown?.(pluginContext)
        .catch((err: unknown) =>
          logger.warn({ err, plugin: plugin.manifest.name }, 'oracle: plugin teardown failed'),
        );
    }
  };
  try {
    for (const { plugin } of enabled) {
      if (plugin.sharedState) shared.set(plugin.manifest.name, plugin.sharedState(pluginContext));
      await plugin.setup?.(pluginContext);
      tornDown.push(plugin);
    }
  } catch (err) {
    await teardown();
    throw err;
  }
  const toolsByPlugin = new Map(
    enabled.map(({ plugin }) => [
      plugin.manifest.name,
      typeof plugin.tools === 'function' ? plugin.tools(pluginContext) : (plugin.tools ?? []),
    ]),
  );
  const serverTools: ServerTool[] = [...toolsByPlugin.values()].flat();
  const capabilityTool = listCapabilitiesTool(enabled, toolsByPlugin);
  // One server-tool list per model (sub-agents run on the turn's model), built once: every turn shares it, and
  // the turn loop's per-tool model descriptions with it.
  const toolsOfModel = new Map<ChatModel, ServerTool[]>();
  const serverToolsFor = (model: ChatModel): ServerTool[] => {
    let tools = toolsOfModel.get(model);
    if (!tools) {
      tools = [
        ...serverTools,
        ...enabled.flatMap(({ plugin }) => (plugin.subAgents ?? []).map((a) => subAgentTool(a, model))),
        ...(capabilityTool ? [capabilityTool] : []),
      ];
      toolsOfModel.set(model, tools);
    }
    return tools;
  };
  const pluginMiddleware: RequestHandler[] = enabled.flatMap(({ plugin }) => plugin.middleware ?? []);
  logger.info(
    { plugins: decisions.map((d) => `${d.manifest.name}:${d.enabled ? 'on' : 'off'}`) },
    'oracle: plugins booted',
  );

  // Embedded PGlite: this process is the database's only user, so what it wrote can be remembered.
  const exclusive = options.db.kind === 'pglite';
  const sessions = new SessionStore(db, identity.did, { exclusive });
  const messages = new MessageStore(db, { exclusive });
  const runs = new RunStore(db, messages);
  const delegations = new DelegationStore(db, identity.did);
  const rooms = new RoomStore(db, identity.did);
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

  const manager = new RunManager({
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
      logger,
    }),
  });

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
    limits,
    manager,
    turnGuards: enabled.flatMap(({ plugin }) => plugin.turnGuards ?? []),
    price: () => {
      const charging = enabled.find(({ plugin }) => plugin.pricing);
      return charging?.plugin.pricing?.(pluginContext) ?? { amount: 0, denom: 'credits', per: 'turn' };
    },
    middleware: pluginMiddleware,
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
  router.use(prefixes, corsOptions, json);
  mountOracleRoutes(router, services);
  router.use(prefixes, oracleErrorHandler);

  const auth = requireCaller(options.verifier);
  const authenticated: RequestHandler = (req, res, next) => {
    auth(req, res, (err?: unknown) => {
      if (err) return next(err);
      runAll(pluginMiddleware, req, res, next);
    });
  };
  for (const { plugin } of enabled) {
    for (const module of plugin.httpModules ?? []) {
      const sub = Router();
      module.register(sub, { requireCaller: authenticated, ctx: pluginContext });
      router.use(module.paths, corsOptions, json);
      router.use(sub);
      router.use(module.paths, oracleErrorHandler);
    }
  }

  await manager.start();
  return {
    router,
    attach: (http) => sockets.attach(http),
    plugins: decisions,
    async health() {
      return Promise.all(
        decisions.map(async (d): Promise<PluginStatus> => {
          if (!d.enabled)
            return { name: d.manifest.name, state: 'disabled', ...(d.reason ? { reason: d.reason } : {}) };
          const h = await d.plugin.health?.(pluginContext).catch((err: unknown) => ({
            state: 'degraded' as const,
            reason: err instanceof Error ? err.message : 'health check failed',
          }));
          return {
            name: d.manifest.name,
            state: h?.state ?? 'ready',
            ...(h?.reason ? { reason: h.reason } : {}),
          };
        }),
      );
    },
    async close() {
      await manager.close();
      bridge.close();
      await sockets.close();
      await log.close();
      await bus.close();
      limits.close();
      await teardown();
    },
  };
}

/** Runs express middleware in order, then `done`. */
function runAll(
  handlers: RequestHandler[],
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  done: (err?: unknown) => void,
): void {
  const step = (i: number, err?: unknown): void => {
    if (err || i >= handlers.length) return done(err);
    try {
      handlers[i]?.(req, res, (e?: unknown) => step(i + 1, e));
    } catch (e) {
      done(e);
    }
  };
  step(0);
}

/** `list_capabilities`: what the oracle can do, including `on-demand` plugins (never `silent` ones). */
function listCapabilitiesTool(
  enabled: PluginDecision[],
  toolsByPlugin: Map<string, ServerTool[]>,
): ServerTool | undefined {
  const listed = enabled.filter((d) => d.manifest.visibility !== 'silent');
  if (listed.length === 0) return undefined;
  return defineTool({
    name: 'list_capabilities',
    description:
      'Lists what this oracle can do (its plugins and their tools). Use it when unsure whether a capability exists.',
    parameters: z.object({}).strict(),
    handler: () =>
      Promise.resolve(
        listed.map((d) => ({
          name: d.manifest.name,
          title: d.manifest.title,
          summary: d.manifest.summary,
          tools: [
            ...(toolsByPlugin.get(d.manifest.name) ?? []).map((t) => t.name),
            ...(d.plugin.subAgents ?? []).map((a) => a.name),
          ],
        })),
      ),
  });
}
