import type { PartFactory } from '../part.js';
import type { ChainGatewayConfig } from './config.js';
import type { FixtureNode } from './fixture-node/fixture-node.js';
import { createChainGrpcClient } from '../chain-node/grpc-client.js';
import { openApiPathsOf } from './route-table.js';
import { createChainGateway } from './router.js';

/**
 * The chain query gateway (spec part B). It talks to the node server.ts resolved (CHAIN_GRPC_URL or the shared
 * embedded fixture node); composed on its own without either, it starts its own fixture node (a real grpc-js
 * server on 127.0.0.1, random port) and stops it on close.
 */
export const createChainPart: PartFactory<ChainGatewayConfig> = async (ctx) => {
  const { config, logger } = ctx;
  let node: FixtureNode | undefined;
  let url = ctx.chainGrpcUrl ?? config.CHAIN_GRPC_URL;
  if (url === undefined) {
    const { startFixtureNode } = await import('./fixture-node/fixture-node.js');
    node = await startFixtureNode({
      publicBaseUrl: config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`,
    });
    url = node.address;
    logger.info(
      { address: node.address },
      'chain gateway: embedded fixture node started (CHAIN_GRPC_URL unset)',
    );
  }
  const client = createChainGrpcClient({ url, tls: config.CHAIN_GRPC_TLS });
  const { router, notFound, direct } = createChainGateway({ client, config, logger });
  return {
    name: 'chain',
    router,
    notFound,
    direct,
    unservedPaths: openApiPathsOf(config.CHAIN_DISABLED_METHODS),
    close: async () => {
      client.close();
      await node?.close();
    },
  };
};
