import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import type { Price } from '../../../contracts/oracle.js';
import type { OracleServiceConfig } from '../config.js';
import type { ConfigSection } from '../../config-section.js';
import type { Db } from '../../db/index.js';
import type { TxQueryClient } from '../../chain-node/tx-query-client.js';
import type { Logger } from '../../logger.js';
import type { OracleIdentity } from '../identity.js';
import type { PromptSection } from './prompt.js';
import type { ServerTool } from './tools.js';

/** A check run before a turn is accepted (e.g. the credits plugin's balance); throws an OracleHttpError to refuse. */
export type TurnGuard = (turn: {
  userDid: string;
  sessionId: string;
  requestId: string;
  model: string;
}) => Promise<void>;

/** Categories of plugins (the plugin-runtime proposal's list). */
const PLUGIN_CATEGORIES = [
  'data',
  'communication',
  'automation',
  'memory',
  'integration',
  'ui',
  'auth',
  'observability',
  'core',
] as const;

/**
 * What a plugin is, checked at boot (Fastify's plugin metadata, as a zod schema). `visibility`: `always`
 * plugins are listed in the system prompt's capabilities; `on-demand` ones only through the
 * `list_capabilities` tool; `silent` ones are never mentioned (their tools still work).
 */
export const PluginManifest = z
  .object({
    /** The key of the plugin in `features` and ORACLE_FEATURES, e.g. `user-preferences`. */
    name: z.string().regex(/^[a-z][a-z0-9-]{1,40}$/, 'a plugin name is lower-case letters, digits and -'),
    title: z.string().min(1).max(80),
    summary: z.string().min(1).max(120),
    visibility: z.enum(['always', 'on-demand', 'silent']),
    stability: z.enum(['stable', 'beta', 'experimental']),
    category: z.enum(PLUGIN_CATEGORIES),
    /** Loaded when `features` does not name it. */
    defaultOn: z.boolean(),
    /** Plugins that must be on for this one to load. */
    dependsOn: z.array(z.string()).default([]),
    /** Variables of the configuration (its own or the platform's) it needs set; forcing it on without them is a boot error. */
    requiredEnv: z.array(z.string()).default([]),
    /**
     * Its own variables (a zod object, a description each) and production rules. The platform's schema
     * composes the built-in plugins' (server/oracle/config-sections.ts), so they are parsed, refined and documented
     * with every other variable; the plugin reads them, parsed, from `ctx.config`.
     */
    config: z
      .custom<ConfigSection<z.AnyZodObject, never>>(
        (v) =>
          typeof v === 'object' && v !== null && (v as { schema?: unknown }).schema instanceof z.ZodObject,
        'a configuration section: { title, schema: z.object(…) }',
      )
      .optional(),
  })
  .strict();
export type PluginManifest = z.input<typeof PluginManifest>;

/** A plugin's health: `ready`, or `degraded` with a reason (a plugin switched off is `disabled`). */
export interface PluginHealth {
  state: 'ready' | 'degraded';
  reason?: string;
}

/** The turn as plugins see it before the prompt is compiled. */
export interface TurnContext {
  userDid: string;
  sessionId: string;
  /** A shared room named by the request, else the (user, oracle) pair's room. */
  roomId: string;
  /** The shared room named by the request (`metadata.roomId`) or its session, if any. */
  sharedRoomId: string | undefined;
  request: { message: string; metadata?: Record<string, unknown> | undefined; timezone?: string | undefined };
}

/** What a plugin receives at setup and in its hooks. */
export interface PluginContext {
  config: OracleServiceConfig;
  db: Db;
  logger: Logger;
  identity: OracleIdentity;
  /** The shared state of another plugin (its `sharedState` value), when that plugin is on. */
  shared<T = unknown>(pluginName: string): T | undefined;
  /** The chain node's tx service (payments are looked up there); undefined without a chain node. */
  chainTx?: TxQueryClient | undefined;
}

/**
 * An HTTP module: routes the plugin adds to the service. They are mounted with the service's CORS, JSON body
 * parser, capability-token auth (use `requireCaller`) and OracleError answers.
 */
export interface HttpModule {
  /** E.g. `UserPreferencesHttpModule`. */
  name: string;
  /** Path prefixes it serves (for CORS and the body parser), e.g. `['/user-preferences']`. */
  paths: string[];
  register(router: Router, deps: { requireCaller: RequestHandler; ctx: PluginContext }): void;
}

/** A sub-agent: offered to the model as a tool taking a `task`, answered by a model run with its own prompt. */
export interface SubAgent {
  name: string;
  description: string;
  /** Its system prompt. */
  prompt: string;
  /** The server tools it may use (its own; none of the parent's). */
  tools?: ServerTool[];
}

/**
 * A plugin of the agent runtime: a manifest plus any of these contributions. Everything is optional but the
 * manifest; a plugin's hooks see only its PluginContext.
 */
export interface OraclePlugin {
  manifest: PluginManifest;
  tools?: ServerTool[] | ((ctx: PluginContext) => ServerTool[]);
  subAgents?: SubAgent[];
  /** Express middleware run on the service's authenticated routes, after auth (`res.locals.auth` is set). */
  middleware?: RequestHandler[];
  httpModules?: HttpModule[];
  /** A value created at setup that other plugins may read with `ctx.shared(name)`. */
  sharedState?: (ctx: PluginContext) => unknown;
  /**
   * Fills the turn's runtime state before the system prompt is compiled. It reads and does not write: when the
   * database is busy or away a moment, the turn's first reads are tried again, this one with them (on a fresh
   * state).
   */
  enrichState?: (state: Record<string, unknown>, turn: TurnContext, ctx: PluginContext) => Promise<void>;
  /** A section of the system prompt, from the turn's state. */
  promptSection?: (state: Record<string, unknown>, ctx: PluginContext) => PromptSection | undefined;
  /** Checks before a turn is accepted (e.g. the credits balance); throw an OracleHttpError to refuse. */
  turnGuards?: TurnGuard[];
  /** The price of a turn this plugin charges (shown by `GET /config`); the first plugin that sets one wins. */
  pricing?: (ctx: PluginContext) => Price;
  setup?: (ctx: PluginContext) => Promise<void>;
  teardown?: (ctx: PluginContext) => Promise<void>;
  health?: (ctx: PluginContext) => Promise<PluginHealth>;
}

/**
 * A plugin's own variables, parsed, as its section types them. They are in `ctx.config` (the runtime, below the
 * plugins, types that by the service's variables only): its manifest's `config` is composed into the platform's
 * schema, which resolvePlugins checks at boot, so they were parsed with every other.
 */
export function pluginConfig<S extends z.AnyZodObject>(
  ctx: PluginContext,
  section: ConfigSection<S, never>,
): z.output<S> & OracleServiceConfig {
  void section; // names the type; its values are already in ctx.config
  return ctx.config;
}

/** Declares a plugin (types only; the manifest is checked at boot). */
export function definePlugin(plugin: OraclePlugin): OraclePlugin {
  return plugin;
}
