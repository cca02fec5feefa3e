import cors from 'cors';
import type { RequestHandler } from 'express';
import { BLOCK_HEIGHT_HEADER } from './grpc-client.js';

/**
 * CORS for the chain routes. Closed unless origins are configured (CHAIN_CORS_ORIGINS): then only those
 * origins get `Access-Control-Allow-Origin` (`*` opens it to all). Returns undefined when closed, so no
 * CORS header is ever sent, like a node without `enabled-unsafe-cors`.
 */
export function chainCors(origins: readonly string[]): RequestHandler | undefined {
  if (origins.length === 0) return undefined;
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'OPTIONS'],
    allowedHeaders: ['authorization', 'content-type', BLOCK_HEIGHT_HEADER],
    exposedHeaders: [BLOCK_HEIGHT_HEADER],
    maxAge: 600,
  });
}
