import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { Price } from '../../../contracts/oracle.js';
import type { OracleServiceConfig } from '../config.js';
import type { Db } from '../../db/index.js';
import type { TxQueryClient } from '../../chain-node/tx-query-client.js';
import type { Logger } from '../../logger.js';
import type { OracleIdentity } from '../identity.js';
import type { ChatModel } from '../models/model.js';
import { resolvePlugins, type Features, type PluginDecision } from './features.js';
import type { OraclePlugin, PluginContext, TurnGuard } from './plugin.js';
import { subAgentTool } from './sub-agents.js';
import { defineTool, type ServerTool } from './tools.js';

/** The state of one plugin, as `/health` reports it. */
export interface PluginStatus {
  name: string;
  state: 'ready' | 'degraded' | 'disabled';
  reason?: string;
}

/** The plugins of the service, booted: what they add to it, and their health and teardown. */
export interface PluginHost {
  /** Every plugin's decision (on, or off and why), in dependency order. */
  decisions: PluginDecision[];
  /** The plugins that are on, in dependency order. */
  enabled: PluginDecision[];
  pluginContext: PluginContext;
  /** The server tools of a turn on this model: the plugins', their sub-agents on it, list_capabilities. */
  serverToolsFor: (model: ChatModel) => ServerTool[];
  /** The plugins' middleware, run after auth on every authenticated route. */
  middleware: RequestHandler[];
  turnGuards: TurnGuard[];
  /** The price of a turn (the plugin that charges sets it; 0 otherwise). */
  price(): Price;
  health(): Promise<PluginStatus[]>;
  /** Tears the plugins down, last booted first. */
  teardown(): Promise<void>;
}

/**
 * Boots the plugins: checked, dependency-ordered and switched by `features` (features.ts); each one's shared
 * state and setup in order (a setup that throws tears down those before it, and the error goes on); their
 * tools, sub-agents and the `list_capabilities` tool, built once per model.
 */
export async function bootPlugins(options: {
  plugins: OraclePlugin[];
  features: Features;
  config: OracleServiceConfig;
  /** The configuration sections composed into the platform's (server/oracle/config-sections.ts): a plugin's must be one. */
  composedSections: readonly unknown[];
  db: Db;
  logger: Logger;
  identity: OracleIdentity;
  chainTx: TxQueryClient | undefined;
}): Promise<PluginHost> {
  const { logger } = options;
  const decisions = resolvePlugins(
    options.plugins,
    options.features,
    options.config,
    options.composedSections,
    logger,
  );
  const enabled = decisions.filter((d) => d.enabled);
  const shared = new Map<string, unknown>();
  const pluginContext: PluginContext = {
    config: options.config,
    db: options.db,
    logger,
    identity: options.identity,
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

  return {
    decisions,
    enabled,
    pluginContext,
    serverToolsFor,
    middleware: pluginMiddleware,
    turnGuards: enabled.flatMap(({ plugin }) => plugin.turnGuards ?? []),
    price() {
      const charging = enabled.find(({ plugin }) => plugin.pricing);
      return charging?.plugin.pricing?.(pluginContext) ?? { amount: 0, denom: 'credits', per: 'turn' };
    },
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
    teardown,
  };
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
