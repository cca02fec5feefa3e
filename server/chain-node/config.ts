import type { z } from 'zod';
import { bool, int, optionalText } from '../env-values.js';

/** The CHAIN_GRPC_URL value that asks for the embedded fixture chain node (required in production). */
export const FIXTURE_CHAIN = 'fixture';

/**
 * The variables of the channel to the chain node, which the chain gateway serves and the oracle resolves
 * did:ixo users and payments through. The chain gateway's section declares them (server/chain/config.ts, with
 * the rule that production names the node); a part that talks to the node types them with ChainNodeConfig.
 */
export const chainNodeVariables = {
  CHAIN_GRPC_URL: optionalText.describe(
    `\`host:port\` of an IXO node's gRPC endpoint. Unset (development) or \`${FIXTURE_CHAIN}\` (any environment): an in-process fixture chain node on loopback serving fixture data.`,
  ),
  CHAIN_GRPC_TLS: bool(false).describe('Use TLS on the gRPC channel.'),
  CHAIN_GRPC_TIMEOUT_MS: int(1, 120_000, 5000).describe('Deadline of each gRPC call; exceeded: HTTP 504.'),
};

export type ChainNodeConfig = z.output<z.ZodObject<typeof chainNodeVariables>>;
