import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { projectRoot } from '../project-root.js';

/** The parts of an OpenAPI 3 document this module reads and rewrites. */
interface Operation {
  tags?: string[];
  operationId?: string;
  [key: string]: unknown;
}
interface OpenApiDocument {
  info: Record<string, unknown>;
  servers?: { url: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  [key: string]: unknown;
}

/** The canonical build artefact (`npm run generate`); the served document is derived from it. */

/** The prefix chain paths carry in the canonical document. */
const CANONICAL_CHAIN_PREFIX = '/ixo/';

/** The tag of an oracle plugin's routes → the plugin's name (in `/health` plugins). */
const PLUGIN_TAGS: Readonly<Record<string, string>> = {
  preferences: 'user-preferences',
  memory: 'memory',
  credits: 'credits',
};

/** The part whose routes carry a tag; tags not listed (e.g. `system`) are served by every deployment. */
const PART_OF_TAG: Readonly<Record<string, Config['ENABLED_PARTS'][number]>> = {
  ussd: 'ussd',
  chain: 'chain',
  oracle: 'oracle',
  preferences: 'oracle',
  memory: 'oracle',
  credits: 'oracle',
};

let canonical: OpenApiDocument | undefined;
function canonicalDocument(): OpenApiDocument {
  canonical ??= JSON.parse(
    readFileSync(join(projectRoot(), 'generated/openapi.json'), 'utf8'),
  ) as OpenApiDocument;
  return canonical;
}

/** What the served document depends on besides the configuration. */
export interface ServedDocumentInput {
  config: Pick<Config, 'ENABLED_PARTS' | 'CHAIN_ROUTE_PREFIX' | 'CHAIN_LEGACY_PREFIXES' | 'PUBLIC_BASE_URL'>;
  /** The request's own origin (`https://host:port`), used when PUBLIC_BASE_URL is unset. */
  origin: string;
  /** Oracle plugins that are switched off (their routes are not served). */
  disabledPlugins: ReadonlySet<string>;
  /** Paths of the canonical document the parts do not serve (each part's `unservedPaths`). */
  unservedPaths: ReadonlySet<string>;
}

/**
 * The OpenAPI document of this deployment, derived from generated/openapi.json (which stays the canonical
 * artefact): `servers` is PUBLIC_BASE_URL or the request's origin; chain paths are under CHAIN_ROUTE_PREFIX and
 * repeated under each legacy prefix (operation ids suffixed `_<prefix>`); the routes of parts, plugins and chain
 * methods switched off are absent.
 */
export function servedOpenApi(input: ServedDocumentInput): OpenApiDocument {
  const doc = canonicalDocument();
  const { config } = input;
  const enabled = new Set(config.ENABLED_PARTS);
  const prefixes = [
    config.CHAIN_ROUTE_PREFIX,
    ...config.CHAIN_LEGACY_PREFIXES.filter((p) => p !== config.CHAIN_ROUTE_PREFIX),
  ];
  const paths: OpenApiDocument['paths'] = {};

  for (const [path, operations] of Object.entries(doc.paths)) {
    const kept = Object.fromEntries(
      Object.entries(operations).filter(([, op]) => {
        const tags = op.tags ?? [];
        if (tags.some((t) => PART_OF_TAG[t] !== undefined && !enabled.has(PART_OF_TAG[t]))) return false;
        return !tags.some((t) => PLUGIN_TAGS[t] !== undefined && input.disabledPlugins.has(PLUGIN_TAGS[t]));
      }),
    );
    if (Object.keys(kept).length === 0 || input.unservedPaths.has(path)) continue;
    if (!path.startsWith(CANONICAL_CHAIN_PREFIX)) {
      paths[path] = kept;
      continue;
    }
    const suffix = path.slice(CANONICAL_CHAIN_PREFIX.length - 1);
    prefixes.forEach((prefix, i) => {
      paths[`/${prefix}${suffix}`] =
        i === 0
          ? kept
          : Object.fromEntries(
              Object.entries(kept).map(([method, op]) => [
                method,
                {
                  ...op,
                  ...(op.operationId
                    ? { operationId: `${op.operationId}_${prefix.replace(/-/g, '_')}` }
                    : {}),
                  'x-alias-of': `/${config.CHAIN_ROUTE_PREFIX}${suffix}`,
                },
              ]),
            );
    });
  }

  const url = config.PUBLIC_BASE_URL?.replace(/\/$/, '') ?? input.origin;
  return {
    ...doc,
    info: { ...doc.info, 'x-served': 'This deployment: derived at run time from generated/openapi.json.' },
    servers: [{ url, description: config.PUBLIC_BASE_URL ? 'PUBLIC_BASE_URL' : 'This server' }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}
