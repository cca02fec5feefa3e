import { ed25519 } from '@ucanto/principal';
import type { Redis } from 'ioredis';
import { startTestApp, type TestApp, type TestAppOptions } from '../app.js';
import type { Db } from '../../../server/db/index.js';

/** A signing key for a test oracle (so tests never write ./data). */
export async function newOracleKey(): Promise<string> {
  return ed25519.format(await ed25519.generate());
}

/** The oracle under test: the real server with only the oracle part, and its DID. */
export interface OracleApp extends TestApp {
  oracleDid: string;
}

/**
 * Starts the real server with the oracle part on a loopback port: embedded defaults (in-process run events)
 * unless `redis: true`, a fresh signing key unless one is given, the scripted model without pauses unless
 * SCRIPTED_MODEL_DELAY_MS is given.
 */
export async function startOracleApp(
  options: {
    env?: Record<string, string>;
    db?: Db;
    redis?: Redis;
    signingKey?: string;
    parts?: TestAppOptions['parts'];
    /** Apps that share Redis state (two instances of one service) pass the same prefix. */
    redisPrefix?: string;
    logger?: TestAppOptions['logger'];
  } = {},
): Promise<OracleApp> {
  const key = options.signingKey ?? (await newOracleKey());
  const app = await startTestApp({
    env: {
      ENABLED_PARTS: 'oracle',
      ORACLE_SIGNING_KEY: key,
      SCRIPTED_MODEL_DELAY_MS: '0',
      REDIS_URL: '',
      ...options.env,
    },
    ...(options.db ? { db: options.db } : {}),
    ...(options.redis ? { redis: options.redis } : {}),
    ...(options.parts ? { parts: options.parts } : {}),
    ...(options.redisPrefix ? { redisPrefix: options.redisPrefix } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const config = (await (await fetch(`${app.url}/config`)).json()) as { did: string };
  return Object.assign(app, { oracleDid: config.did });
}
