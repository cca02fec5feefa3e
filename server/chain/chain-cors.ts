import cors from 'cors';
import type { ChainMiddleware } from './bearer-gate.js';
import { BLOCK_HEIGHT_HEADER } from '../chain-node/grpc-client.js';

/**
 * CORS for the chain routes. Closed unless origins are configured (CHAIN_CORS_ORIGINS): then only those
 * origins get `Access-Control-Allow-Origin` (`*` opens it to all). Returns undefined when closed, so no
 * CORS header is ever sent, like a node without `enabled-unsafe-cors`. The middleware is synchronous (static
 * options): it calls `next` before it returns, or answers a preflight itself.
 */
export function chainCors(origins: readonly string[]): ChainMiddleware | undefined {
  if (origins.length === 0) return undefined;
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'OPTIONS'],
    allowedHeaders: ['authorization', 'content-type', BLOCK_HEIGHT_HEADER],
    exposedHeaders: [BLOCK_HEIGHT_HEADER],
    maxAge: 600,
  });
}
