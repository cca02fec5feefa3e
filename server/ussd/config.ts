import { z } from 'zod';
import type { ConfigSection, PlatformFacts } from '../config-section.js';
import { addressList, choice, int, optionalText } from '../env-values.js';
import type { PlatformConfig } from '../platform-config.js';
import { isPlaceholder, weakSecretRule } from '../weak-secret.js';

/** The scrypt cost (log2 N) of PIN hashes in production, and the lowest production accepts. */
export const PIN_SCRYPT_LOG2N_MIN_PRODUCTION = 14;

const schema = z.object({
  USSD_SESSION_TTL_SECONDS: int(1, 86_400, 180).describe('Inactivity after which a USSD session expires.'),
  USSD_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .default(100)
    .describe('Requests per minute per budget on `POST /api/ussd` before HTTP 429; `0` disables the limit.'),
  USSD_RATE_LIMIT_KEY: choice(['ip', 'phone', 'ip+phone'], 'ip').describe(
    "What one rate-limit budget belongs to: `ip` (the client IP, as the spec says), `phone` (the body's phone number) or `ip+phone`.",
  ),
  USSD_RATE_LIMIT_ALLOWLIST: addressList.describe(
    'Comma list of gateway addresses or CIDRs exempt from the per-IP limit, e.g. `196.201.214.0/24,10.0.0.5` (with `ip+phone`, counted per phone number).',
  ),
  USSD_AGGREGATOR_ALLOWLIST: addressList.describe(
    "Comma list of the aggregator's addresses or CIDRs: `POST /api/ussd` from any other client address (as `TRUST_PROXY_ENABLED` works it out) answers 403. Empty: any address.",
  ),
  USSD_AGGREGATOR_SECRET: optionalText.describe(
    'A secret every `POST /api/ussd` must carry: the password of HTTP basic auth (callback URL `https://ussd:<secret>@host/api/ussd`, any user name) or `Authorization: Bearer <secret>`; 401 otherwise. Generate one with `openssl rand -hex 24`.',
  ),
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
    })
    .describe(
      "`network`: only the aggregator can reach `POST /api/ussd` (a private link, a firewall, the proxy's allow list), which production then accepts in place of an allowlist or a secret.",
    ),
  PIN_ENCRYPTION_KEY: optionalText.describe(
    'AES-256-GCM key of PIN hashes at rest: 32 random bytes as base64 (`openssl rand -base64 32`) or hex (`openssl rand -hex 32`). Unset in development: generated once and kept in `DATA_DIR/pin-encryption-key` (mode 0600), so accounts survive a restart.',
  ),
  PIN_ENCRYPTION_KEY_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/)
    .default('k1')
    .describe('Id stored with each PIN record, so keys can rotate.'),
  PIN_PREVIOUS_KEYS: optionalText.describe(
    'Older keys still accepted during a rotation: comma-separated `id:base64key`.',
  ),
  PIN_SCRYPT_LOG2N: int(4, 20, PIN_SCRYPT_LOG2N_MIN_PRODUCTION).describe(
    'scrypt cost of PIN hashes as log2 N (14: N = 2^14, 16 MiB, about 50 ms a hash). Tests lower it. Records of another cost still verify and are re-hashed on the next good login.',
  ),
});

export type UssdConfig = z.output<typeof schema>;

/** What the USSD gateway's code reads: its own variables and the platform's. */
export type UssdGatewayConfig = UssdConfig & PlatformConfig;

const ussdOn = (config: PlatformFacts): boolean => config.ENABLED_PARTS.includes('ussd');

/** The USSD gateway's variables (spec part A) and what production requires of them. */
export const ussdConfig: ConfigSection<typeof schema, UssdConfig & PlatformFacts> = {
  title: 'USSD gateway (part A)',
  schema,
  production: [
    {
      variables: ['PIN_ENCRYPTION_KEY'],
      rule: 'Required with the `ussd` part; not a placeholder.',
      refuse: (config) =>
        ussdOn(config) &&
        (config.PIN_ENCRYPTION_KEY === undefined || isPlaceholder(config.PIN_ENCRYPTION_KEY))
          ? 'PIN_ENCRYPTION_KEY (base64 of 32 random bytes: openssl rand -base64 32)'
          : undefined,
    },
    {
      variables: ['PIN_SCRYPT_LOG2N'],
      rule: `At least ${PIN_SCRYPT_LOG2N_MIN_PRODUCTION}.`,
      refuse: (config) =>
        config.PIN_SCRYPT_LOG2N < PIN_SCRYPT_LOG2N_MIN_PRODUCTION
          ? `PIN_SCRYPT_LOG2N of at least ${PIN_SCRYPT_LOG2N_MIN_PRODUCTION} (a lower PIN-hash cost is for tests only)`
          : undefined,
    },
    {
      variables: ['USSD_AGGREGATOR_ALLOWLIST', 'USSD_AGGREGATOR_SECRET', 'USSD_AGGREGATOR_AUTH'],
      rule: 'With the `ussd` part, one of `USSD_AGGREGATOR_ALLOWLIST`, `USSD_AGGREGATOR_SECRET` or `USSD_AGGREGATOR_AUTH=network`.',
      refuse: (config) =>
        ussdOn(config) &&
        config.USSD_AGGREGATOR_ALLOWLIST.length === 0 &&
        config.USSD_AGGREGATOR_SECRET === undefined &&
        config.USSD_AGGREGATOR_AUTH === undefined
          ? 'USSD_AGGREGATOR_ALLOWLIST, USSD_AGGREGATOR_SECRET or USSD_AGGREGATOR_AUTH=network (who may call POST /api/ussd: the aggregator\'s addresses, its shared secret, or a network that lets only the aggregator reach the route; docs/ussd-gateway.md, "Who may call it")'
          : undefined,
    },
    weakSecretRule('USSD_AGGREGATOR_SECRET'),
  ],
};
