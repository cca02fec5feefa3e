import { formatZodIssues } from '../../http/zod-issues.js';
import type { Logger } from '../../logger.js';
import { PluginManifest, type OraclePlugin } from './plugin.js';

/** `features`: a plugin name → `true` (force on), `false` (never load); absent → the manifest's default. */
export type Features = Record<string, boolean>;

/** A boot error: the service does not start, and the message names what to fix. */
export class PluginBootError extends Error {
  override name = 'PluginBootError';
}

/** How each plugin came out of the boot: on, or off with the reason. */
export interface PluginDecision {
  plugin: OraclePlugin;
  manifest: PluginManifest & { dependsOn: string[]; requiredEnv: string[] };
  enabled: boolean;
  reason: string | undefined;
}

/**
 * Parses ORACLE_FEATURES: a comma list where `name` switches a plugin on and `-name` off, e.g.
 * `credits,-user-preferences`.
 */
export function parseFeatureList(items: string[]): Features {
  const features: Features = {};
  for (const item of items) {
    const off = item.startsWith('-');
    const name = off ? item.slice(1) : item.replace(/^\+/, '');
    if (name) features[name] = !off;
  }
  return features;
}

/** Whether a parsed variable holds a value (not unset, empty or an empty list). */
const isSet = (value: unknown): boolean =>
  value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0);

/**
 * Decides which plugins load, in dependency order (dependencies first), with Fastify's boot checks: every
 * manifest valid, names unique, its config composed into the platform's (one of `composedSections`, i.e.
 * oracleConfigSections of server/oracle/config-sections.ts, handed in because the runtime is below the plugins
 * and imports none of them) so its variables are parsed with every other, every `dependsOn` registered and no
 * cycles, no unknown `features` key. A plugin forced on without its `requiredEnv` set in `config` (the parsed
 * configuration), or whose dependency is off, is a boot error naming them; a plugin on by default is switched
 * off when a dependency is off (with a log line) or its variables are missing.
 */
export function resolvePlugins(
  plugins: OraclePlugin[],
  features: Features,
  config: Readonly<Record<string, unknown>>,
  composedSections: readonly unknown[],
  logger: Logger,
): PluginDecision[] {
  const byName = new Map<string, PluginDecision>();
  for (const plugin of plugins) {
    const parsed = PluginManifest.safeParse(plugin.manifest);
    if (!parsed.success) {
      throw new PluginBootError(
        `plugin ${String(plugin.manifest?.name)}: invalid manifest: ${formatZodIssues(parsed.error.issues)}`,
      );
    }
    const manifest = parsed.data;
    if (byName.has(manifest.name)) throw new PluginBootError(`plugin ${manifest.name} is registered twice`);
    if (manifest.config && !composedSections.includes(manifest.config)) {
      throw new PluginBootError(
        `plugin ${manifest.name}: its config is not composed into the platform's (add it to oracleConfigSections in server/oracle/config-sections.ts)`,
      );
    }
    byName.set(manifest.name, { plugin, manifest, enabled: false, reason: undefined });
  }
  for (const key of Object.keys(features)) {
    if (!byName.has(key)) {
      throw new PluginBootError(
        `features: unknown plugin "${key}" (known: ${[...byName.keys()].sort().join(', ') || 'none'})`,
      );
    }
  }
  for (const d of byName.values()) {
    for (const dep of d.manifest.dependsOn) {
      if (!byName.has(dep)) {
        throw new PluginBootError(`plugin ${d.manifest.name} depends on ${dep}, which is not registered`);
      }
    }
  }

  // Dependencies first (depth-first topological order), refusing cycles.
  const order: PluginDecision[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      throw new PluginBootError(`plugins depend on each other in a cycle: ${[...path, name].join(' → ')}`);
    }
    state.set(name, 'visiting');
    const d = byName.get(name) as PluginDecision;
    for (const dep of d.manifest.dependsOn) visit(dep, [...path, name]);
    state.set(name, 'done');
    order.push(d);
  };
  for (const name of byName.keys()) visit(name, []);

  for (const d of order) {
    const { name, requiredEnv, dependsOn, defaultOn } = d.manifest;
    const wanted = features[name];
    const missing = requiredEnv.filter((v) => !isSet(config[v]));
    const offDeps = dependsOn.filter((dep) => !byName.get(dep)?.enabled);
    if (wanted === false) {
      d.reason = 'switched off by features';
      continue;
    }
    if (wanted === true) {
      if (missing.length) {
        throw new PluginBootError(
          `plugin ${name} is switched on but needs ${missing.join(', ')} in the environment`,
        );
      }
      if (offDeps.length) {
        throw new PluginBootError(
          `plugin ${name} is switched on but depends on ${offDeps.join(', ')}, which is off`,
        );
      }
      d.enabled = true;
      continue;
    }
    if (!defaultOn) {
      d.reason = 'off by default (switch it on with features or ORACLE_FEATURES)';
      continue;
    }
    if (offDeps.length) {
      d.reason = `switched off because ${offDeps.join(', ')} is off`;
      logger.info({ plugin: name, dependsOn: offDeps }, `oracle: plugin ${name} ${d.reason}`);
      continue;
    }
    if (missing.length) {
      d.reason = `missing ${missing.join(', ')}`;
      logger.info({ plugin: name, missing }, `oracle: plugin ${name} is off (${d.reason})`);
      continue;
    }
    d.enabled = true;
  }
  return order;
}
