import type { Server } from 'node:http';
import type { RequestHandler, Router } from 'express';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Db } from './db/index.js';
import type { Logger } from './logger.js';
import type { DirectHandler } from './http/fast-path.js';
import type { PlatformConfig } from './platform-config.js';

/**
 * What every part of the service receives: configuration and the connections main.ts opened. `C` is what the
 * part reads of the configuration (its own section's type and the platform's); the composition root passes
 * the whole parsed configuration, which the compiler checks holds it.
 */
export interface PartContext<C extends PlatformConfig = PlatformConfig> {
  config: C;
  db: Db;
  logger: Logger;
  /** Set when REDIS_URL is configured; parts fall back to in-process stores otherwise. */
  redis: Redis | undefined;
  /**
   * Prepended to every Redis key of every part (each part adds its own name, e.g. `ussd:`). Empty in
   * production; tests give each app a namespace of its own, so runs sharing one Redis never meet.
   */
  redisPrefix: string;
  /** Prometheus registry of this app instance (not the global one, so tests can run several apps). */
  metrics: Registry;
  /**
   * `host:port` of the chain node's gRPC endpoint: CHAIN_GRPC_URL, or the embedded fixture node that
   * server.ts started for the parts that need a chain. Unset: a part falls back to CHAIN_GRPC_URL.
   */
  chainGrpcUrl?: string | undefined;
}

/** One part of the spec (USSD gateway, chain gateway, …) mounted into the app. */
export interface Part {
  name: string;
  /** Mounted at the app root; each part owns its own paths. */
  router: Router;
  /** Answers the part's hottest route before Express routes the request (http/fast-path.ts). */
  direct?: DirectHandler;
  /**
   * Runs for a request no route of the app answered, before the app's JSON 404 (e.g. the chain gateway's
   * Cosmos-shaped 404 for a chain path under a prefix it does not serve); `next()` passes it on.
   */
  notFound?: RequestHandler;
  /**
   * Paths of generated/openapi.json (OpenAPI form, e.g. `/ixo/token/params`) that the part, as configured, does
   * not serve (the chain methods in CHAIN_DISABLED_METHODS): the document served at `/openapi.json` leaves them out.
   */
  unservedPaths?: ReadonlySet<string>;
  /** What the part adds to `/health` (e.g. the oracle's plugins and their states). */
  health?(): Promise<{
    plugins?: { name: string; state: 'ready' | 'degraded' | 'disabled'; reason?: string }[];
  }>;
  /** Called once the HTTP server listens (e.g. to attach socket.io to it). */
  attach?(http: Server): void;
  /**
   * The server is stopping (SIGTERM): end long-lived answers (event streams, sockets) cleanly now, so they do
   * not hold the drain until its timeout; ordinary requests in flight finish by themselves. What a client can
   * resume (a re-joinable run) must stay resumable, on this instance's successor or another one.
   */
  drain?(): Promise<void>;
  /** Releases what the part opened itself (timers, channels, servers). Shared connections are closed by main. */
  close(): Promise<void>;
}

export type PartFactory<C extends PlatformConfig = PlatformConfig> = (ctx: PartContext<C>) => Promise<Part>;
