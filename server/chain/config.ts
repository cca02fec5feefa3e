import { z } from 'zod';
import type { ConfigSection, PartName, PlatformFacts } from '../config-section.js';
import { bool, int, list, optionalText } from '../env-values.js';
import { weakSecretRule } from '../weak-secret.js';

/** The CHAIN_GRPC_URL value that asks for the embedded fixture chain node (required in production). */
const FIXTURE_CHAIN = 'fixture';

/** Parts that talk to a chain node (the gateway; the oracle resolves did:ixo users through it). */
export const CHAIN_PARTS: readonly PartName[] = ['chain', 'oracle'];

/** Whether an enabled part talks to a chain node. */
export const needsChain = (config: PlatformFacts): boolean =>
  config.ENABLED_PARTS.some((p) => CHAIN_PARTS.includes(p));

/** One path segment: what a chain route prefix may be. */
const routePrefix = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, 'a route prefix is letters, digits, _ and -');

const schema = z.object({
  CHAIN_GRPC_URL: optionalText.describe(
    `\`host:port\` of an IXO node's gRPC endpoint. Unset (development) or \`${FIXTURE_CHAIN}\` (any environment): an in-process fixture chain node on loopback serving fixture data.`,
  ),
  CHAIN_GRPC_TLS: bool(false).describe('Use TLS on the gRPC channel.'),
  CHAIN_GRPC_TIMEOUT_MS: int(1, 120_000, 5000).describe('Deadline of each gRPC call; exceeded: HTTP 504.'),
  CHAIN_ROUTE_PREFIX: routePrefix
    .default('ixo')
    .describe('Route prefix of the chain REST paths (`/<prefix>/entity/{id}`).'),
  CHAIN_LEGACY_PREFIXES: list
    .pipe(z.array(routePrefix))
    .describe('Comma-separated extra prefixes served as aliases.'),
  CHAIN_DISABLED_METHODS: list.describe(
    'Comma-separated gRPC methods (`ixo.token.v1beta1.Query/Params`) answered 501.',
  ),
  CHAIN_REST_TOKEN: optionalText.describe(
    'Gates the chain routes: `Authorization: Bearer <token>` required (401 missing, 403 wrong); unset, they are open. Generate one with `openssl rand -hex 24`.',
  ),
  CHAIN_CORS_ORIGINS: list.describe(
    'Comma-separated origins allowed to call the chain routes from a browser; empty: CORS closed.',
  ),
});

export type ChainConfig = z.output<typeof schema>;

/** The chain query gateway's variables (spec part B) and what production requires of them. */
export const chainConfig: ConfigSection<typeof schema, ChainConfig & PlatformFacts> = {
  title: 'Chain query gateway (part B)',
  schema,
  production: [
    {
      variables: ['CHAIN_GRPC_URL'],
      rule: `Required with the \`chain\` or \`oracle\` part (\`${FIXTURE_CHAIN}\` if the fixture node is really wanted).`,
      refuse: (config) =>
        config.CHAIN_GRPC_URL === undefined && needsChain(config)
          ? `CHAIN_GRPC_URL (host:port of an IXO node's gRPC endpoint; \`${FIXTURE_CHAIN}\` for the embedded fixture node and its fixture data)`
          : undefined,
    },
    weakSecretRule('CHAIN_REST_TOKEN'),
  ],
  // Read after `finalize`: in production an unset CHAIN_GRPC_URL was asked for by name.
  warnings: (config) =>
    config.CHAIN_GRPC_URL === undefined && needsChain(config)
      ? [`the fixture chain node serves fixture data as chain data (CHAIN_GRPC_URL=${FIXTURE_CHAIN})`]
      : [],
  // From here on "no CHAIN_GRPC_URL" means the embedded fixture node, asked for by name or by default.
  finalize: (config) => {
    if (config.CHAIN_GRPC_URL === FIXTURE_CHAIN) config.CHAIN_GRPC_URL = undefined;
  },
};
