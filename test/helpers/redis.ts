import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The real Redis of the production column (REDIS_URL, as CI sets it), or undefined on embedded defaults:
 * tests that need Redis itself (shared sessions, Redis outages) run only when it is set (`describe.runIf`).
 */
export const TEST_REDIS_URL = process.env['REDIS_URL'] || undefined;

/** A key namespace of its own (`test:<random>:`): test runs on one Redis never meet, and nothing is flushed. */
export function testRedisPrefix(label = 'test'): string {
  return `${label}:${randomBytes(5).toString('hex')}:`;
}

/** A Redis client for tests (fail-fast settings of server/server.ts), connected before it is returned. */
export async function openTestRedis(url = requireRedisUrl()): Promise<Redis> {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    lazyConnect: true,
  });
  await redis.connect();
  return redis;
}

/** Deletes every key under `prefix` (one test's own namespace), walking with SCAN; never FLUSHDB. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

function requireRedisUrl(): string {
  if (TEST_REDIS_URL === undefined)
    throw new Error('REDIS_URL is not set: guard this test with runIf(TEST_REDIS_URL)');
  return TEST_REDIS_URL;
}
