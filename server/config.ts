import { z } from 'zod';

/** The parts of the service this build can serve (spec parts A and B so far). */
export const PART_NAMES = ['ussd', 'chain'] as const;
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
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY_ENABLED: bool(false),
  /** Parts served by this process; a deployment can run them as separate services from one build. */
  ENABLED_PARTS: list
    .pipe(z.array(z.enum(PART_NAMES)))
    .transform((v): PartName[] => (v.length ? [...new Set(v)] : [...PART_NAMES])),

  // --- Database ---
  DATABASE_URL: optionalUrl,
  PGLITE_DATA_DIR: z.string().default('./data/pglite'),

  // --- Shared stores ---
  REDIS_URL: optionalUrl,

  // --- USSD gateway (part A) ---
  USSD_SESSION_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(180),
  USSD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(100),
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
  CHAIN_REST_TOKEN: optionalSecret,
  CHAIN_CORS_ORIGINS: list,
  /** Base URL of the oracle API advertised by the embedded fixture chain node's oracle entity. */
  PUBLIC_BASE_URL: optionalUrl,
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
    if (config.ENABLED_PARTS.includes('ussd') && !config.PIN_ENCRYPTION_KEY) {
      missing.push('PIN_ENCRYPTION_KEY (base64 of 32 random bytes: openssl rand -base64 32)');
    }
    if (!config.DATABASE_URL) missing.push('DATABASE_URL (production does not run on the embedded PGlite)');
    if (config.PIN_SCRYPT_LOG2N < PIN_SCRYPT_LOG2N_MIN_PRODUCTION) {
      missing.push(
        `PIN_SCRYPT_LOG2N of at least ${PIN_SCRYPT_LOG2N_MIN_PRODUCTION} (a lower PIN-hash cost is for tests only)`,
      );
    }
    if (missing.length) {
      throw new ConfigError(`Refusing to start in production without:\n  ${missing.join('\n  ')}`);
    }
  }
  return config;
}
