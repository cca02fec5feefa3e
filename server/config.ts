import { z } from 'zod';
import { chainConfig } from './chain/config.js';
import { PART_NAMES, type ConfigSection, type PartName } from './config-section.js';
import { bool, int, list, optionalMatching, optionalText, optionalUrl } from './env-values.js';
import { oracleConfigSections } from './oracle/config.js';
import { trustProxy } from './trust-proxy.js';
import { ussdConfig } from './ussd/config.js';
import { isPlaceholder, weakSecretRule } from './weak-secret.js';

export { PART_NAMES, type PartName } from './config-section.js';

/** `NAME=""` (as an emptied .env line leaves it) means the default. */
const emptyIsDefault = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema);

const schema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .describe(
      '`development`, `test` or `production`; production refuses to start where a default would be unsafe.',
    ),
  HOST: emptyIsDefault(
    z
      .string()
      .regex(/^[A-Za-z0-9.:_-]{1,253}$/, 'an IP address (0.0.0.0, 127.0.0.1, ::) or a host name')
      .default('0.0.0.0'),
  ).describe(
    'Listen address: `0.0.0.0` (every IPv4 interface), `::`, or `127.0.0.1` behind a proxy on the same host (keep instance ports private).',
  ),
  PORT: emptyIsDefault(z.coerce.number().int().min(0).max(65535).default(3000)).describe(
    'HTTP port of the whole service.',
  ),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe(
      'pino level (`fatal` … `trace`, or `silent`). Every line of a request carries its `requestId`, every line of an agent run its `runId`; phone numbers are masked.',
    ),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty', ''])
    .optional()
    .transform((v): 'auto' | 'json' | 'pretty' => (v === undefined || v === '' ? 'auto' : v))
    .describe(
      '`auto`: readable lines (pino-pretty) when stdout is a terminal outside production, JSON lines otherwise; `json` or `pretty` to choose.',
    ),
  INSTANCE_ID: optionalMatching(
    /^[A-Za-z0-9._:@-]{1,64}$/,
    'letters, digits and . _ : @ -, at most 64',
  ).describe(
    "This process's name in the start-up line and the `instance_id` label of every `/metrics` series; unset: `<host name>:<port>`.",
  ),
  BUILD_COMMIT: optionalMatching(/^[0-9a-fA-F]{7,40}$/, 'a git commit hash').describe(
    'The commit being run, for a deployment without `.git` to read it from (start-up line, `gateway_build_info`).',
  ),
  TRUST_PROXY_ENABLED: trustProxy.describe(
    "Whom to believe about the client address in `X-Forwarded-For`: `false` nobody; the proxies' addresses or CIDRs (`127.0.0.1`, `10.0.0.0/8`, also `loopback`), believed only from them, the safe choice; or a number of hops (`true` means 1), believed from whoever reaches the port.",
  ),
  ENABLED_PARTS: list
    .pipe(z.array(z.enum(PART_NAMES)))
    .transform((v): PartName[] => (v.length ? [...new Set(v)] : [...PART_NAMES]))
    .describe(
      'Comma-separated parts this process serves; a deployment can run them as separate services from one build.',
    ),
  PUBLIC_BASE_URL: optionalUrl.describe(
    "This server's public base URL, advertised by the fixture chain node's oracle entity, by `GET /config` and in `GET /openapi.json`; unset: `http://localhost:$PORT` (the fixture node) or the request's own origin.",
  ),
  DATA_DIR: z
    .string()
    .default('./data')
    .describe(
      "Where a development server keeps the keys it generates once (the oracle's signing key, the dev user's key, the USSD PIN key), mode 0600.",
    ),
  PRESTOP_DELAY_MS: int(0, 600_000, 0).describe(
    'On SIGTERM/SIGINT, before the drain: how long `/health/ready` (and `/health`) already answer 503 `draining` while everything else is served as usual, so a balancer that polls readiness stops sending first.',
  ),
  DRAIN_TIMEOUT_MS: int(0, 600_000, 10_000).describe(
    'The drain: how long in-flight requests may take to finish before their connections are cut (agent streams and sockets end at once; runs stay re-joinable).',
  ),
  OPERATOR_TOKEN: optionalText.describe(
    'Bearer token of the operator surfaces (`/api/ussd/debug/:sessionId`, `/api/ussd/sessions`, `/metrics`), in every `NODE_ENV`. Unset: they answer only a direct loopback connection without forwarding headers, 404 to everyone else. Generate one with `openssl rand -hex 24`.',
  ),
  DATABASE_URL: optionalUrl.describe(
    'PostgreSQL connection URL. Unset: the embedded PGlite on disk under `PGLITE_DATA_DIR`.',
  ),
  PGLITE_DATA_DIR: z.string().default('./data/pglite').describe('Data directory of the embedded database.'),
  MIGRATE_ON_START: bool(true).describe(
    'Run pending migrations at start-up; `false`: refuse to start while any is pending (`npm run db:migrate` as a step of its own).',
  ),
  DB_STATEMENT_TIMEOUT_MS: int(100, 600_000, 2000).describe(
    'PostgreSQL: longest run of one statement (`statement_timeout` on the server, and a read timeout in the client).',
  ),
  DB_ACQUIRE_TIMEOUT_MS: int(100, 60_000, 500).describe(
    'PostgreSQL: longest wait for a pooled connection; with the statement timeout it keeps a stalled database within the USSD 3 s budget.',
  ),
  DB_POOL_SIZE: int(1, 500, 10).describe(
    "PostgreSQL: connections per instance (instances × this must stay under the server's `max_connections`).",
  ),
  REDIS_URL: optionalUrl.describe(
    'Redis shared by every instance: USSD sessions, rate limits, run events, socket fan-out. Unset: in-process.',
  ),
});

/** Whether a connection URL's password is a placeholder (`postgres://gateway:...@db/gateway`). */
function hasPlaceholderPassword(url: string): boolean {
  try {
    const { password } = new URL(url);
    return password !== '' && isPlaceholder(decodeURIComponent(password));
  } catch {
    return false;
  }
}

/** The platform's own variables: the server, its database and shared stores, the operator surfaces. */
const platformConfig: ConfigSection<typeof schema, z.output<typeof schema>> = {
  title: 'Platform',
  schema,
  production: [
    {
      variables: ['DATABASE_URL'],
      rule: 'Required (production does not run on PGlite); its password not a placeholder.',
      refuse: (config) =>
        !config.DATABASE_URL
          ? 'DATABASE_URL (production does not run on the embedded PGlite)'
          : hasPlaceholderPassword(config.DATABASE_URL)
            ? 'DATABASE_URL with its real password (this one is a placeholder)'
            : undefined,
    },
    weakSecretRule('OPERATOR_TOKEN'),
  ],
  warnings: (config) =>
    typeof config.TRUST_PROXY_ENABLED === 'number'
      ? [
          `TRUST_PROXY_ENABLED trusts X-Forwarded-For from whoever reaches the port (${config.TRUST_PROXY_ENABLED} hop${config.TRUST_PROXY_ENABLED === 1 ? '' : 's'}): keep the instance port private or name the proxy's addresses`,
        ]
      : [],
};

/** Every owner's configuration, in the order the reference, .env.example and refusals list them. */
export const CONFIG_SECTIONS = [platformConfig, ussdConfig, chainConfig, ...oracleConfigSections] as const;

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type Shape = Intersection<(typeof CONFIG_SECTIONS)[number]['schema']['shape']>;

/** Every environment variable the service reads: the union of the sections' variables. */
const Variables = z.object(Object.assign({}, ...CONFIG_SECTIONS.map((s) => s.schema.shape)) as Shape);

export type Config = z.output<typeof Variables>;

type Section = ConfigSection<z.AnyZodObject, Config>;

/** Marks an issue as a broken production rule, which loadConfig reports apart from invalid values. */
const REFUSAL = { production: true };
const isRefusal = (issue: z.ZodIssue): boolean =>
  issue.code === 'custom' && issue.params?.['production'] === true;

/**
 * A section's rules as a refinement: production rules in production (marked), its other checks always. Zod
 * runs refinements once no value failed its type (a failed check still lets them run, and loadConfig then
 * reports the invalid values alone).
 */
function refinementOf(section: Section) {
  return (config: Config, ctx: z.RefinementCtx): void => {
    section.refine?.(config, ctx);
    if (config.NODE_ENV !== 'production') return;
    for (const rule of section.production ?? []) {
      const message = rule.refuse(config);
      if (message !== undefined) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message,
          path: [rule.variables[0] ?? ''],
          params: REFUSAL,
        });
      }
    }
  };
}

/** The platform's configuration: its variables, refined by every section's rules. */
const ConfigSchema = CONFIG_SECTIONS.reduce<z.ZodType<Config, z.ZodTypeDef, unknown>>(
  (refined, section) => refined.superRefine(refinementOf(section)),
  Variables,
).transform((config) => {
  for (const section of CONFIG_SECTIONS as readonly Section[]) section.finalize?.(config);
  return config;
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment. Throws a ConfigError naming every bad variable, or, when every value is valid,
 * every production rule the configuration breaks.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const invalid = parsed.error.issues.filter((i) => !isRefusal(i));
  if (invalid.length) {
    const lines = invalid.map((i) => `  ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const refusals = parsed.error.issues.map((i) => i.message);
  throw new ConfigError(`Refusing to start in production without:\n  ${refusals.join('\n  ')}`);
}

/**
 * What a production configuration runs that is fit for development only, each named with the variable that
 * changes it; server.ts logs them in one warning at start-up. Empty outside production.
 */
export function productionWarnings(config: Config): string[] {
  if (config.NODE_ENV !== 'production') return [];
  return (CONFIG_SECTIONS as readonly Section[]).flatMap((s) => s.warnings?.(config) ?? []);
}
