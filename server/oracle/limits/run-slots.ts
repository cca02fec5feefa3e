import type { Redis } from 'ioredis';
import { scriptCommand } from '../../redis-script.js';
import { withTimeout } from '../../with-timeout.js';
import type { OutageNotice } from '../../stores/outage-notice.js';

/**
 * Slots of the turns a user has in flight, one per session: a new turn on a session whose turn is still running
 * replaces that turn (the service aborts it), so it takes no second slot. A slot is freed when its run ends, and
 * expires after `ttlMs` if the instance that took it died before it could free it.
 */
export interface RunSlots {
  /** Takes a slot for the session's new turn unless the user already has `limit` other sessions running. */
  take(user: string, slot: RunSlot, limit: number, ttlMs: number): Promise<boolean>;
  /** Frees the slot of a turn (nothing when it has already gone). */
  free(user: string, slot: RunSlot): Promise<void>;
}

/** The turn a slot belongs to. */
export interface RunSlot {
  sessionId: string;
  requestId: string;
}

const member = (slot: RunSlot): string => `${slot.sessionId}|${slot.requestId}`;

/** Slots in this process: the default without REDIS_URL, and the fallback while Redis does not answer. */
export function createMemoryRunSlots(now: () => number = Date.now): RunSlots {
  const users = new Map<string, Map<string, { sessionId: string; expires: number }>>();
  return {
    take(user, slot, limit, ttlMs) {
      const at = now();
      const slots = users.get(user) ?? new Map<string, { sessionId: string; expires: number }>();
      const sessions = new Set<string>();
      for (const [key, held] of slots) {
        if (held.expires <= at) slots.delete(key);
        else if (held.sessionId !== slot.sessionId) sessions.add(held.sessionId);
      }
      if (sessions.size >= limit) {
        if (slots.size === 0) users.delete(user);
        return Promise.resolve(false);
      }
      slots.set(member(slot), { sessionId: slot.sessionId, expires: at + ttlMs });
      users.set(user, slots);
      return Promise.resolve(true);
    },
    free(user, slot) {
      const slots = users.get(user);
      slots?.delete(member(slot));
      if (slots?.size === 0) users.delete(user);
      return Promise.resolve();
    },
  };
}

/**
 * One sorted set per user (`<prefix><user DID>`), members `<sessionId>|<requestId>` scored by their expiry.
 * Taking a slot is one script, so concurrent turns on several instances never overshoot the limit.
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local sessions, n = {}, 0
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local s = string.match(m, '^([^|]*)|')
  if s ~= ARGV[4] and not sessions[s] then
    sessions[s] = true
    n = n + 1
  end
end
if n >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1
`;

/** Slots in Redis, shared by every instance. Each command gives up after 1 s (Redis unreachable). */
export function createRedisRunSlots(redis: Redis, prefix: string, now: () => number = Date.now): RunSlots {
  const takeSlot = scriptCommand<[string, number, number, number, string, string]>(
    redis,
    'takeRunSlot',
    TAKE,
    1,
  );
  return {
    async take(user, slot, limit, ttlMs) {
      const at = now();
      const taken = await withTimeout(
        takeSlot(redis, `${prefix}${user}`, at, at + ttlMs, limit, slot.sessionId, member(slot)),
        1000,
        'redis run slots',
      );
      return taken === 1;
    },
    async free(user, slot) {
      await withTimeout(redis.zrem(`${prefix}${user}`, member(slot)), 1000, 'redis run slots');
    },
  };
}

/**
 * Redis, and this process's memory while Redis does not answer: as the rate limits' store does
 * (server/stores/fallback-rate-limit-store.ts FallbackStore), a Redis outage neither fails the turn nor lifts the limit;
 * each instance keeps counting on its own until Redis answers again. The outage is logged once for the process
 * (its Redis client's {@link OutageNotice}).
 */
export function createFallbackRunSlots(shared: RunSlots, outage: OutageNotice): RunSlots {
  const local = createMemoryRunSlots();
  const failed = (err: unknown): void => outage.failed(err);
  return {
    async take(user, slot, limit, ttlMs) {
      try {
        const taken = await shared.take(user, slot, limit, ttlMs);
        outage.recovered();
        return taken;
      } catch (err) {
        failed(err);
        return local.take(user, slot, limit, ttlMs);
      }
    },
    async free(user, slot) {
      await local.free(user, slot);
      await shared.free(user, slot).catch(failed);
    },
  };
}
