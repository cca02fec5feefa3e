import { z } from 'zod';
import type { ChainNodeConfig } from '../chain-node/config.js';
import { MESSAGE_MAX_LENGTH } from '../../contracts/oracle-schemas.js';
import type { ConfigSection, PlatformFacts } from '../config-section.js';
import { int, list, optionalMatching, optionalText, optionalUrl } from '../env-values.js';
import type { PlatformConfig } from '../platform-config.js';
import { isPlaceholder } from '../weak-secret.js';

/** The on-chain oracle entity of the embedded fixture chain node (fixtures/chain/entities.yaml). */
export const FIXTURE_ORACLE_ENTITY_DID = 'did:ixo:entity:oracle7d1e3c9a2b';

const did = optionalMatching(/^did:[a-z0-9]+:\S+$/, 'a DID looks like did:<method>:<id>');

const schema = z.object({
  ORACLE_SIGNING_KEY: optionalText.describe(
    "The oracle's Ed25519 key in ucanto's form (base64 multibase `M…`; `npm run -s oracle:key` prints one). Unset in development: generated once under `DATA_DIR`.",
  ),
  ORACLE_DID: did.describe(
    'The DID capability tokens are addressed to; unset: the did:key of `ORACLE_SIGNING_KEY`.',
  ),
  ORACLE_ENTITY_DID: did.describe(
    "The oracle's on-chain entity; tokens addressed to it are accepted too. Unset without `CHAIN_GRPC_URL`: the fixture node's oracle.",
  ),
  ORACLE_NAME: z
    .string()
    .min(1)
    .max(80)
    .default('Guide oracle')
    .describe("The oracle's name (in `GET /config`, sessions and the prompt)."),
  ORACLE_FEATURES: list
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^[+-]?[a-z][a-z0-9-]{1,40}$/,
            'ORACLE_FEATURES items are plugin names, optionally prefixed with -',
          ),
      ),
    )
    .describe(
      'Plugins switched on (`name`) or off (`-name`) beyond their defaults, comma-separated, e.g. `credits,-user-preferences`. An unknown name refuses to start.',
    ),
  ORACLE_CORS_ORIGINS: list
    .transform((v) => (v.length ? v : ['*']))
    .describe(
      'Browser origins allowed to call the oracle routes and its socket, comma-separated. `*` (any; also what an empty value means) is for development.',
    ),
  ORACLE_RUN_RETENTION_SECONDS: int(10, 86_400, 600).describe(
    "How long a run's events stay re-joinable after it ended.",
  ),
  ORACLE_RUN_LEASE_SECONDS: int(1, 600, 15).describe(
    'Lease of the instance executing a run, renewed every third of it; an expired lease lets another instance resume the run.',
  ),
  ORACLE_SSE_HEARTBEAT_SECONDS: int(1, 300, 15).describe(
    'Interval of the `: heartbeat` comment on event streams.',
  ),
  ORACLE_MAX_CONCURRENT_RUNS: int(0, 100_000, 3).describe(
    'Turns one user may have in flight at once, across sessions and instances; one more answers 429 `too_many_runs` (`0`: no limit).',
  ),
  ORACLE_TURNS_PER_MINUTE: int(0, 100_000, 20).describe(
    'Turns one user may start per minute; one more answers 429 `too_many_turns` (`0`: no limit).',
  ),
  ORACLE_ADMIT_MAX_DB_WAIT_MS: int(0, 60_000, 250).describe(
    'Admission: while a caller has waited longer than this (ms) for a database connection, a new turn answers 503 `unavailable` with `Retry-After` before it reads or writes anything (`0`: no check). A burst of turns that the pool serves in time is admitted whole. See docs/operating.md "Sizing".',
  ),
  ORACLE_ADMIT_MAX_DB_WAITING: int(0, 100_000, 1000).describe(
    'Admission: while more callers than this wait for a database connection, a new turn answers 503 `unavailable` (`0`: no check): a bound on the queue for a burst that arrives at once, before any caller has waited long.',
  ),
  ORACLE_ADMIT_MAX_UNSTORED_EVENTS: int(0, 100_000_000, 200_000).describe(
    'Admission: while more run events than this wait in memory for Redis (an outage, a slow Redis), a new turn answers 503 `unavailable` (`0`: no check).',
  ),
  ORACLE_ADMIT_MAX_LOOP_DELAY_MS: int(0, 60_000, 500).describe(
    "Admission: while the event loop's delay (99th percentile over the last half second) is above this, a new turn answers 503 `unavailable` (`0`: no check).",
  ),
  ORACLE_RETRY_AFTER_S: int(1, 3600, 2).describe(
    'What `Retry-After` says on a 503 of the agent service (admission refused, a dependency down).',
  ),
  ORACLE_MESSAGE_MAX_CHARS: int(1, 1_000_000, MESSAGE_MAX_LENGTH).describe(
    'Longest user message, in characters; a longer one answers 413 `payload_too_large`.',
  ),
  ORACLE_BODY_MAX_BYTES: int(1024, 64 * 1024 * 1024, 1024 * 1024).describe(
    "Largest JSON body of an oracle route (and its plugins'), in bytes; a larger one answers 413 `payload_too_large`.",
  ),
  ORACLE_TOOL_TIMEOUT_MS: int(100, 600_000, 15_000).describe(
    "How long a browser tool or an agent-UI action may take in the user's browser before it is a tool error.",
  ),
  ORACLE_TOOLS_NEED_APPROVAL: list
    .pipe(z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'items are tool names')))
    .describe(
      "Server tools whose every call waits for its user's approval, by name (e.g. `set_user_preferences,remember_fact`), beside the tools that declare `needsApproval` themselves. A name no enabled plugin provides refuses to start.",
    ),
  ORACLE_APPROVAL_TIMEOUT_S: int(1, 18_000, 600).describe(
    "How long a tool call waits for its user's approval; then it is denied with reason `timeout` (at most 5 h, within a run's event retention).",
  ),
  ORACLE_MAX_SESSIONS_PER_USER: int(0, 10_000_000, 1000).describe(
    'Chat sessions one user keeps; one more answers 403 `quota_exceeded` (`0`: no quota). 1,000 is years of daily use, yet caps the rows a script makes.',
  ),
  ORACLE_MAX_ROOMS_OWNED: int(0, 1_000_000, 100).describe(
    'Rooms one user owns; one more answers 403 `quota_exceeded` (`0`: no quota).',
  ),
  ORACLE_MAX_ROOMS_JOINED: int(0, 1_000_000, 200).describe(
    'Rooms one user is a member of; adding them to one more answers 403 `quota_exceeded` (`0`: no quota), so a stranger cannot flood their room list.',
  ),
  ORACLE_MAX_ROOM_MEMBERS: int(0, 1_000_000, 50).describe(
    "Members of one room besides its owner; one more answers 403 `quota_exceeded` (`0`: no quota). Every member's turn reads the room's shared preferences.",
  ),
  ORACLE_INVOCATION_MAX_LIFETIME_S: int(60, 31_536_000, 86_400).describe(
    'Longest an invocation (sent on every request) may live, from now to its expiry; one without expiry or expiring later answers 401 `auth_lifetime_too_long` (5 minutes of clock skew allowed).',
  ),
  ORACLE_DELEGATION_MAX_LIFETIME_S: int(60, 31_536_000, 2_592_000).describe(
    'The same for a delegation (the oracle acts for the user with it): 30 days, so a user re-authorizes monthly.',
  ),
  SCRIPTED_MODEL_DELAY_MS: int(0, 10_000, 15).describe(
    "The scripted model's pause between streamed words (`0`: as fast as possible).",
  ),
  SCRIPTED_MODEL_RULES: optionalText.describe(
    'A YAML file of extra rules for the scripted model, tried before the built-in ones.',
  ),
  OPENAI_BASE_URL: optionalUrl.describe(
    'An OpenAI-compatible endpoint (`https://api.openai.com/v1`, a local vLLM or Ollama …).',
  ),
  OPENAI_API_KEY: optionalText.describe('Its API key (never logged, never shown to a model).'),
  OPENAI_MODEL: optionalText.describe(
    'The model to ask there; when set it is listed in `GET /models` and becomes the default. Needs `OPENAI_BASE_URL`.',
  ),
});

export type OracleConfig = z.output<typeof schema>;

/**
 * What the agent service's code reads: its own variables, the platform's and the chain node's. A plugin's own
 * variables are in the same parsed configuration (config-sections.ts composes their sections); it reads them
 * with `pluginConfig` (runtime/plugin.ts).
 */
export type OracleServiceConfig = OracleConfig & PlatformConfig & ChainNodeConfig;

const oracleOn = (config: PlatformFacts): boolean => config.ENABLED_PARTS.includes('oracle');

/** The agent service's variables (spec part C) and what production requires of them. */
export const oracleConfig: ConfigSection<typeof schema, OracleConfig & PlatformFacts> = {
  title: 'Agent (oracle) service (part C)',
  schema,
  production: [
    {
      variables: ['ORACLE_SIGNING_KEY'],
      rule: 'Required with the `oracle` part; not a placeholder.',
      refuse: (config) =>
        oracleOn(config) &&
        (config.ORACLE_SIGNING_KEY === undefined || isPlaceholder(config.ORACLE_SIGNING_KEY))
          ? "ORACLE_SIGNING_KEY (the oracle's Ed25519 key: npm run oracle:key)"
          : undefined,
    },
    {
      // Tokens travel in headers, not cookies, but `*` still lets any web page spend a visitor's tokens.
      variables: ['ORACLE_CORS_ORIGINS'],
      rule: 'With the `oracle` part, the origins of its web apps: not `*`.',
      refuse: (config) =>
        oracleOn(config) && config.ORACLE_CORS_ORIGINS.includes('*')
          ? 'ORACLE_CORS_ORIGINS other than * (the origins of the web apps that call the oracle, e.g. https://app.example.org)'
          : undefined,
    },
  ],
  refine: (config, ctx) => {
    if (config.OPENAI_MODEL && !config.OPENAI_BASE_URL) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: 'OPENAI_MODEL is set but OPENAI_BASE_URL is not',
      });
    }
  },
  warnings: (config) =>
    oracleOn(config) && !config.OPENAI_MODEL
      ? ['the scripted model answers every chat (set OPENAI_BASE_URL and OPENAI_MODEL)']
      : [],
};

/** The oracle's entity DID: ORACLE_ENTITY_DID, else the fixture node's oracle when it runs (no CHAIN_GRPC_URL). */
export function oracleEntityDid(
  config: Pick<OracleConfig, 'ORACLE_ENTITY_DID'> & { CHAIN_GRPC_URL?: string | undefined },
): string | undefined {
  return config.ORACLE_ENTITY_DID ?? (config.CHAIN_GRPC_URL ? undefined : FIXTURE_ORACLE_ENTITY_DID);
}
