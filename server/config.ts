import { isIP } from 'node:net';
import { z } from 'zod';
import { isPlaceholder, SECRET_MIN_LENGTH, weakSecretReason } from './weak-secret.js';

/** The parts of the service this build can serve: spec parts A, B, and C's agent service (with D's plugins). */
export const PART_NAMES = ['ussd', 'chain', 'oracle'] as const;
export type PartName = (typeof PART_NAMES)[number];

/** The scrypt cost (log2 N) of PIN hashes in production, and the lowest production accepts. */
export const PIN_SCRYPT_LOG2N_MIN_PRODUCTION = 14;

/** One path segment: what a chain route prefix may be. */
const ROUTE_PREFIX = /^[a-z0-9][a-z0-9_-]*$/i;

/** `true`/`false`/`1`/`0` from the environment; anything else is a configuration error. */
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1'));

/** An IP address, or a network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`). */
function isAddressOrCidr(value: string): boolean {
  const [address = '', bits, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** The names Express's `trust proxy` accepts for well-known ranges (proxy-addr). */
const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * Whom the app believes about `X-Forwarded-For` (Express's `trust proxy`): nobody (`false`), the nearest `n`
 * hops whoever they are (a number), or only connections from these addresses, CIDRs or range names.
 */
export type TrustProxy = false | number | string[];

/** Comma-separated list; empty items dropped. */
const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

const optionalUrl = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.string().url().optional());

const optionalSecret = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/**
 * Every environment variable the service reads, declared once. Documented in README.md ("Configuration")
 * and .env.example; keep the three in step.
 */
export const EnvSchema = z.object({
  // --- Server ---
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** `PORT=""` (as an emptied .env line leaves it) means the default. */
  PORT: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(0).max(65535).default(3000),
  ),
  /** Listen address: `0.0.0.0` (every IPv4 interface), `127.0.0.1` behind a proxy on the same host, `::` … */
  HOST: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^[A-Za-z0-9.:_-]{1,253}$/, 'an IP address (0.0.0.0, 127.0.0.1, ::) or a host name')
      .default('0.0.0.0'),
  ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines (pino-pretty) on a terminal outside production, JSON otherwise. */
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty', ''])
    .optional()
    .transform((v): 'auto' | 'json' | 'pretty' => (v === undefined || v === '' ? 'auto' : v)),
  /** `false`, a number of proxy hops, or the proxies' addresses/CIDRs (see {@link TrustProxy}). */
  TRUST_PROXY_ENABLED: z
    .string()
    .optional()
    .transform((v, ctx): TrustProxy => {
      const value = (v ?? '').trim();
      if (value === '' || value === 'false' || value === '0') return false;
      if (value === 'true') return 1;
      if (/^\d+$/.test(value)) {
        const hops = Number(value);
        if (hops <= 10) return hops;
      }
      const items = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = items.filter((i) => !TRUST_PROXY_NAMES.includes(i) && !isAddressOrCidr(i));
      if (bad.length === 0 && items.length > 0) return items;
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `false, a number of proxy hops (1 to 10), or the proxies' addresses or CIDRs (127.0.0.1,10.0.0.0/8; loopback); not ${JSON.stringify(bad.join(',') || value)}`,
      });
      return z.NEVER;
    }),
  /** This process's name in logs and metrics (default `<host name>:<port>`). */
  INSTANCE_ID: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9._:@-]{1,64}$/, 'letters, digits and . _ : @ -, at most 64')
        .optional(),
    ),
  /** The commit being run, when the deployment has no `.git` to read it from (build-info metric, start-up line). */
  BUILD_COMMIT: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^[0-9a-fA-F]{7,40}$/, 'a git commit hash')
        .optional(),
    ),
  /** Parts served by this process; a deployment can run them as separate services from one build. */
  ENABLED_PARTS: list
    .pipe(z.array(z.enum(PART_NAMES)))
    .transform((v): PartName[] => (v.length ? [...new Set(v)] : [...PART_NAMES])),

  /** Directory of the keys a development server generates once and keeps (mode 0600). */
  DATA_DIR: z.string().default('./data'),
  /** On SIGTERM/SIGINT: how long in-flight requests may take to finish before their connections are cut. */
  DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /**
   * On SIGTERM/SIGINT, before the drain: how long `/health` already answers 503 `draining` while everything
   * else is served as usual, so a balancer that polls it stops sending new requests first.
   */
  PRESTOP_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),

  // --- Database ---
  DATABASE_URL: optionalUrl,
  PGLITE_DATA_DIR: z.string().default('./data/pglite'),
  /** Run pending migrations at start-up (off: refuse to start while any is pending; `npm run db:migrate`). */
  MIGRATE_ON_START: bool(true),
  /** PostgreSQL: longest run of one statement (server `statement_timeout`, and a client-side read timeout). */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(2000),
  /** PostgreSQL: longest wait for a pooled connection; with the statement timeout, within the USSD 3 s budget. */
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(500),
  /** PostgreSQL: connections per instance (instances × this must stay under the server's max_connections). */
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),

  // --- Shared stores ---
  REDIS_URL: optionalUrl,

  // --- USSD gateway (part A) ---
  USSD_SESSION_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(180),
  USSD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(100),
  /** What one rate-limit budget belongs to: the client IP (spec), the phone number, or the pair. */
  USSD_RATE_LIMIT_KEY: z
    .enum(['ip', 'phone', 'ip+phone', ''])
    .optional()
    .transform((v): 'ip' | 'phone' | 'ip+phone' => (v === undefined || v === '' ? 'ip' : v)),
  /** Gateway addresses or CIDRs exempt from the per-IP limit, e.g. `196.201.214.0/24,10.0.0.5`. */
  USSD_RATE_LIMIT_ALLOWLIST: list.pipe(
    z.array(
      z
        .string()
        .refine(isAddressOrCidr, 'an IPv4 or IPv6 address, or a CIDR like 196.201.214.0/24 or 2001:db8::/32'),
    ),
  ),
  /**
   * Who may call `POST /api/ussd`: the aggregator's addresses or CIDRs (the client address as
   * TRUST_PROXY_ENABLED works it out); every other address is answered 403. Unset: any address.
   */
  USSD_AGGREGATOR_ALLOWLIST: list.pipe(
    z.array(
      z
        .string()
        .refine(isAddressOrCidr, 'an IPv4 or IPv6 address, or a CIDR like 196.201.214.0/24 or 2001:db8::/32'),
    ),
  ),
  /**
   * A secret the aggregator sends with every `POST /api/ussd`, as the password of HTTP basic auth (the
   * callback URL `https://ussd:<secret>@host/api/ussd`) or as `Authorization: Bearer <secret>`; without it
   * 401. Production: at least 24 characters, not a placeholder.
   */
  USSD_AGGREGATOR_SECRET: optionalSecret,
  /**
   * `network`: the network lets only the aggregator reach `POST /api/ussd` (a private link, a firewall, the
   * proxy's allow list), which production then accepts in place of an allowlist or a secret.
   */
  USSD_AGGREGATOR_AUTH: z
    .string()
    .optional()
    .transform((v, ctx): 'network' | undefined => {
      const value = (v ?? '').trim();
      if (value === '') return undefined;
      if (value === 'network') return value;
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `network (the network lets only the aggregator reach POST /api/ussd), or unset; not ${JSON.stringify(value)}`,
      });
      return z.NEVER;
    }),
  /** Bearer token of the operator surfaces; production: at least 24 characters, not a placeholder. */
  OPERATOR_TOKEN: optionalSecret,
  PIN_ENCRYPTION_KEY: optionalSecret,
  PIN_ENCRYPTION_KEY_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/)
    .default('k1'),
  PIN_PREVIOUS_KEYS: optionalSecret,
  /** scrypt cost of PIN hashes as log2(N); production refuses less than the default. */
  PIN_SCRYPT_LOG2N: z.coerce.number().int().min(4).max(20).default(PIN_SCRYPT_LOG2N_MIN_PRODUCTION),

  // --- Chain query gateway (part B) ---
  /** `host:port` of the node; unset (development) or `fixture` (any environment): the embedded fixture node. */
  CHAIN_GRPC_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  CHAIN_GRPC_TLS: bool(false),
  CHAIN_GRPC_TIMEOUT_MS: z.coerce.number().int().min(1).max(120_000).default(5000),
  CHAIN_ROUTE_PREFIX: z
    .string()
    .regex(ROUTE_PREFIX, 'a route prefix is letters, digits, _ and -')
    .default('ixo'),
  CHAIN_LEGACY_PREFIXES: list.pipe(
    z.array(z.string().regex(ROUTE_PREFIX, 'a route prefix is letters, digits, _ and -')),
  ),
  CHAIN_DISABLED_METHODS: list,
  /** Bearer token the chain routes require (unset: open); production: at least 24 characters, not a placeholder. */
  CHAIN_REST_TOKEN: optionalSecret,
  CHAIN_CORS_ORIGINS: list,
  /** Base URL of the oracle API advertised by the embedded fixture chain node's oracle entity. */
  PUBLIC_BASE_URL: optionalUrl,

  // --- Agent (oracle) service (part C) ---
  /** The DID tokens are addressed to; default: the did:key of ORACLE_SIGNING_KEY. */
  ORACLE_DID: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^did:[a-z0-9]+:\S+$/, 'a DID looks like did:<method>:<id>')
        .optional(),
    ),
  /** Ed25519 signing key of the oracle (ucanto's `ed25519.format` form, base64 multibase `M…`). */
  ORACLE_SIGNING_KEY: optionalSecret,
  /** The oracle's on-chain entity; default: the fixture node's oracle when CHAIN_GRPC_URL is unset. */
  ORACLE_ENTITY_DID: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^did:[a-z0-9]+:\S+$/, 'a DID looks like did:<method>:<id>')
        .optional(),
    ),
  ORACLE_NAME: z.string().min(1).max(80).default('Guide oracle'),
  /** Plugins switched on (`name`) or off (`-name`) beyond their defaults, e.g. `credits,-user-preferences`. */
  ORACLE_FEATURES: list.pipe(
    z.array(
      z
        .string()
        .regex(
          /^[+-]?[a-z][a-z0-9-]{1,40}$/,
          'ORACLE_FEATURES items are plugin names, optionally prefixed with -',
        ),
    ),
  ),
  /** Browser origins allowed to call the oracle routes (`*`, the development default: any; production refuses it). */
  ORACLE_CORS_ORIGINS: list.transform((v) => (v.length ? v : ['*'])),
  /** How long a run's events stay re-joinable after it ended. */
  ORACLE_RUN_RETENTION_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
  /** A run's owner renews its lease this often (a third of it); an expired lease lets another instance resume it. */
  ORACLE_RUN_LEASE_SECONDS: z.coerce.number().int().min(1).max(600).default(15),
  /** Interval of the SSE heartbeat comment. */
  ORACLE_SSE_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  // --- Credits plugin (ORACLE_FEATURES=credits) ---
  /** A new user's balance, in credits. */
  CREDITS_INITIAL_BALANCE: z.coerce.number().min(0).max(1e12).default(10),
  /** Credits one turn costs. */
  CREDITS_PRICE_PER_TURN: z.coerce.number().min(0).max(1e9).default(1),
  /** Where users pay (a chain account address); default: the fixture oracle's admin account. */
  CREDITS_PAY_TO_ADDRESS: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^[a-z]{1,20}1[02-9ac-hj-np-z]{20,90}$/, 'a bech32 account address, e.g. ixo1…')
        .optional(),
    ),
  /** The coin users pay in (smallest unit). */
  CREDITS_DENOM: z
    .string()
    .regex(/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/)
    .default('uixo'),
  /** Credits one smallest unit of CREDITS_DENOM buys (default: 1 credit per 1,000 uixo). */
  CREDITS_PER_UNIT: z.coerce.number().positive().max(1e9).default(0.001),
  // --- Agent service: per-user limits (README "Limits") ---
  /** Turns one user may have in flight at once, across sessions and instances (0: no limit). */
  ORACLE_MAX_CONCURRENT_RUNS: z.coerce.number().int().min(0).max(100_000).default(3),
  /** Turns one user may start per minute (0: no limit). */
  ORACLE_TURNS_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(20),
  /** Longest user message, in characters; a longer one answers 413. */
  ORACLE_MESSAGE_MAX_CHARS: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  /** Largest JSON body of an oracle route, in bytes; a larger one answers 413. */
  ORACLE_BODY_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** How long a browser tool or an agent-UI action may take in the user's browser before it is a tool error. */
  ORACLE_TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  // --- Agent service: per-user quotas (README "Limits"; 0: no quota). Over one: 403 quota_exceeded. ---
  /** Chat sessions one user keeps: 1,000 is years of daily use (a session per conversation), yet caps the rows a script makes. */
  ORACLE_MAX_SESSIONS_PER_USER: z.coerce.number().int().min(0).max(10_000_000).default(1000),
  /** Rooms one user owns: a person runs a few teams or projects; 100 leaves room and caps a script. */
  ORACLE_MAX_ROOMS_OWNED: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** Rooms one user is a member of (others add them): 200 covers a busy colleague; past it no one can add them, so a stranger cannot flood their room list. */
  ORACLE_MAX_ROOMS_JOINED: z.coerce.number().int().min(0).max(1_000_000).default(200),
  /** Members of one room besides its owner: a team or a clinic, 50; every member's turn reads the room's shared preferences. */
  ORACLE_MAX_ROOM_MEMBERS: z.coerce.number().int().min(0).max(1_000_000).default(50),
  /** Facts the memory plugin keeps per user: 1,000 is far more than a prompt recalls, and caps what one user stores. */
  ORACLE_MAX_MEMORIES_PER_USER: z.coerce.number().int().min(0).max(10_000_000).default(1000),
  // --- Agent service: the longest lifetime of a capability token (a longer one, or none, answers 401 auth_lifetime_too_long) ---
  /** An invocation (sent on every request): 24 hours; clients mint one per session of use, a stolen one is good for a day at most. */
  ORACLE_INVOCATION_MAX_LIFETIME_S: z.coerce.number().int().min(60).max(31_536_000).default(86_400),
  /** A delegation (the oracle acts for the user with it, stored): 30 days, so a user re-authorizes monthly, not per visit. */
  ORACLE_DELEGATION_MAX_LIFETIME_S: z.coerce.number().int().min(60).max(31_536_000).default(2_592_000),
  /** The scripted model's pause between words (0: as fast as possible). */
  SCRIPTED_MODEL_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(15),
  /** A YAML file of extra rules for the scripted model (see README); the built-in rules apply after them. */
  SCRIPTED_MODEL_RULES: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  /** An OpenAI-compatible endpoint, e.g. https://api.openai.com/v1; with OPENAI_MODEL it becomes the default model. */
  OPENAI_BASE_URL: optionalUrl,
  OPENAI_API_KEY: optionalSecret,
  OPENAI_MODEL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
});

export type Config = z.infer<typeof EnvSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment. Throws a ConfigError naming every bad variable, and refuses production defaults
 * that would be unsafe.
 */
export function loadConfig(env: NodeJS.ProcessEnv | Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  if (config.NODE_ENV === 'production') {
    const missing: string[] = [];
    // A placeholder left in from the README or .env.example counts as missing.
    const real = (value: string | undefined): value is string => value !== undefined && !isPlaceholder(value);
    if (config.ENABLED_PARTS.includes('ussd') && !real(config.PIN_ENCRYPTION_KEY)) {
      missing.push('PIN_ENCRYPTION_KEY (base64 of 32 random bytes: openssl rand -base64 32)');
    }
    if (!config.DATABASE_URL) missing.push('DATABASE_URL (production does not run on the embedded PGlite)');
    else if (hasPlaceholderPassword(config.DATABASE_URL)) {
      missing.push('DATABASE_URL with its real password (this one is a placeholder)');
    }
    if (
      config.ENABLED_PARTS.includes('oracle') &&
      config.ORACLE_FEATURES.includes('credits') &&
      !config.CREDITS_PAY_TO_ADDRESS
    ) {
      missing.push('CREDITS_PAY_TO_ADDRESS (the account users pay when the credits plugin is on)');
    }
    if (
      config.ENABLED_PARTS.includes('oracle') &&
      config.ORACLE_FEATURES.includes('credits') &&
      !config.CHAIN_GRPC_URL
    ) {
      missing.push(
        'CHAIN_GRPC_URL (payments are verified on chain; the embedded fixture node accepts development transactions)',
      );
    }
    if (config.ENABLED_PARTS.includes('oracle') && !real(config.ORACLE_SIGNING_KEY)) {
      missing.push("ORACLE_SIGNING_KEY (the oracle's Ed25519 key: npm run oracle:key)");
    }
    if (config.CHAIN_GRPC_URL === undefined && config.ENABLED_PARTS.some((p) => CHAIN_PARTS.includes(p))) {
      missing.push(
        `CHAIN_GRPC_URL (host:port of an IXO node's gRPC endpoint; \`${FIXTURE_CHAIN}\` for the embedded fixture node and its fixture data)`,
      );
    }
    if (config.PIN_SCRYPT_LOG2N < PIN_SCRYPT_LOG2N_MIN_PRODUCTION) {
      missing.push(
        `PIN_SCRYPT_LOG2N of at least ${PIN_SCRYPT_LOG2N_MIN_PRODUCTION} (a lower PIN-hash cost is for tests only)`,
      );
    }
    if (
      config.ENABLED_PARTS.includes('ussd') &&
      config.USSD_AGGREGATOR_ALLOWLIST.length === 0 &&
      config.USSD_AGGREGATOR_SECRET === undefined &&
      config.USSD_AGGREGATOR_AUTH === undefined
    ) {
      missing.push(
        'USSD_AGGREGATOR_ALLOWLIST, USSD_AGGREGATOR_SECRET or USSD_AGGREGATOR_AUTH=network (who may call POST /api/ussd: the aggregator\'s addresses, its shared secret, or a network that lets only the aggregator reach the route; README "Behind an aggregator")',
      );
    }
    // Tokens travel in headers, not cookies, but `*` still lets any web page spend a visitor's tokens.
    if (config.ENABLED_PARTS.includes('oracle') && config.ORACLE_CORS_ORIGINS.includes('*')) {
      missing.push(
        'ORACLE_CORS_ORIGINS other than * (the origins of the web apps that call the oracle, e.g. https://app.example.org)',
      );
    }
    for (const name of ['OPERATOR_TOKEN', 'CHAIN_REST_TOKEN', 'USSD_AGGREGATOR_SECRET'] as const) {
      const value = config[name];
      const why = value === undefined ? undefined : weakSecretReason(value);
      if (why !== undefined) {
        missing.push(
          `${name} of at least ${SECRET_MIN_LENGTH} characters, not a placeholder (this one is ${why}; openssl rand -hex 24)`,
        );
      }
    }
    if (missing.length) {
      throw new ConfigError(`Refusing to start in production without:\n  ${missing.join('\n  ')}`);
    }
  }
  if (config.OPENAI_MODEL && !config.OPENAI_BASE_URL) {
    throw new ConfigError('Invalid configuration:\n  OPENAI_MODEL is set but OPENAI_BASE_URL is not');
  }
  // From here on "no CHAIN_GRPC_URL" means the embedded fixture node, asked for by name or by default.
  if (config.CHAIN_GRPC_URL === FIXTURE_CHAIN) config.CHAIN_GRPC_URL = undefined;
  return config;
}

/** Whether a connection URL's password is a placeholder (`postgres://gateway:...@db/gateway`). */
function hasPlaceholderPassword(url: string): boolean {
  try {
    const { password } = new URL(url);
    return password !== '' && isPlaceholder(decodeURIComponent(password));
  } catch {
    return false;
  }
}

/** The CHAIN_GRPC_URL value that asks for the embedded fixture chain node (required in production). */
export const FIXTURE_CHAIN = 'fixture';

/** Parts that talk to a chain node (the gateway; the oracle resolves did:ixo users through it). */
export const CHAIN_PARTS: readonly PartName[] = ['chain', 'oracle'];

/**
 * What a production configuration runs that is fit for development only, each named with the variable that
 * changes it; server.ts logs them in one warning at start-up. Empty outside production.
 */
export function productionWarnings(config: Config): string[] {
  if (config.NODE_ENV !== 'production') return [];
  const warnings: string[] = [];
  // Open CORS is not among them: production refuses it (loadConfig).
  const oracle = config.ENABLED_PARTS.includes('oracle');
  if (oracle && !config.OPENAI_MODEL) {
    warnings.push('the scripted model answers every chat (set OPENAI_BASE_URL and OPENAI_MODEL)');
  }
  if (config.CHAIN_GRPC_URL === undefined && config.ENABLED_PARTS.some((p) => CHAIN_PARTS.includes(p))) {
    warnings.push(
      `the fixture chain node serves fixture data as chain data (CHAIN_GRPC_URL=${FIXTURE_CHAIN})`,
    );
  }
  if (typeof config.TRUST_PROXY_ENABLED === 'number') {
    warnings.push(
      `TRUST_PROXY_ENABLED trusts X-Forwarded-For from whoever reaches the port (${config.TRUST_PROXY_ENABLED} hop${config.TRUST_PROXY_ENABLED === 1 ? '' : 's'}): keep the instance port private or name the proxy's addresses`,
    );
  }
  return warnings;
}

/** `url` without its password (`postgres://app:***@db:5432/gateway`), for logs and tool output. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** TRUST_PROXY_ENABLED as the start-up line shows it. */
export function describeTrustProxy(value: TrustProxy): string {
  if (value === false) return 'off';
  if (typeof value === 'number') return `${value} hop${value === 1 ? '' : 's'} from any sender`;
  return value.join(',');
}

/** The on-chain oracle entity of the embedded fixture chain node (fixtures/chain/entities.yaml). */
export const FIXTURE_ORACLE_ENTITY_DID = 'did:ixo:entity:oracle7d1e3c9a2b';

/** The oracle's entity DID: ORACLE_ENTITY_DID, else the fixture node's oracle when it runs (no CHAIN_GRPC_URL). */
export function oracleEntityDid(config: Config): string | undefined {
  return config.ORACLE_ENTITY_DID ?? (config.CHAIN_GRPC_URL ? undefined : FIXTURE_ORACLE_ENTITY_DID);
}
