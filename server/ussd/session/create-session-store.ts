import type { Redis } from 'ioredis';
import type { SessionStore } from './session-store.js';
import type { ValueSealer } from '../crypto/value-sealer.js';
import { createMemorySessionStore } from './memory-session-store.js';
import { createRedisSessionStore } from './redis-session-store.js';

/**
 * Redis when a client is configured (REDIS_URL), else in-process memory. `prefix` namespaces the Redis keys;
 * `sealer` encrypts what Redis holds (process memory is not at rest, so the memory store keeps plain JSON).
 */
export function createSessionStore<T>(
  redis: Redis | undefined,
  prefix: string,
  sealer: ValueSealer,
): SessionStore<T> {
  return redis === undefined
    ? createMemorySessionStore<T>()
    : createRedisSessionStore<T>(redis, { prefix, sealer });
}
