import type { Redis } from 'ioredis';
import type { SessionStore } from './session-store.js';
import type { ValueSealer } from '../crypto/value-sealer.js';
import { withTimeout } from '../../with-timeout.js';

/** Options of {@link createRedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** Prepended to every key, e.g. `ussd:session:`. Distinct per deployment (and per test file). */
  prefix: string;
  /** Longest wait for one command before the request is answered as unavailable. Default 1000 ms. */
  commandTimeoutMs?: number;
  /** Encrypts values at rest (the gateway always passes one); plain JSON without it. */
  sealer?: ValueSealer;
}

/** Escapes the glob characters of a literal so SCAN MATCH treats it as text. */
function escapeGlob(literal: string): string {
  return literal.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Session store in Redis, shared by every instance behind a load balancer. Each session is one string key
 * `<prefix><sessionId>` holding JSON (sealed with AES-256-GCM when a sealer is given, bound to its key),
 * written with `SET … EX ttl`, so Redis itself expires inactive sessions and no sweeper is needed.
 *
 * `list()` walks the keyspace with `SCAN MATCH <prefix>*`: it costs nothing on the request path (no index
 * to maintain per write) and is only used by the operator endpoints and the active-sessions gauge. On a
 * very large shared keyspace a sorted-set index would be cheaper to list, at one extra write per request.
 */
export function createRedisSessionStore<T>(redis: Redis, options: RedisSessionStoreOptions): SessionStore<T> {
  const { prefix } = options;
  const timeoutMs = options.commandTimeoutMs ?? 1000;
  const key = (sessionId: string): string => `${prefix}${sessionId}`;
  const pattern = `${escapeGlob(prefix)}*`;
  const { sealer } = options;
  const encode = (k: string, value: T): string => {
    const json = JSON.stringify(value);
    return sealer ? sealer.seal(json, k) : json;
  };
  const decode = (k: string, stored: string): T => JSON.parse(sealer ? sealer.open(stored, k) : stored) as T;

  return {
    async get(sessionId) {
      const k = key(sessionId);
      const stored = await withTimeout(redis.get(k), timeoutMs, 'redis GET');
      return stored === null ? undefined : decode(k, stored);
    },
    async set(sessionId, value, ttlSeconds) {
      const k = key(sessionId);
      await withTimeout(redis.set(k, encode(k, value), 'EX', ttlSeconds), timeoutMs, 'redis SET');
    },
    async delete(sessionId) {
      await withTimeout(redis.del(key(sessionId)), timeoutMs, 'redis DEL');
    },
    async list() {
      const scan = async (): Promise<string[]> => {
        const ids = new Set<string>();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
          for (const k of keys) ids.add(k.slice(prefix.length));
          cursor = next;
        } while (cursor !== '0');
        return [...ids].sort();
      };
      return withTimeout(scan(), timeoutMs * 5, 'redis SCAN');
    },
    close() {
      return Promise.resolve();
    },
  };
}
