import type { AddressInfo } from 'node:net';
import express from 'express';
import supertest from 'supertest';
import { startFixtureNode, type FixtureNode } from '../../../server/chain/fixture-node/fixture-node.js';
import { createChainGrpcClient, type ChainGrpcClient } from '../../../server/chain-node/grpc-client.js';
import { createChainRouter, type ChainRouterConfig } from '../../../server/chain/router.js';
import type { ChainPathShape } from '../../../contracts/chain.js';
import { createLogger } from '../../../server/logger.js';

/** Base URL the fixture node's oracle entity advertises in tests. */
export const TEST_PUBLIC_BASE_URL = 'http://oracle.test:4000';

export const DEFAULT_CHAIN_CONFIG: ChainRouterConfig = {
  CHAIN_ROUTE_PREFIX: 'ixo',
  CHAIN_LEGACY_PREFIXES: [],
  CHAIN_DISABLED_METHODS: [],
  CHAIN_REST_TOKEN: undefined,
  CHAIN_CORS_ORIGINS: [],
  CHAIN_GRPC_TIMEOUT_MS: 2000,
};

export interface Gateway extends AsyncDisposable {
  url: string;
  request: supertest.Agent;
  node: FixtureNode;
  client: ChainGrpcClient;
  /** `METHOD /path?query` of every HTTP request the gateway received, oldest first. */
  requests: string[];
  close(): Promise<void>;
}

export interface GatewayOptions {
  config?: Partial<ChainRouterConfig>;
  shapes?: readonly ChainPathShape[];
  /** Use this node instead of starting one (the gateway does not close it). */
  node?: FixtureNode;
}

/**
 * A real gateway over a real fixture node: the chain router in a bare express app (with a JSON 404 after
 * it, standing in for the rest of the app) listening on loopback, its grpc-js channel to the node.
 */
export async function startGateway(options: GatewayOptions = {}): Promise<Gateway> {
  const node = options.node ?? (await startFixtureNode({ publicBaseUrl: TEST_PUBLIC_BASE_URL }));
  const client = createChainGrpcClient({ url: node.address });
  const app = express();
  const requests: string[] = [];
  app.use((req, _res, next) => {
    requests.push(`${req.method} ${req.originalUrl}`);
    next();
  });
  app.use(
    createChainRouter({
      client,
      config: { ...DEFAULT_CHAIN_CONFIG, ...options.config },
      logger: createLogger('silent'),
      ...(options.shapes ? { shapes: options.shapes } : {}),
    }),
  );
  app.use((_req, res) => res.status(404).json({ code: 'not_found' }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async (): Promise<void> => {
    client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!options.node) await node.close();
  };
  return { url, request: supertest.agent(url), node, client, requests, close, [Symbol.asyncDispose]: close };
}
