import { z } from 'zod';
import { PART_NAMES, type ConfigSection, type PartName } from './config-section.js';
import { bool, choice, int, list, optionalMatching, optionalText, optionalUrl } from './env-values.js';
import { trustProxy } from './trust-proxy.js';
import { isPlaceholder, weakSecretRule } from './weak-secret.js';

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
  LOG_FORMAT: choice(['auto', 'json', 'pretty'], 'auto').describe(
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

/**
 * What the platform's own code reads (the server, its database and stores, the operator surfaces), and what
 * every part reads besides its own section: a part types its configuration as its section's type and this.
 */
export type PlatformConfig = z.output<typeof schema>;

/** The platform's own variables: the server, its database and shared stores, the operator surfaces. */
export const platformConfig: ConfigSection<typeof schema, PlatformConfig> = {
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
