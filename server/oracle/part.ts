import { readFile } from 'node:fs/promises';
import type { Server as HttpServer } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { createChainGrpcClient } from '../chain-node/grpc-client.js';
import { createTxQueryClient } from '../chain-node/tx-query-client.js';
import { formatZodIssues } from '../http/zod-issues.js';
import type { Logger } from '../logger.js';
import type { PartFactory } from '../part.js';
import { endEventStreams } from './http/event-stream.js';
import { drainSockets } from './socket/socket-server.js';
import { createIxoDidKeyResolver } from './auth/did-key-resolver.js';
import { createTokenVerifier } from './auth/token-verifier.js';
import { loadOracleIdentity } from './identity.js';
import { createOpenAiModel } from './models/openai-model.js';
import { createModelRegistry, type ModelRegistry } from './models/registry.js';
import { createScriptedModel } from './models/scripted-model.js';
import { ScriptedRulesFile, type ScriptedRule } from './models/scripted-rules.js';
import { builtInPlugins } from './plugins/index.js';
import { createOracleApp } from './create-oracle-app.js';
import { parseFeatureList } from './runtime/features.js';
import type { OraclePlugin } from './runtime/plugin.js';
import type { OracleServiceConfig } from './config.js';

/** What a composition may add to the agent service (tests add their own plugins). */
export interface OraclePartOptions {
  /** Plugins beside the built-in ones. */
  extraPlugins?: OraclePlugin[];
  /** Wraps the configured models (tests record what a model is asked). */
  models?: (configured: ModelRegistry) => ModelRegistry;
}

/**
 * The agent ("oracle") service as a part of the server (spec part C's server, with D's plugins): its identity,
 * the capability-token verifier (did:ixo through the chain node's IID query), the models, and the agent
 * runtime with the built-in plugins switched by ORACLE_FEATURES.
 */
export function oraclePart(options: OraclePartOptions = {}): PartFactory<OracleServiceConfig> {
  return async (ctx) => {
    const { config, logger } = ctx;
    const identity = await loadOracleIdentity(config, logger);
    // did:ixo issuers are resolved through the chain's IID query; without a chain node only did:key works.
    const chainUrl = ctx.chainGrpcUrl ?? config.CHAIN_GRPC_URL;
    const chain = chainUrl ? createChainGrpcClient({ url: chainUrl, tls: config.CHAIN_GRPC_TLS }) : undefined;
    const verifier = createTokenVerifier({
      identity,
      maxLifetimes: {
        invocationSeconds: config.ORACLE_INVOCATION_MAX_LIFETIME_S,
        delegationSeconds: config.ORACLE_DELEGATION_MAX_LIFETIME_S,
      },
      resolveDidKey: chain
        ? createIxoDidKeyResolver(chain, { timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS })
        : () => Promise.resolve([]),
    });
    const configured = createModelRegistry({
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
    const models = options.models ? options.models(configured) : configured;
    const app = await createOracleApp({
      identity,
      features: parseFeatureList(config.ORACLE_FEATURES),
      plugins: [...builtInPlugins(), ...(options.extraPlugins ?? [])],
      model: models,
      verifier,
      config,
      db: ctx.db,
      redis: ctx.redis,
      redisPrefix: ctx.redisPrefix,
      logger,
      // Payments are looked up on the same channel as the IID queries.
      chainTx: chain ? createTxQueryClient(chain, { timeoutMs: config.CHAIN_GRPC_TIMEOUT_MS }) : undefined,
    }).catch((err: unknown) => {
      chain?.close();
      throw err;
    });
    logger.info(
      { did: identity.did, entityDid: identity.entityDid, models: models.list().map((m) => m.id) },
      'oracle: ready',
    );
    let attachedTo: HttpServer | undefined;
    return {
      name: 'oracle',
      router: app.router,
      attach: (http) => {
        attachedTo = http;
        app.attach(http);
      },
      // Event streams end and sockets lose their transport; runs go on and stay re-joinable.
      drain: () => {
        if (attachedTo) {
          endEventStreams(attachedTo);
          drainSockets(attachedTo);
        }
        return Promise.resolve();
      },
      health: async () => ({ plugins: await app.health() }),
      close: async () => {
        await app.close();
        chain?.close();
      },
    };
  };
}

/** The agent service with the built-in plugins. */
export const createOraclePart: PartFactory<OracleServiceConfig> = oraclePart();

async function loadRules(config: OracleServiceConfig, logger: Logger): Promise<ScriptedRule[]> {
  if (!config.SCRIPTED_MODEL_RULES) return [];
  const text = await readFile(config.SCRIPTED_MODEL_RULES, 'utf8');
  const parsed = ScriptedRulesFile.safeParse(parseYaml(text));
  if (!parsed.success) {
    throw new Error(
      `SCRIPTED_MODEL_RULES (${config.SCRIPTED_MODEL_RULES}) is not a list of rules: ${formatZodIssues(parsed.error.issues)}`,
    );
  }
  for (const rule of parsed.data) new RegExp(rule.match, 'i');
  logger.info(
    { file: config.SCRIPTED_MODEL_RULES, rules: parsed.data.length },
    'oracle: scripted model rules loaded',
  );
  return parsed.data;
}
