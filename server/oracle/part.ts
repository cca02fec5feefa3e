import { readFile } from 'node:fs/promises';
import cors from 'cors';
import express, { Router } from 'express';
import { parse as parseYaml } from 'yaml';
import { oracleContract } from '../../contracts/oracle.js';
import { createChainGrpcClient } from '../chain/grpc-client.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { PartFactory } from '../part.js';
import { createIxoDidKeyResolver } from './auth/did-key-resolver.js';
import { createTokenVerifier } from './auth/token-verifier.js';
import { mountOracleRoutes, type OracleServices } from './http/router.js';
import { oracleErrorHandler } from './http/oracle-error.js';
import { loadOracleIdentity } from './identity.js';
import { createOpenAiModel } from './models/openai-model.js';
import { createModelRegistry } from './models/registry.js';
import { createScriptedModel } from './models/scripted-model.js';
import { ScriptedRulesFile, type ScriptedRule } from './models/scripted-rules.js';
import { createLocalControlBus, createRedisControlBus } from './runs/control-bus.js';
import { createMemoryRunEventLog } from './runs/memory-event-log.js';
import { createRedisRunEventLog } from './runs/redis-event-log.js';
import { RunManager } from './runs/run-manager.js';
import { createFrontendBridge } from './runtime/frontend-bridge.js';
import { compileSystemPrompt } from './runtime/prompt.js';
import { runTurn } from './runtime/turn-loop.js';
import { createOracleSockets } from './socket/socket-server.js';
import { DelegationStore } from './store/delegations.js';
import { MessageStore } from './store/messages.js';
import { RunStore } from './store/runs.js';
import { SessionStore } from './store/sessions.js';

/** Longest a run's events are kept while it is in flight (a run whose instance vanished is dropped after it). */
const MAX_RUN_AGE_SECONDS = 6 * 3600;

/** First path segments of the oracle routes: CORS and the JSON body parser apply to these only. */
export function routePrefixes(paths: string[]): string[] {
  return [...new Set(paths.map((p) => `/${p.split('/')[1] ?? ''}`))];
}

/**
 * The agent ("oracle") service (spec part C's server): capability auth, chat sessions, paged history, turns
 * executed in durable runs and streamed as server-sent events, the socket.io channel, and the models.
 */
export const createOraclePart: PartFactory = async (ctx) => {
  const { config, logger, redis } = ctx;
  const db = ctx.db.kysely;
  const identity = await loadOracleIdentity(config, logger);

  // did:ixo issuers are resolved through the chain's IID query; without a chain node only did:key works.
  const chainUrl = ctx.chainGrpcUrl ?? config.CHAIN_GRPC_URL;
  const chain = chainUrl ? createChainGrpcClient({ url: chainUrl, tls: config.CHAIN_GRPC_TLS }) : undefined;
  const verifier = createTokenVerifier({
    identity,
    resolveDidKey: chain
      ? createIxoDidKeyResolver(chain, { timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS })
      : () => Promise.resolve([]),
  });

  const sessions = new SessionStore(db, identity.did);
  const messages = new MessageStore(db);
  const runs = new RunStore(db);
  const delegations = new DelegationStore(db, identity.did);
  const prefix = 'oracle:';
  const log = redis
    ? createRedisRunEventLog({ redis, prefix, maxAgeSeconds: MAX_RUN_AGE_SECONDS, logger })
    : createMemoryRunEventLog({ maxAgeSeconds: MAX_RUN_AGE_SECONDS });
  const bus = redis ? createRedisControlBus(redis, prefix) : createLocalControlBus();

  const models = createModelRegistry({
    scripted: createScriptedModel({
      delayMs: config.SCRIPTED_MODEL_DELAY_MS,
      rules: await loadRules(config, logger),
    }),
    openai:
      config.OPENAI_BASE_URL && config.OPENAI_MODEL
        ? createOpenAiModel({
            baseUrl: config.OPENAI_BASE_URL,
            apiKey: config.OPENAI_API_KEY,
            model: config.OPENAI_MODEL,
          })
        : undefined,
  });

  const sockets = createOracleSockets({
    verifier,
    sessions,
    bridge: () => bridge,
    corsOrigins: config.ORACLE_CORS_ORIGINS,
    redis,
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
    exclusiveDatabase: ctx.db.kind === 'pglite',
    execute: async ({ row, request, continueFrom, emit, signal }) => {
      const session = await sessions.get(row.user_did, row.session_id);
      const history = await messages.recent(row.session_id, 51);
      const model = models.get(request.model ?? models.default) ?? models.get(models.default);
      if (!model) throw new Error('no model');
      return runTurn(
        {
          sessionId: row.session_id,
          userDid: row.user_did,
          runId: row.run_id,
          requestId: row.request_id,
          roomId: session?.room_id ?? `${row.user_did}|${identity.did}`,
          request,
          history,
          systemPrompt: compileSystemPrompt({
            agentName: identity.name,
            now: new Date(),
            timezone: request.timezone,
            sections: [],
          }),
          state: {},
          continueFrom,
        },
        {
          model,
          serverTools: [],
          bridge,
          toolTimeoutMs: config.ORACLE_TOOL_TIMEOUT_MS,
          logger,
          signal,
          emit: (event, data) => {
            emit(event, data);
            // The socket carries tool calls and components too, as the SDK expects (spec §6).
            if (event === 'tool_call' || event === 'render_component') {
              sockets.emitToSession(row.session_id, event, data as never);
            }
          },
        },
      );
    },
  });

  const services: OracleServices = {
    config,
    identity,
    verifier,
    models,
    sessions,
    messages,
    runs,
    delegations,
    manager,
    turnGuards: [],
    price: () => ({ amount: 0, denom: 'credits', per: 'turn' }),
  };

  const prefixes = routePrefixes(Object.values(oracleContract).map((r) => r.path));
  const router = Router();
  router.use(
    prefixes,
    cors({
      origin: config.ORACLE_CORS_ORIGINS.includes('*') ? '*' : config.ORACLE_CORS_ORIGINS,
      allowedHeaders: [
        'Content-Type',
        'Authorization',
        'X-Auth-Type',
        'x-ucan-delegation',
        'Last-Event-ID',
        'x-request-id',
        'x-timezone',
      ],
      exposedHeaders: ['X-Request-Id', 'X-Run-Id'],
      maxAge: 600,
    }),
    express.json({ limit: '2mb' }),
  );
  mountOracleRoutes(router, services);
  router.use(prefixes, oracleErrorHandler);

  await manager.start();
  logger.info(
    { did: identity.did, entityDid: identity.entityDid, models: models.list().map((m) => m.id) },
    'oracle: ready',
  );

  return {
    name: 'oracle',
    router,
    attach: (http) => sockets.attach(http),
    close: async () => {
      await manager.close();
      bridge.close();
      await sockets.close();
      await log.close();
      await bus.close();
      chain?.close();
    },
  };
};

async function loadRules(config: Config, logger: Logger): Promise<ScriptedRule[]> {
  if (!config.SCRIPTED_MODEL_RULES) return [];
  const text = await readFile(config.SCRIPTED_MODEL_RULES, 'utf8');
  const parsed = ScriptedRulesFile.safeParse(parseYaml(text));
  if (!parsed.success) {
    throw new Error(
      `SCRIPTED_MODEL_RULES (${config.SCRIPTED_MODEL_RULES}) is not a list of rules: ${parsed.error.issues
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  }
  for (const rule of parsed.data) new RegExp(rule.match, 'i');
  logger.info(
    { file: config.SCRIPTED_MODEL_RULES, rules: parsed.data.length },
    'oracle: scripted model rules loaded',
  );
  return parsed.data;
}
